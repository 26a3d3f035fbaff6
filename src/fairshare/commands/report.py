"""Command of the report step: the scorecard from every claims file."""

from __future__ import annotations

import argparse
from pathlib import Path

from fairshare.errors import UserError
from fairshare.io import write_csv, write_json, write_text
from fairshare.pipeline import report
from fairshare.pipeline.commands_shared import cfg_argument, section
from fairshare.pipeline.seed_plan import fill_from_pilot, load_plan

__all__ = [
    "GROUP",
    "HELP",
    "captions",
    "headline",
    "items",
    "readme_numbers",
    "register",
    "scorecard",
    "seed_plan",
    "verdict_table",
]

GROUP = "report"
HELP = (
    "the report: scorecard of every paper number and claim, verdict table across profiles, headline metrics (DVC), "
    "the HTML report's items, captions and stable finish, README's counts from metrics/"
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("scorecard", help="collect every claims CSV into the scorecard (CSV, Markdown, DVC metrics)")
    p.add_argument("claims", nargs="*", help="claims CSV files under results/<paper>/")
    p.add_argument(
        "--csv", required=True, help="where to write the scorecard: one row per claims row, with its status (CSV)"
    )
    p.add_argument(
        "--markdown", required=True, help="where to write the scorecard: counts per paper, then every row (Markdown)"
    )
    p.add_argument("--metrics", required=True, help="DVC metrics: counts per status over every row")
    p.add_argument("--paper-metrics", nargs="*", default=[], help="DVC metrics per paper: <dir>/<paper>.json each")
    p.add_argument("--verdicts", help="this profile's column of the verdict table (CSV)")
    p.add_argument("--reasons", help="known reasons of rows that do not match (YAML list: paper, claim, reason)")
    p.add_argument("--register", help="the tuned-settings register (workflow/tuned_settings.yaml)")
    p.add_argument(
        "--paper-effects",
        help="the effect each paper reports per training statement (workflow/paper_effects.yaml): the paper_effect "
        "and yardstick columns",
    )
    p.add_argument(
        "--sensitivity",
        nargs="*",
        default=[],
        metavar="ID=CSV",
        help="a register entry and its rerun's claims CSV: the `sensitivity` column (needs --register)",
    )
    p.add_argument("--pending", nargs="*", default=[], help="register entries whose rows read 'rerun pending' here")
    p.add_argument(
        "--profile-verdicts",
        nargs="*",
        default=[],
        metavar="PROFILE=CSV",
        help="a profile's committed verdicts (metrics/verdicts/<profile>.csv): the register entries that profile runs "
        "show its verdict beside this profile's",
    )
    p.add_argument(
        "--seed-plan",
        help="the seed plan (workflow/seed_plan.yaml): a row whose group asks for more seeds than --seeds-run gives "
        "reads underpowered (needs --paper-effects)",
    )
    p.add_argument(
        "--seeds-run",
        nargs="*",
        default=[],
        metavar="KEY=N",
        help="the seeds this run gave each config key of the plan",
    )
    cfg_argument(p)
    p.set_defaults(func=scorecard)

    p = sub.add_parser(
        "seed-plan",
        help="fill workflow/seed_plan.yaml from the pilot's scorecard: each group's per-seed SD and the seeds it needs",
    )
    p.add_argument("pilot", help="the pilot's results/scorecard.csv (config/pilot.yaml, run in a clone of its own)")
    p.add_argument("--plan", default="workflow/seed_plan.yaml", help="the plan to fill (workflow/seed_plan.yaml)")
    p.add_argument("--pilot-config", default="config/pilot.yaml", help="the pilot's config file (config/pilot.yaml)")
    p.add_argument("--commit", default="", help="the commit the pilot ran (its clone's git HEAD)")
    p.set_defaults(func=seed_plan)

    p = sub.add_parser("verdict-table", help="one row per training statement, its verdict on each profile side by side")
    p.add_argument(
        "columns",
        nargs="+",
        metavar="PROFILE=CSV",
        help="a profile and its verdicts CSV (written by `report scorecard --verdicts`); PROFILE= alone: not run here",
    )
    p.add_argument(
        "--markdown", required=True, help="where to write the verdict table with its counts per status (Markdown)"
    )
    p.add_argument("--html", required=True, help="where to write the verdict table, cells coloured by status (HTML)")
    p.set_defaults(func=verdict_table)

    p = sub.add_parser("items", help="the HTML report's items: each figure copied, each table as an HTML page")
    p.add_argument("spec", help="JSON list of {output, inputs, kind, title}: one report item each")
    p.set_defaults(func=items)

    p = sub.add_parser("captions", help="each report item's caption, with the verdict of its scorecard rows")
    p.add_argument("spec", help="JSON list of manifest entries, each with its caption fields and its output .rst")
    p.add_argument("--scorecard", required=True, help="results/scorecard.csv")
    p.set_defaults(func=captions)

    p = sub.add_parser("headline", help="headline accuracies and correlations of a training paper (DVC metrics)")
    p.add_argument("paper", choices=["mmfl", "aequa", "auctions"], help="the training paper whose headline to read")
    p.add_argument("table", help="its tidy CSV: mmfl across_tasks.csv, aequa summary.csv, auctions exp6_summary.csv")
    p.add_argument("--output", required=True, help="small JSON file read by `dvc metrics show`")
    p.set_defaults(func=headline)

    p = sub.add_parser(
        "stable-html",
        help="finish Snakemake's HTML report: drop its job times (byte-identical reruns), credit each item to its rule",
    )
    p.add_argument("html", help="the report Snakemake wrote (rewritten in place)")
    p.add_argument("--scorecard", help="results/scorecard.csv: the report's landing page leads with its counts")
    p.set_defaults(func=stable_html)

    p = sub.add_parser(
        "readme-numbers",
        help="rewrite README's generated blocks (scorecard counts, verdict table) from the committed metrics/",
    )
    p.add_argument("--readme", default="README.md", help="the README whose marked blocks to rewrite (README.md)")
    p.add_argument("--metrics", default="metrics", help="the committed metrics folder the counts come from (metrics)")
    p.add_argument(
        "--check", action="store_true", help="write nothing; fail in one line naming the blocks that are stale"
    )
    p.set_defaults(func=readme_numbers)


def scorecard(args: argparse.Namespace) -> None:
    card = report.collect_claims(args.claims)
    if args.reasons:
        import yaml

        card = report.with_reasons(card, yaml.safe_load(Path(args.reasons).read_text()) or [])
    if args.register:
        card = _with_sensitivity(card, args.register, args.sensitivity, args.pending, args.profile_verdicts)
    if args.paper_effects:
        from fairshare.pipeline import yardstick

        plan = load_plan(args.seed_plan) if args.seed_plan else None
        seeds_run = {key: int(n) for key, _, n in (item.partition("=") for item in args.seeds_run)}
        card = yardstick.with_yardstick(card, yardstick.load_effects(args.paper_effects), plan, seeds_run)
    if section(args, "smoke"):
        card = report.mark_smoke(card)
    summary = report.summarize(card)
    write_csv(args.csv, card)
    write_text(args.markdown, report.to_markdown(card, summary, section(args, "profile")))
    # One small flat file per row of `dvc metrics show`: the totals, then each paper (no check file: DVC would show it).
    write_json(args.metrics, {"rows": summary["rows"], **summary["by_status"]}, check=False)
    if args.verdicts:
        write_csv(args.verdicts, report.training_verdicts(card))
    for path in args.paper_metrics:
        paper = Path(path).stem
        write_json(path, summary["papers"].get(paper, {s: 0 for s in report.STATUSES}), check=False)


def seed_plan(args: argparse.Namespace) -> None:
    """Fill the plan's pilot columns (the groups, targets and caps stay as written before the pilot)."""
    import pandas as pd
    import yaml

    pilot_config = yaml.safe_load(Path(args.pilot_config).read_text()) or {}
    provenance = {
        "config": args.pilot_config,
        "root_seed": pilot_config.get("seed"),
        "commit": args.commit,
        "scorecard": args.pilot,
    }
    try:
        card = pd.read_csv(args.pilot, keep_default_na=False)
    except OSError as exc:
        raise UserError(
            f"{args.pilot}: cannot read the pilot's scorecard ({exc.strerror}); run the pilot first"
        ) from None
    filled = fill_from_pilot(args.plan, card, provenance)
    header = "".join(line for line in Path(args.plan).read_text().splitlines(keepends=True) if line.startswith("#"))
    write_text(args.plan, header + yaml.safe_dump(filled, sort_keys=False, width=120, allow_unicode=True))
    plan = load_plan(args.plan)
    for group in plan.groups:
        print(
            f"{group.name}: pilot SD {group.pilot_sd:.4g} over {group.pilot_rows} rows ({group.pilot_intervals} "
            f"intervals), target {group.target:g} -> {group.required or 'more than 200'} seeds"
        )


def _with_sensitivity(card, register: str, specs: list[str], pending: list[str], profile_specs: list[str]):
    """``card`` with the `sensitivity` column from the register, each rerun's claims and the committed verdicts of the
    profiles that run the paper's values (fairshare.pipeline.sensitivity)."""
    import pandas as pd

    from fairshare.pipeline import sensitivity

    reruns = {}
    for spec in specs:
        entry, sep, path = spec.partition("=")
        if not sep or not entry or not path:
            raise UserError(f"scorecard: --sensitivity {spec!r} is not ID=CSV")
        reruns[entry] = report.read_claims(path)
    profiles = {}
    for spec in profile_specs:
        profile, sep, path = spec.partition("=")
        if not sep or not profile or not path:
            raise UserError(f"scorecard: --profile-verdicts {spec!r} is not PROFILE=CSV")
        if not Path(path).is_file():
            raise UserError(
                f"scorecard: --profile-verdicts {path}: no such file (commit that profile's verdicts first)"
            )
        profiles[profile] = pd.read_csv(path, dtype=str, keep_default_na=False)
    try:
        return sensitivity.with_sensitivity(
            card, sensitivity.load_register(register), reruns, pending, profiles, report.row_definitions()
        )
    except sensitivity.RegisterError as exc:
        raise UserError(str(exc)) from None


def verdict_table(args: argparse.Namespace) -> None:
    import pandas as pd

    columns = {}
    for spec in args.columns:
        profile, sep, path = spec.partition("=")
        if not sep or not profile:
            raise UserError(f"verdict-table: {spec!r} is not PROFILE=CSV (or PROFILE= for a profile not run here)")
        columns[profile] = pd.read_csv(path, dtype=str, keep_default_na=False) if path else None
    table = report.verdict_table(columns)
    write_text(args.markdown, report.verdict_table_markdown(table))
    write_text(args.html, report.verdict_table_html(table))


def _spec(path: str) -> list[dict]:
    import json

    return json.loads(Path(path).read_text())


def items(args: argparse.Namespace) -> None:
    """Write each report item: a figure's PNG copied as it is, a table's files as one HTML page."""
    import shutil

    from fairshare.io import atomic_path
    from fairshare.pipeline.report_items import table_html

    for item in _spec(args.spec):
        if item["kind"] == "figure":
            with atomic_path(item["output"]) as tmp:
                shutil.copyfile(item["inputs"][0], tmp)
        else:
            write_text(item["output"], table_html(item["inputs"], item["title"]))


def captions(args: argparse.Namespace) -> None:
    """Write each item's caption (.rst), its scorecard counts read from this run's scorecard."""
    import csv

    from fairshare.pipeline.report_items import caption_rst, producer_command

    with open(args.scorecard, newline="") as f:
        card = list(csv.DictReader(f))
    for entry in _spec(args.spec):
        entry = {**entry, "command": producer_command(entry["source"])}
        write_text(entry["caption"], caption_rst(entry, card))


def headline(args: argparse.Namespace) -> None:
    from fairshare.pipeline.headline import headline as paper_headline

    write_json(args.output, paper_headline(args.paper, args.table), check=False)  # DVC metrics: no check file


def stable_html(args: argparse.Namespace) -> None:
    """Rewrite the report without its job times (same config and results, same bytes), with each item's rule the
    one that made it and, given the scorecard, its counts on the landing page (fairshare.pipeline.html_report)."""
    from fairshare.pipeline.html_report import stabilise

    try:
        stabilise(args.html, args.scorecard)
    except ValueError as exc:
        raise UserError(f"{args.html}: {exc}") from None


def readme_numbers(args: argparse.Namespace) -> None:
    """Render README's generated blocks from metrics/ (fairshare.pipeline.readme_numbers) and write them in place,
    or with --check say which differ."""
    from fairshare.pipeline.readme_numbers import render_blocks, replace_blocks, stale_blocks

    try:
        text = Path(args.readme).read_text()
        blocks = render_blocks(Path(args.metrics))
        stale = stale_blocks(text, blocks)
    except (OSError, ValueError) as exc:
        raise UserError(f"readme-numbers: {exc}") from None
    if args.check:
        if stale:
            raise UserError(
                f"{args.readme}: stale blocks {', '.join(stale)}; rewrite them: fairshare report readme-numbers"
            )
        return
    if stale:
        write_text(args.readme, replace_blocks(text, blocks))
    print(f"{args.readme}: rewrote {', '.join(stale)}" if stale else f"{args.readme}: up to date")
