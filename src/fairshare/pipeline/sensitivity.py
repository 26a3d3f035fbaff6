"""The tuned-settings register and the scorecard's ``sensitivity`` column (issue 28, "What to build" item 4).

``workflow/tuned_settings.yaml`` lists every default chosen after seeing a result: its config path, the tuned value,
the paper's value and why it changed, the scorecard rows it affects and the rerun that checks them with another value
(workflow/rules/sensitivity.smk, writing under ``results/sensitivity/<id>/``). :func:`with_sensitivity` then puts
that rerun's verdict beside each affected row's own status. :func:`register_table` renders the register for
docs/tuned_settings.md and the README (``python -m fairshare.pipeline.sensitivity`` rewrites both).
"""

from __future__ import annotations

import copy
import dataclasses
import re
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pandas as pd

from fairshare.pipeline.sensitivity_extensions import extension_plan

__all__ = [
    "REGISTER",
    "Entry",
    "RegisterError",
    "aequa_commands",
    "aequa_job",
    "aequa_outputs",
    "aequa_rerun",
    "applies",
    "load_register",
    "lookup",
    "compare",
    "mmfl_commands",
    "mmfl_file",
    "mmfl_outputs",
    "mmfl_rerun",
    "mmfl_summarize",
    "over_budget",
    "overridden",
    "pending_here",
    "register_summary",
    "register_table",
    "rerun_blocks",
    "rerun_config",
    "rerun_inputs",
    "replace_between",
    "with_sensitivity",
]

REPO = Path(__file__).resolve().parents[3]
REGISTER = REPO / "workflow" / "tuned_settings.yaml"
SCHEMA = REPO / "workflow" / "schemas" / "tuned_settings.schema.yaml"
ROW_KEY = ["paper", "artifact", "claim"]


class RegisterError(ValueError):
    """A register entry that does not fit the schema or the config: one line naming the entry."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One tuned setting (the fields of workflow/schemas/tuned_settings.schema.yaml)."""

    id: str
    config: str
    default: Any
    paper_value: str
    rerun_value: Any
    rerun_source: str
    why: str
    rows: tuple[dict, ...]
    rerun: dict
    minutes: float | None = None  # the rerun's estimated CPU-minutes at the reference machine (default profile)

    @property
    def kind(self) -> str:
        return self.rerun["kind"]

    @property
    def label(self) -> str:
        """How the sensitivity column names the rerun, e.g. ``aequa.p_min.digits=0.1``; a rerun limited to some
        partitions says so (the other settings keep the default there)."""
        scope = self.rerun.get("partitions")
        only = f" ({', '.join(self.rerun['datasets'])} {', '.join(scope)} only)" if scope else ""
        also = "".join(f", {p}" for p in self.rerun.get("also", []))
        return f"{self.config}{also}={self.rerun_value}{only}"

    def affects(self, paper: str, artifact: str, claim: str) -> bool:
        """Whether a scorecard row matches one of the entry's ``rows`` patterns."""
        return any(
            fnmatchcase(paper, r["paper"]) and fnmatchcase(artifact, r["artifact"]) and fnmatchcase(claim, r["claim"])
            for r in self.rows
        )


def _child(node: Any, key: str, path: str) -> Any:
    """``node[key]``: a mapping's key, or a list's index written as digits (``mmfl.experiments.0.active_rate``)."""
    if isinstance(node, Mapping) and key in node:
        return node[key]
    if isinstance(node, list) and key.isdigit() and int(key) < len(node):
        return node[int(key)]
    raise KeyError(path)


def lookup(config: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted ``path`` of ``config``; KeyError naming the path when a key is missing."""
    node: Any = config
    for key in path.split("."):
        node = _child(node, key, path)
    return node


def overridden(config: Mapping[str, Any], path: str, value: Any) -> dict:
    """A deep copy of ``config`` with ``value`` at the (existing) dotted ``path``."""
    out = copy.deepcopy(dict(config))
    *parents, last = path.split(".")
    lookup(out, path)
    node: Any = out
    for key in parents:
        node = _child(node, key, path)
    node[int(last) if isinstance(node, list) else last] = value
    return out


def _validate(data: Any, source: str) -> None:
    import jsonschema
    import yaml

    schema = yaml.safe_load(SCHEMA.read_text())
    error = jsonschema.exceptions.best_match(jsonschema.Draft7Validator(schema).iter_errors(data))
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "<top level>"
        raise RegisterError(f"{source}: {where}: {error.message}")


def load_register(path: str | Path = REGISTER, config: Mapping[str, Any] | None = None) -> list[Entry]:
    """The register's entries, checked against its schema and (with ``config``) against the config: every entry
    whose rerun is not pending must name a config path that exists (a profile may hold another value there: it then
    runs no rerun, :func:`applies`)."""
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or []
    _validate(data, str(path))
    entries = [Entry(**{**e, "rows": tuple(e["rows"])}) for e in data]
    seen = [e.id for e in entries]
    duplicates = sorted({i for i in seen if seen.count(i) > 1})
    if duplicates:
        raise RegisterError(f"{path}: duplicate ids {duplicates}")
    for entry in entries if config is not None else ():
        if entry.kind == "pending":
            continue
        try:
            lookup(config, entry.config)
        except KeyError:
            raise RegisterError(
                f"tuned setting '{entry.id}': config path '{entry.config}' does not exist in the config"
            ) from None
    return entries


def over_budget(entry: Entry, config: Mapping[str, Any]) -> bool:
    """Whether ``entry``'s rerun costs more than this profile's ``limits.sensitivity_rerun_minutes`` (both for the
    reference machine): the budget, fixed before any rerun ran, decides which reruns a profile holds, never a result."""
    cap = (config.get("limits") or {}).get("sensitivity_rerun_minutes")
    return cap is not None and entry.minutes is not None and entry.minutes > cap


def applies(entry: Entry, config: Mapping[str, Any]) -> bool:
    """Whether this profile runs ``entry``'s rerun: it has one (not pending, none or another profile's), within the
    profile's per-rerun budget (:func:`over_budget`), the profile keeps the tuned value, and (Aequa) it trains the
    datasets and partitions the rerun names (multi-model FL: the experiments). A profile that leaves the entry's
    paper out (config ``papers``) runs none of its reruns."""
    if entry.kind in ("pending", "none", "profile") or over_budget(entry, config) or not reproduces(entry, config):
        return False
    try:
        if lookup(config, entry.config) != entry.default:
            return False
    except KeyError:
        return False
    if entry.kind == "aequa":
        block = config["aequa"]
        partitions = {p["name"] for p in block["partitions"]}
        return (
            set(entry.rerun["datasets"]) <= set(block["datasets"])
            and set(entry.rerun.get("partitions", partitions)) <= partitions
        )
    if entry.kind == "mmfl":
        return set(entry.rerun.get("experiments", [])) <= {e["name"] for e in config["mmfl"]["experiments"]}
    if entry.kind == "aequa_extensions":
        return bool(extension_plan(entry, config["aequa"]))
    return True


def reproduces(entry: Entry, config: Mapping[str, Any]) -> bool:
    """Whether the profile reproduces the paper of ``entry``'s setting (the config block its key starts with)."""
    papers = config.get("papers")
    return not papers or entry.config.split(".")[0] in papers


def pending_here(entry: Entry, config: Mapping[str, Any]) -> bool:
    """Whether a pending entry's rows say "rerun pending" in this profile (kind ``profile``: that the paper's value
    runs in another profile; a rerun over this profile's budget: that it is not run here and what it costs): it holds
    the tuned value (a profile without the key, e.g. fewer multi-model FL
    experiments, does not; a pending setting that is no config key yet is hard-coded, so every profile running its
    paper holds it). None where the profile leaves the paper out."""
    if not reproduces(entry, config):
        return False
    if entry.kind not in ("pending", "profile"):
        return over_budget(entry, config) and applies(entry, {**config, "limits": {}})
    try:
        return lookup(config, entry.config) == entry.default
    except KeyError:
        return entry.kind == "pending" and entry.config.split(".")[0] in config  # hard-coded: every profile has it


_RUN = re.compile(r"results/aequa/runs/(?P<dataset>[^/]+)/(?P<partition>[^/]+)/(?P<method>[^/]+)/seed\d+\.json$")


def aequa_rerun(entry: Entry, main_runs: Sequence[str], root: str) -> list[tuple[str, str]]:
    """``(main run, rerun)`` path pairs of the main experiments' runs ``entry`` retrains (its datasets, partitions
    and methods), the rerun under ``root``/aequa/runs/ with the main run's layout; none for a claims-only setting
    (kind ``aequa_claims``)."""
    if entry.kind == "aequa_claims":
        return []  # claims-only setting: the main runs as they are
    pairs = []
    for path in main_runs:
        found = _RUN.search(path)
        if found is None:
            raise RegisterError(f"not a main Aequa run file: {path}")
        r = entry.rerun
        if (
            found["dataset"] in r["datasets"]
            and found["partition"] in r.get("partitions", [found["partition"]])
            and found["method"] in r["methods"]
        ):
            pairs.append((path, f"{root}/aequa/runs/{path.split('results/aequa/runs/', 1)[1]}"))
    return pairs


def rerun_config(config: Mapping[str, Any], entry: Entry) -> dict:
    """``config`` with ``entry``'s setting at its rerun value, and the paths its rerun names in ``also`` (the same
    setting of sibling experiments, e.g. both Exp 2 client counts) at that value too."""
    changed = overridden(config, entry.config, entry.rerun_value)
    for path in entry.rerun.get("also", []):
        changed = overridden(changed, path, entry.rerun_value)
    return changed


def rerun_blocks(config: Mapping[str, Any], entry: Entry, *keys: str) -> dict:
    """The config blocks ``keys`` with ``entry``'s setting at its rerun value (for a rerun's ``--cfg``)."""
    changed = rerun_config(config, entry)
    return {k: changed[k] for k in keys}


def aequa_commands(
    pairs: Sequence[tuple[str, str]], dataset_files: Mapping[str, str], train_cfg: str, checkpoints: str
) -> list[str]:
    """`sensitivity aequa-run ...` per (dataset, partition) of the reruns ``pairs`` (:func:`aequa_rerun`): the
    main run's standalone files give the contributions unless standalone itself is retrained."""
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for main, new in pairs:
        found = _RUN.search(main)
        groups.setdefault((found["dataset"], found["partition"]), []).append((main, new))
    commands = []
    for (dataset, partition), members in groups.items():
        retrain_standalone = any(_RUN.search(m)["method"] == "standalone" for m, _ in members)
        args = [f"sensitivity aequa-run --dataset {dataset} --dataset-file {dataset_files[dataset]}"]
        args.append(f"--partition {partition}")
        seeds = []
        for main, new in members:
            seed = re.search(r"seed(\d+)\.json$", main)[1]
            seeds.append(seed)
            method = _RUN.search(main)["method"]
            checkpoint = f"{checkpoints}/{new.removeprefix('results/').removesuffix('.json')}.pt"
            args.append(f"--run {seed} {method} {new} {checkpoint}")
        if not retrain_standalone:
            args += [
                f"--standalone {seed} results/aequa/runs/{dataset}/{partition}/standalone/seed{seed}.json"
                for seed in dict.fromkeys(seeds)
            ]
        args.append(f"--cfg {train_cfg}")
        commands.append(" ".join(args))
    return commands


def aequa_outputs(root: str, pairs: Sequence[tuple[str, str]], tables: Sequence[str]) -> list[str]:
    """Every file an Aequa rerun writes under ``root``: its runs, then the main experiments' tables and claims."""
    files = [new for _, new in pairs] + [f"{root}/aequa/{t}.{x}" for t in tables for x in ("csv", "md")]
    return files + [f"{root}/aequa/{name}" for name in ("summary.csv", "per_client.csv", "width_curves.csv")]


def aequa_job(
    root: str,
    pairs: Sequence[tuple[str, str]],
    main_runs: Sequence[str],
    tables: Sequence[str],
    summary_cfg: str,
    train: Sequence[str],
) -> list[str]:
    """The commands of one Aequa rerun: ``train`` (:func:`aequa_commands`), then `aequa summarize` of the main runs
    with the rerun ones in their place, writing under ``root``/aequa/ with the main run's config (so every row keeps
    its text, hence its id)."""
    out = f"{root}/aequa"
    summarize = [
        "aequa summarize",
        *rerun_inputs(pairs, main_runs),
        f"--summary {out}/summary.csv --per-client {out}/per_client.csv --curves {out}/width_curves.csv",
        f"--claims {out}/claims.csv",
        *(f"--{t} {out}/{t}.csv {out}/{t}.md" for t in tables),
        f"--cfg {summary_cfg}",
    ]
    return [*train, " ".join(summarize)]


def rerun_inputs(pairs: Sequence[tuple[str, str]], main_runs: Sequence[str]) -> list[str]:
    """The summary's inputs of a rerun: the main runs, each rerun one replaced (same order)."""
    new = dict(pairs)
    return [new.get(path, path) for path in main_runs]


def mmfl_rerun(entry: Entry, runs: Sequence[Mapping[str, str]]) -> list[Mapping[str, str]]:
    """The multi-model FL runs (``{experiment, label, seed}``) ``entry`` retrains: those of its ``experiments`` (every
    experiment when omitted); none for a setting only the summaries read (``mmfl_claims``, ``exp6_claims``)."""
    if entry.kind != "mmfl":
        return []
    chosen = entry.rerun.get("experiments")
    return [r for r in runs if chosen is None or r["experiment"] in chosen]


def mmfl_file(root: str, run: Mapping[str, str], suffix: str) -> str:
    """A multi-model FL run's file under a rerun's ``root`` (the main run's layout below results/mmfl/)."""
    return f"{root}/mmfl/runs/{run['experiment']}/{run['label']}/seed{run['seed']}{suffix}"


def mmfl_commands(
    runs: Sequence[Mapping[str, str]],
    chosen: Mapping[tuple[str, str, str], tuple[str, Any]],
    datasets: Mapping[str, Sequence[str]],
    cfgs: Mapping[str, str],
    root: str,
    checkpoints: str,
) -> list[str]:
    """`mmfl run ...` per experiment of the retrained ``runs`` (as workflow/rules/common.smk's mmfl_commands), writing
    under ``root``: ``chosen`` maps (experiment, label, seed) to (method, alpha), ``datasets`` an experiment to its
    ``task=file`` arguments and ``cfgs`` an experiment to its --cfg (the rerun value's block, that experiment only)."""
    groups: dict[str, list[Mapping[str, str]]] = {}
    for run in runs:
        groups.setdefault(run["experiment"], []).append(run)
    commands = []
    for experiment, members in groups.items():
        picked = [chosen[(r["experiment"], r["label"], str(r["seed"]))] for r in members]
        parts = [
            f"mmfl run --experiment {experiment} --method {' '.join(m for m, _ in picked)}",
            f"--alpha {' '.join('none' if a is None else repr(a) for _, a in picked)}",
            f"--seed-index {' '.join(str(r['seed']) for r in members)}",
            f"--datasets {' '.join(datasets[experiment])}",
            f"--output {' '.join(mmfl_file(root, r, '.csv') for r in members)}",
            f"--allocation {' '.join(mmfl_file(root, r, '_alloc.npz') for r in members)}",
            "--checkpoint "
            + " ".join(f"{checkpoints}/{mmfl_file(root, r, '.pt').removeprefix('results/')}" for r in members),
            f"--cfg {cfgs[experiment]}",
        ]
        commands.append(" ".join(parts))
    return commands


def mmfl_outputs(root: str, runs: Sequence[Mapping[str, str]]) -> list[str]:
    """Every file a multi-model FL rerun writes under ``root``: its runs, then the summaries and claims."""
    files = [mmfl_file(root, r, x) for r in runs for x in (".csv", "_alloc.npz")]
    names = ("summary.csv", "across_tasks.csv", "table2.csv", "table2.md", "rounds_to_threshold.csv", "claims.csv")
    return files + [f"{root}/mmfl/{n}" for n in names]


def mmfl_summarize(root: str, main_runs: Sequence[str], new_runs: Mapping[str, str], cfg: str) -> str:
    """`mmfl summarize` of the main runs (``results/mmfl/runs/...csv``) with the retrained ones (main path -> rerun
    path) in their place, writing under ``root``/mmfl/ with ``cfg`` (the rerun value's blocks)."""
    out = f"{root}/mmfl"
    return " ".join(
        [
            "mmfl summarize",
            *(new_runs.get(p, p) for p in main_runs),
            f"--summary {out}/summary.csv --across-tasks {out}/across_tasks.csv",
            f"--table2 {out}/table2.csv --table2-md {out}/table2.md --rounds-to-threshold {out}/rounds_to_threshold.csv",
            f"--claims {out}/claims.csv --cfg {cfg}",
        ]
    )


_COUNTS = re.compile(r"(\d+) match, (\d+) differ, (\d+) inconclusive of (\d+)")


def compare(label: str, default: str, rerun: str, default_interval: str = "", rerun_interval: str = "") -> str:
    """The sensitivity cell of one row: the rerun's status beside the default's, a reversal named as one.

    match -> differs and differs -> match read "reverses"; inconclusive -> differs "contradicted"; both differs, the
    rerun contradicting more of the row's comparisons (the intervals' "M match, D differ, I inconclusive of N"),
    "contradicted on more comparisons"; the same status "(as default)"."""
    if rerun == default:
        ours, theirs = _COUNTS.search(rerun_interval or ""), _COUNTS.search(default_interval or "")
        if rerun == "differs" and ours and theirs and int(ours[2]) > int(theirs[2]):
            return (
                f"{label}: contradicted on more comparisons: differs on {ours[2]} of {ours[4]} "
                f"(default {theirs[2]} of {theirs[4]})"
            )
        return (
            f"{label}: {rerun} (as default)" if rerun in ("match", "differs", "inconclusive") else f"{label}: {rerun}"
        )
    if {default, rerun} == {"match", "differs"}:
        return f"{label}: reverses: {rerun} (default {default})"
    if rerun == "differs" and default == "inconclusive":
        return f"{label}: contradicted: differs (default inconclusive)"
    return f"{label}: {rerun} (default {default})"


def _profile_verdict(entry: Entry, row: Mapping[str, str], verdicts: pd.DataFrame | None, definitions: str) -> str:
    """The cell of a ``profile`` entry: the named profile's committed verdict of the same row (its main run trains
    the paper's value, with that profile's other settings), beside this row's own; without that profile's verdicts,
    or from older row definitions, say so rather than show a verdict of other rows."""
    where = entry.rerun["profile"]
    if verdicts is None:
        return f"{entry.label}: runs in the {where} profile only, not rerun here"
    key = [row[c] for c in ROW_KEY]
    hit = verdicts[(verdicts["paper"] == key[0]) & (verdicts["artifact"] == key[1]) & (verdicts["claim"] == key[2])]
    if not len(hit):
        return f"{entry.label}: runs in the {where} profile only, which has no such row"
    found = hit.iloc[0]
    if definitions and found.get("definitions", "") != definitions:
        return f"{entry.label}: runs in the {where} profile only; its committed verdict is of older row definitions"
    return compare(f"{entry.label}: in the {where} profile's committed run", row["status"], found["status"])


def _verdict(
    entry: Entry,
    rerun: pd.DataFrame | None,
    row: Mapping[str, str],
    pending: Sequence[str],
    profiles: Mapping[str, pd.DataFrame],
    definitions: str,
) -> str:
    if entry.kind == "pending":
        return f"{entry.label}: rerun pending" if entry.id in pending else ""
    if entry.kind == "profile":
        if entry.id not in pending:
            return ""
        return _profile_verdict(entry, row, profiles.get(entry.rerun["profile"]), definitions)
    if entry.id in pending:
        return (
            f"{entry.label}: not rerun in this profile: about {entry.minutes:g} CPU-minutes at the reference machine, "
            "over its limits.sensitivity_rerun_minutes (run it with that limit raised)"
        )
    if rerun is None:
        return ""
    key = [row[c] for c in ROW_KEY]
    hit = rerun[(rerun["paper"] == key[0]) & (rerun["artifact"] == key[1]) & (rerun["claim"] == key[2])]
    if not len(hit):
        return f"{entry.label}: not rerun"
    found = hit.iloc[0]
    return compare(entry.label, row["status"], found["status"], row.get("interval", ""), found.get("interval", ""))


def with_sensitivity(
    card: pd.DataFrame,
    entries: Sequence[Entry],
    reruns: Mapping[str, pd.DataFrame],
    pending: Sequence[str] = (),
    profiles: Mapping[str, pd.DataFrame] | None = None,
    definitions: str = "",
) -> pd.DataFrame:
    """``card`` with a ``sensitivity`` column: on each row an entry affects, the rerun's status of the same row (by
    paper, artifact, claim) beside the row's own (:func:`compare`), e.g. "auctions.task1_mu=0.5: reverses: differs
    (default match)", or "not rerun" when the rerun's claims lack the row; the ``pending`` entries
    (:func:`pending_here`) say "rerun pending", and those of kind ``profile`` show the verdict of the profile that
    runs the paper's value from its committed verdicts in ``profiles`` (profile -> its verdicts CSV; only when they
    carry the current row ``definitions``); rows no entry affects, and entries this profile does not rerun (absent
    from ``reruns``), leave it empty. Several entries: "; "."""
    unknown = sorted(set(reruns) - {e.id for e in entries})
    if unknown:
        raise RegisterError(f"reruns {unknown} have no register entry")
    column = []
    for row in card.to_dict("records"):
        key = [row[c] for c in ROW_KEY]
        texts = [
            _verdict(e, reruns.get(e.id), row, pending, profiles or {}, definitions) for e in entries if e.affects(*key)
        ]
        column.append("; ".join(t for t in texts if t))
    return card.assign(sensitivity=column)


def _cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def register_table(entries: Sequence[Entry]) -> str:
    """The register as one Markdown table (docs/tuned_settings.md, README)."""
    lines = [
        "| id | setting | default | paper / authors' value | rerun with | why it changed | rows | rerun |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        rows = "<br>".join(f"`{r['paper']}` / `{r['artifact']}` / `{r['claim']}`" for r in e.rows)
        r = e.rerun
        rerun = r["kind"] if r["kind"] != "aequa" else f"aequa: {', '.join(r['methods'])} on {', '.join(r['datasets'])}"
        if "partitions" in r:
            rerun += f" ({', '.join(r['partitions'])})"
        if r["kind"] == "aequa_extensions":
            rerun = f"aequa extensions ({', '.join(r['extensions'])}): {', '.join(r['methods'])} on {', '.join(r['datasets'])}"
        if r["kind"] == "aequa_claims" and r.get("extensions"):
            rerun += " + the extensions' claims"
        if r["kind"] == "mmfl":
            rerun = f"mmfl: {', '.join(r.get('experiments', ['every experiment']))}" + (
                " + Exp 6" if r.get("exp6") else ""
            )
        if r["kind"] in ("pending", "none"):
            rerun = f"{r['kind']}: {r['reason']}"
        if r["kind"] == "profile":
            rerun = f"{r['profile']} profile only: {r['reason']}"
        cells = [f"`{e.id}`", f"`{e.config}`", f"`{e.default}`", e.paper_value]
        cells += [f"`{e.rerun_value}` ({e.rerun_source})", e.why, rows, rerun]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"


def register_summary(entries: Sequence[Entry]) -> str:
    """The register in short (README): setting, default, rerun value, why it changed (an Aequa setting's extensions
    entry, ``<id>_ext``, repeats its setting: one line)."""
    lines = ["| setting | default | rerun with | why it changed |", "|---|---|---|---|"]
    for e in entries:
        if e.kind == "aequa_extensions":
            continue
        rerun = {
            "pending": f"`{e.rerun_value}` (pending)",
            "none": "no rerun needed",
            "profile": f"`{e.rerun_value}` ({e.rerun.get('profile')} profile only)",
        }.get(e.kind, f"`{e.rerun_value}`")
        lines.append(f"| `{e.config}` | `{e.default}` | {rerun} | {_cell(e.why)} |")
    return "\n".join(lines) + "\n"


def replace_between(text: str, start: str, end: str, body: str) -> str:
    """``text`` with what lies between the ``start`` and ``end`` markers replaced by ``body``."""
    head, found, rest = text.partition(start)
    if not found or end not in rest:
        raise RegisterError(f"markers {start} ... {end} not found")
    return f"{head}{start}\n{body}{end}{rest.partition(end)[2]}"


#: Where the register is rendered: file -> (start marker, end marker, renderer).
MARKERS = {
    REPO / "docs" / "tuned_settings.md": ("<!-- register:start -->", "<!-- register:end -->", register_table),
    REPO / "README.md": ("<!-- tuned-settings:start -->", "<!-- tuned-settings:end -->", register_summary),
}


def main() -> None:
    """Rewrite the register's table in docs/tuned_settings.md and README.md from workflow/tuned_settings.yaml."""
    entries = load_register()
    for path, (start, end, render) in MARKERS.items():
        path.write_text(replace_between(path.read_text(), start, end, render(entries)))


if __name__ == "__main__":
    main()
