"""Aequa's experiments: training runs, one per (dataset, partition, method, seed), and the post-training allocation
that turns Aequa's trained model into rewards (Sec. 4.2, App. D.6). Tables 1, 2, 7, 8, 9 come from their tidy results
(``papers.aequa.tables``).

Every Aequa-family job (these runs, and the extensions' participation, training-time, scale and overhead runs) goes
through :func:`run_job`: one job may train several runs (every seed and method of a setting, or every method of a
seed); each run seeds torch, builds its setting (``papers.aequa.federation``) and hashes its settings exactly as a job
of its own would, so its result does not depend on what else the job trains. The methods are one table
(``papers.aequa.methods``).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Literal

import numpy as np

from fairshare.papers.aequa.federation import Contributions, Job, Setting, prepare
from fairshare.papers.aequa.methods import METHODS, Context, Experiment, train
from fairshare.papers.aequa.settings import AequaSettings, Partition, PerDataset
from fairshare.papers.aequa.settings import describe_per_dataset as describe_per_dataset
from fairshare.papers.aequa.settings import lookup as lookup
from fairshare.pipeline.config import ConfigError

__all__ = [
    "MAIN_METHODS",
    "Run",
    "job_order",
    "JobInputs",
    "ContributionSource",
    "run_job",
    "finished",
    "allocate",
    "allocated_rewards",
    "MAIN",
    "train_runs",
]

MAIN_METHODS = ("standalone", "fedavg_ft", "cgsv", "iafl", "aequa", "aequa_pmin")


@dataclasses.dataclass(frozen=True)
class Run:
    """One training run of a job: its seed, method, output JSON and round checkpoint."""

    seed: int
    method: str
    output: str | None
    checkpoint: str | None


def job_order(runs: Sequence[Run]) -> list[Run]:
    """The runs seed by seed (in order of first appearance), each seed's standalone run first (the contributions
    every other method of the seed needs). A seed without its standalone run is an error."""
    seeds = list(dict.fromkeys(r.seed for r in runs))
    ordered = []
    for seed in seeds:
        mine = sorted((r for r in runs if r.seed == seed), key=lambda r: r.method != "standalone")
        if mine[0].method != "standalone":
            raise ConfigError(f"seed {seed}: {mine[0].method} needs the seed's standalone run in the same job")
        ordered += mine
    return ordered


@dataclasses.dataclass(frozen=True)
class JobInputs:
    """What a training command hands its job: the root seed, the device, the dataset (configured name and cache) and
    the id of the job's config (its --cfg, part of every run's settings hash)."""

    root: int
    device: str
    dataset: str
    dataset_file: str
    cfg_id: str

    def setting(self, settings: AequaSettings, partition: Partition, run: Run, p_min: PerDataset, **options) -> Setting:
        """The federation of ``run`` on this job's dataset (``options``: :func:`~federation.prepare`'s)."""
        return prepare(
            settings,
            self.root,
            self.device,
            self.dataset,
            self.dataset_file,
            partition,
            run.seed,
            p_min=p_min,
            **options,
        )


ContributionSource = Literal["job", "files", "none"]


def run_job(
    experiment: Experiment,
    settings: AequaSettings,
    inputs: JobInputs,
    runs: Sequence[Run],
    *,
    partition: str,
    contributions: ContributionSource,
    standalone_files: Mapping[int, str] | None = None,
    setting: Callable[[Run, PerDataset], Setting] | None = None,
) -> Iterator[tuple[Run, dict]]:
    """Train the runs of one job, yielding each run's result fields as soon as it is done.

    Torch is seeded from ``experiment.torch_stream`` (of the dataset, ``partition`` and the method) before the run's
    federation is built: on the configured ``partition``, or by ``setting(run, p_min)``. ``contributions`` says where
    the standalone accuracies come from: the job's own standalone runs (``job``: each seed's standalone run is trained
    first, :func:`job_order`), ``standalone_files`` (seed -> the main experiments' standalone run) or nowhere.
    """
    from fairshare.io import git_revision, read_json
    from fairshare.learning.device import seed_run
    from fairshare.learning.progress import numbered
    from fairshare.learning.rounds import keep_result, kept_result, settings_hash

    revision = git_revision()

    if setting is None:
        entry = settings.partition(partition)

        def setting(run: Run, p_min: PerDataset) -> Setting:
            return inputs.setting(settings, entry, run, p_min)

    trained: dict[int, Contributions] = {}
    for k, run in enumerate(job_order(runs) if contributions == "job" else runs, start=1):
        if contributions == "files" and run.seed not in standalone_files:
            raise ConfigError(
                f"seed {run.seed} of {inputs.dataset}/{partition} needs its standalone run (the contributions)"
            )
        started = time.perf_counter()
        method, names = METHODS[run.method], dict(dataset=inputs.dataset, partition=partition, method=run.method)
        seed_run(inputs.root, experiment.torch_stream.format(**names), run.seed)
        st = setting(run, settings.p_min_ablation if method.lower_p_min else settings.p_min)
        if run.method == "standalone" or contributions == "none":
            known = None
        elif contributions == "files":
            path = standalone_files[run.seed]
            known = Contributions.of_standalone(read_json(path), len(st.clients), str(path))
        else:
            known = trained[run.seed]
        digest = settings_hash(inputs.cfg_id, experiment.name, *names.values(), run.seed, st.fingerprint(), known)
        joining = experiment.joining(st)
        fit = joining.rates if joining.rates is not None else (None if known is None else known.fit)
        place = (k, len(runs))
        ctx = Context(
            settings, experiment, st, run.method, Job(run.checkpoint, digest), known, fit, joining.participants, place
        )
        # a finished run's result is kept beside its checkpoint for this code version (Snakemake deletes a killed
        # job's outputs; evaluating the run again from its final checkpoint can take minutes)
        key = f"{digest} {revision}" if run.checkpoint and revision else None
        out = kept_result(run.checkpoint, key) if key else None
        if out is None:
            out = {**st.info, "method": run.method, **joining.fields, **(known.fields() if known else {})}
            if method.assessment:
                out["assessment"] = method.assessment
            out.update(train(ctx))
            out = finished(out, st, started, place)
            if key:
                keep_result(run.checkpoint, key, out)
        else:
            label = numbered(f"aequa {st.dataset}/{st.partition.name} {run.method} seed={st.seed}", *place)
            print(f"{label}: done before, its result kept beside the checkpoint", file=sys.stderr, flush=True)
        if run.method == "standalone":
            trained[run.seed] = Contributions.of_standalone(out, len(st.clients))
        yield run, out


def finished(out: dict, st: Setting, started: float, place: tuple[int, int] = (1, 1)) -> dict:
    """A run's result fields with their provenance. Its time (since ``started``, a ``time.perf_counter()`` value) goes
    to the job's log, not into the result: two runs of the same settings write the same bytes. ``place``: (k, N), the
    job's k-th run of N, named in the log line."""
    import sys

    from fairshare.io import run_metadata
    from fairshare.learning.progress import numbered

    accuracy = "" if out.get("global_acc") is None else f", global accuracy {out['global_acc']:.4f}"
    seconds = time.perf_counter() - started
    label = numbered(f"aequa {st.dataset}/{st.partition.name} {out['method']} seed={st.seed}", *place)
    print(f"{label}: done{accuracy}, {seconds:.1f} s", file=sys.stderr, flush=True)
    out["metadata"] = run_metadata(st.root, seed_index=st.seed, device=str(st.device))
    return out


def allocate(ctx: Context, state: dict, curve: np.ndarray, fitted: np.ndarray, spread: str) -> dict:
    """Post-training allocation (Sec. 4.2) with cost ``spread`` (std: sigma/mu; var: a named variant), fitted on
    ``fitted`` (a(p)) and the run's contributions; rewards are read on ``curve`` (the test split). Also the
    width-as-reward allocation (App. D.6: any width for models without batch norm, the bucket otherwise) and its test
    accuracies."""
    from fairshare.games.aequa_allocation import anneal, width_reward_allocation
    from fairshare.learning.evaluation import balanced_accuracy_of
    from fairshare.learning.slimmable import set_width

    st, stream = ctx.st, f"{ctx.st.key}/{ctx.method}"
    options = ctx.settings.allocation.annealing(spread)
    alloc = anneal(ctx.fit, fitted, st.stream(f"aequa/game/{stream}"), **options)
    wr = width_reward_allocation(
        ctx.fit,
        st.widths,
        st.stream(f"aequa/game_width/{stream}"),
        p_min=st.p_min,
        p_max=st.p_max,
        continuous=st.bn_grid is None,
        how=ctx.settings.width_reward_normalization,
        **options,
    )
    st.model.load_state_dict(state)
    wr_acc = []
    for p in wr.values:
        set_width(st.model, float(p))
        wr_acc.append(balanced_accuracy_of(st.model, None, *st.test, st.n_classes))
    set_width(st.model, 1.0)
    return {
        "allocated_width": st.widths[alloc.indices].tolist(),
        "reward_acc": curve[alloc.indices].tolist(),
        "allocation_cost": alloc.cost,
        "ir_infeasible": alloc.ir_infeasible.tolist(),
        "width_reward_width": wr.values.tolist(),
        "width_reward_acc": wr_acc,
    }


def cross_fitted(ctx: Context, state: dict) -> dict:
    """The held-out rho cross-fitted on the two halves of the test split (Sec. 5.2's rho where no validation split is
    large enough): the allocation (configured cost) fitted on one half's contributions and a(p), its rewards read on
    the other half's a(p) against that half's contributions, both ways. Empty without the standalone halves."""
    from fairshare.games.aequa_allocation import anneal
    from fairshare.papers.aequa.tables import pearson

    known = ctx.contributions
    if known is None or known.halves is None:
        return {}
    st = ctx.st
    curves = [st.width_curve(state, half) for half in st.test_halves()]
    rhos = []
    for fit, read in ((0, 1), (1, 0)):
        stream = st.stream(f"aequa/game_crossfit/{st.key}/{ctx.method}", fit)
        alloc = anneal(known.halves[fit], curves[fit], stream, **ctx.settings.allocation.annealing())
        rhos.append(pearson(known.halves[read], curves[read][alloc.indices]))
    return {"crossfit_pearson": rhos, "contributions_halves": known.halves.tolist()}


def allocated_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    """Aequa's rewards in the main experiments: a(p) on the test (and validation) split, the allocation with the
    configured cost and with each variant (accuracy and width rewards)."""
    st, a = ctx.st, ctx.settings.allocation
    curve = st.width_curve(state)
    fitted = st.fit_curve(state, curve)
    out = {
        "p_min": st.p_min,
        "widths": st.widths.tolist(),
        "curve": curve.tolist(),
        "global_acc": float(curve[-1]),
        "allocation_split": a.split,
        "allocation_spread": a.spread,
    }
    if st.val is not None:
        out["curve_validation"] = fitted.tolist()
    out.update(allocate(ctx, state, curve, fitted, a.spread))
    out["variants"] = {v: allocate(ctx, state, curve, fitted, v) for v in a.variants}
    out.update(cross_fitted(ctx, state))
    return out


MAIN = Experiment("main", "aequa/torch/{dataset}/{partition}/{method}", allocated_rewards)


def train_runs(
    settings: AequaSettings, inputs: JobInputs, partition: str, runs: Sequence[Run]
) -> Iterator[tuple[Run, dict]]:
    """The main experiments' runs of one job (one dataset and partition): each seed's standalone run (the
    contributions), then its other methods."""
    return run_job(MAIN, settings, inputs, runs, partition=partition, contributions="job")
