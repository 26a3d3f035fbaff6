"""The Aequa extensions' sensitivity reruns (register kind ``aequa_extensions``, issue 38).

The participation-rate (Sec. 6.4, Table 3), training-time-reward (Sec. 6.5, Figs 3-4) and scale (Sec. 6.6, Table 4)
runs train with the main ``aequa`` block, so a tuned training setting changes them too. :func:`extension_plan` says
which of their runs an entry retrains in a profile and :func:`extension_job` writes the rule's commands: those runs
under ``results/sensitivity/<id>/`` with the rerun value, then each retrained extension's summary and claims from them
and the main run's other runs, joined in one claims file (workflow/rules/sensitivity.smk).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairshare.pipeline.sensitivity import Entry

__all__ = [
    "AEQUA_VARIANTS",
    "EXTENSIONS",
    "SCALE_METHODS",
    "Layout",
    "extension_file",
    "extension_job",
    "extension_plan",
]

EXTENSIONS = ("participation", "training_time", "scale")
SCALE_METHODS = ("standalone", "fedavg_ft", "aequa")  # as `aequa-ext scale` trains them (aequa_extensions.smk)
AEQUA_VARIANTS = ("aequa_cgsv", "aequa_shapfed")  # Aequa's training with other contribution estimates (Sec. 6.5)


def extension_plan(entry: Entry, block: Mapping[str, Any]) -> list[tuple[str, dict, list[str]]]:
    """``(extension, setting, methods)`` the Aequa extension rerun ``entry`` (kind ``aequa_extensions``) retrains in a
    profile whose ``aequa`` block is ``block``, every extension seed of each: of the extensions it names, the settings
    on its ``datasets`` (training-time rewards: and on its ``partitions``; the other two have one partition each).
    With ``standalone`` among its methods (a training setting: the contributions move) every method of a setting
    retrains; otherwise the methods it names, ``aequa`` with its variants, on the main run's standalone runs."""
    r = entry.rerun
    if entry.kind != "aequa_extensions":
        return []
    every = "standalone" in r["methods"]
    wanted = set(r["methods"]) | (set(AEQUA_VARIANTS) if "aequa" in r["methods"] else set())

    def chosen(methods: Sequence[str]) -> list[str]:
        return [m for m in methods if every or m in wanted]

    plan = []
    if "participation" in r["extensions"]:
        part = block["participation"]
        plan += [
            ("participation", {"dataset": d}, chosen(part["methods"])) for d in part["datasets"] if d in r["datasets"]
        ]
    if "training_time" in r["extensions"]:
        tt = block["training_time"]
        plan += [
            ("training_time", {"dataset": d, "partition": p}, chosen(tt["methods"]))
            for p in dict.fromkeys(tt["partitions"].values())
            for d in tt["datasets"]
            if d in r["datasets"] and p in r.get("partitions", [p])
        ]
    if "scale" in r["extensions"] and block["scale"]["dataset"] in r["datasets"]:
        plan.append(("scale", {}, chosen(SCALE_METHODS)))
    return [step for step in plan if step[2]]


def extension_file(root: str, main: str) -> str:
    """A main run's file (``results/aequa/...``) as a rerun under ``root`` writes it (same layout below results/)."""
    return f"{root}/{main.removeprefix('results/')}"


@dataclasses.dataclass(frozen=True)
class Layout:
    """What an extension rerun reads of the main run (workflow/rules/aequa.smk, aequa_extensions.smk)."""

    seeds: Sequence[str]  # the extension seeds
    run_file: Callable[[str, Mapping[str, str], str], str]  # (folder, run, method) -> results/aequa/<folder>/...json
    dataset_file: Callable[[str], str]
    scale_dataset: str
    scale_data: str
    scale_writers: str | None
    main_runs: Mapping[str, Sequence[str]]  # extension -> its summary's inputs, in order
    training_time_standalone: Sequence[str]  # the training-time settings' standalone runs (their contributions)
    figures: Mapping[str, str]  # training-time figure name -> its partition
    checkpoints: str
    check: Callable[[str], str]  # a CSV's or run's check file


def _summary(extension: str, out: str, figures: Mapping[str, str]) -> tuple[str, list[str]]:
    """The summary command of one extension (without its runs, claims and --cfg) and the files it writes under ``out``."""
    if extension == "participation":
        files = ["table3.csv", "table3.md", "participation_per_client.csv"]
        files += ["fig2_participation.png", "fig2_participation.pdf"]
        return (
            f"participation-summary --table {out}/table3.csv {out}/table3.md --per-client"
            f" {out}/participation_per_client.csv --figure {out}/fig2_participation",
            files,
        )
    if extension == "training_time":
        stems = " ".join(f"--figure {p} {out}/{fig}_training_time" for fig, p in figures.items())
        files = [f"{fig}_training_time.{x}" for fig in figures for x in ("png", "pdf")]
        return f"training-time-summary --rounds {out}/training_time_rounds.csv {stems}", [
            "training_time_rounds.csv",
            *files,
        ]
    files = ["table4.csv", "table4.md", "scale_width_curve.csv", "fig5_scale_width.png", "fig5_scale_width.pdf"]
    return (
        f"scale-summary --table {out}/table4.csv {out}/table4.md --curve {out}/scale_width_curve.csv"
        f" --figure {out}/fig5_scale_width",
        files,
    )


def extension_job(
    entry: Entry, plan: Sequence[tuple[str, dict, list[str]]], root: str, main: Layout, train_cfg: str, summary_cfg: str
) -> tuple[list[str], list[str], list[str], str]:
    """(outputs, inputs, commands, claims CSV) of one extension rerun: the ``plan``'s runs (:func:`extension_plan`)
    trained with ``train_cfg`` (the rerun value's block) under ``root``, the training-time rewards on the rerun's own
    standalone runs when standalone retrains (else the main run's, as the scale runs then), then each retrained
    extension's summary with ``summary_cfg`` (the main run's: every row keeps its text, hence its id)."""
    every = "standalone" in entry.rerun["methods"]
    new: dict[str, str] = {}  # main run file -> the rerun's
    commands, inputs = [], []

    def runs(folder: str, setting: dict, methods: Sequence[str]) -> str:
        args = []
        for s in main.seeds:
            for m in methods:
                path = main.run_file(folder, {**setting, "seed": s}, m)
                new[path] = extension_file(root, path)
                args.append(
                    f"--run {s} {m} {new[path]} {main.checkpoints}/{new[path].removeprefix('results/')[:-5]}.pt"
                )
        return " ".join(args)

    def standalone(files: Mapping[str, str]) -> str:
        inputs.extend(q for f in files.values() if f not in new.values() for q in (f, main.check(f)))
        return " ".join(f"--standalone {s} {f}" for s, f in files.items())

    for extension, setting, methods in plan:
        data = main.scale_data if extension == "scale" else main.dataset_file(setting["dataset"])
        inputs.append(data)
        head = f"--dataset {setting.get('dataset', main.scale_dataset)} --dataset-file {data}"
        if extension == "participation":
            commands.append(
                f"aequa-ext participation {head} {runs('participation', setting, methods)} --cfg {train_cfg}"
            )
        elif extension == "training_time":
            head += f" --partition {setting['partition']}"
            files = {s: main.run_file("runs", {**setting, "seed": s}, "standalone") for s in main.seeds}
            if every:  # the contributions move with the setting: the setting's standalone runs retrain first
                commands.append(
                    f"sensitivity aequa-run {head} {runs('runs', setting, ['standalone'])} --cfg {train_cfg}"
                )
                files = {s: new[f] for s, f in files.items()}
            commands.append(
                f"aequa-ext training-time {head} {runs('training_time', setting, methods)} {standalone(files)}"
                f" --cfg {train_cfg}"
            )
        else:
            files = (
                {}
                if "standalone" in methods
                else {s: main.run_file("scale", {"seed": s}, "standalone") for s in main.seeds}
            )
            writers = f" --writers {main.scale_writers}" if main.scale_writers else ""
            inputs += [main.scale_writers] if main.scale_writers else []
            commands.append(
                f"aequa-ext scale {head}{writers} {runs('scale', setting, methods)} {standalone(files)} --cfg {train_cfg}"
            )
    outputs = [q for f in new.values() for q in (f, main.check(f))]
    claims, out = [], f"{root}/aequa"
    for extension in dict.fromkeys(x for x, _, _ in plan):
        summary, files = _summary(extension, out, main.figures)
        inputs += [q for p in main.main_runs[extension] if p not in new for q in (p, main.check(p))]
        claims.append(f"{out}/{extension}_claims.csv")
        reads = " ".join(new.get(p, p) for p in main.main_runs[extension])
        if extension == "training_time":  # a setting whose contributions are not measurable is not judged on rho
            inputs += [q for p in main.training_time_standalone if p not in new for q in (p, main.check(p))]
            reads += " --standalone " + " ".join(new.get(p, p) for p in main.training_time_standalone)
        commands.append(f"aequa-ext {summary} {reads} --claims {claims[-1]} --cfg {summary_cfg}")
        outputs += [f"{out}/{f}" for f in files] + [claims[-1], main.check(claims[-1])]
    commands.append(f"sensitivity join-claims --output {root}/claims.csv {' '.join(claims)}")
    outputs += [f"{root}/claims.csv", main.check(f"{root}/claims.csv")]
    return outputs, sorted(set(inputs)), commands, f"{root}/claims.csv"
