"""Every reward method of the Aequa paper and its extensions as one table: name -> round step, initial state and the
rewards of a trained state (App. B's baselines, Algorithm 1, Algorithm 2). :func:`train` runs one method of one run
through ``fairshare.learning.rounds.run_rounds`` (the run's checkpoint and settings hash).

What sets an experiment apart is an :class:`Experiment`: the clients joining each round (Sec. 6.4, 6.6), what IAFL and
the allocation fit on (standalone accuracies, or Sec. 6.4's participation rates), how Aequa's trained model becomes
rewards (post-training allocation, Sec. 4.2) and, for training-time rewards (Sec. 6.5), the rounds its rewards are
evaluated at. A table entry may fix a parameter of the run (Table 8's lower p_min, Algorithm 2's contribution
assessment); the run records it as a field.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from fairshare.papers.aequa.federation import Contributions, Job, Setting
from fairshare.papers.aequa.settings import AequaSettings, TrainingTime, lookup

__all__ = ["Participants", "Joining", "Experiment", "Context", "Method", "aequa_step", "METHODS", "evaluation", "train"]

Participants = Callable[[int], np.ndarray]  # round -> indices of the clients that join it


@dataclasses.dataclass(frozen=True)
class Joining:
    """Who joins each round of a run (Sec. 6.4, 6.6; None: every client) and what the run records about it;
    ``rates``: Sec. 6.4's participation rates, which are then the contributions IAFL and the allocation fit on."""

    participants: Participants | None = None
    fields: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    rates: np.ndarray | None = None


@dataclasses.dataclass(frozen=True)
class Experiment:
    """The hooks and stream names of one experiment's runs.

    ``torch_stream`` names the stream torch is seeded from per run (a template of ``dataset``, ``partition`` and
    ``method``); ``width_stream`` labels Aequa's width-sampling stream (empty: the method's name); ``sampling_stream``
    is IAFL's update-sampling stream (suffixed by the setting); ``aequa_rewards(ctx, state, rounds_done)`` turns
    Aequa's model into rewards; ``measure_every`` > 0 evaluates the rewards every that many rounds (and the last)
    instead of once after training (Sec. 6.5); ``standalone_schedule`` stretches the learning-rate schedule over
    standalone training; ``joining(st)`` gives a run's participation.
    """

    name: str
    torch_stream: str
    aequa_rewards: Callable[[Context, Any, int], dict]
    width_stream: str = ""
    sampling_stream: str = "aequa/sampling"
    measure_every: int = 0
    standalone_schedule: bool = True
    training_time: TrainingTime | None = None  # Algorithm 2's settings (training-time methods only)
    joining: Callable[[Setting], Joining] = lambda st: Joining()
    rounds: int = 0  # rounds of every run (0: the setting's)


@dataclasses.dataclass(frozen=True)
class Context:
    """One run of one method: its settings, federation, checkpoint, contributions and participation."""

    settings: AequaSettings
    experiment: Experiment
    st: Setting
    method: str
    job: Job
    contributions: Contributions | None  # the standalone accuracies (None: standalone runs, participation rates)
    fit: np.ndarray | None = None  # what IAFL and the allocation fit on (contributions.fit, or the rates)
    participants: Participants | None = None  # None: every client joins every round
    place: tuple[int, int] = (1, 1)  # (k, N): the job's k-th run of N, for progress lines


@dataclasses.dataclass(frozen=True)
class Method:
    """A reward method: ``step(ctx)`` (one round), ``start(ctx)`` (the initial state), ``rewards(ctx, state,
    rounds_done)`` (the run's result fields: global accuracy, per-client reward accuracies ...); ``progress(ctx,
    state)`` the metric its progress lines show (None: none)."""

    step: Callable[[Context], Callable]
    start: Callable[[Context], Any]
    rewards: Callable[[Context, Any, int], dict]
    rounds: Callable[[Context], int] = lambda ctx: ctx.experiment.rounds or ctx.st.rounds
    timings: bool = False  # the result is the per-round timings, not rewards (Sec. 6.6's overhead)
    lower_p_min: bool = False  # Table 8: trains with p_min_ablation
    assessment: str | None = None  # Algorithm 2's contribution assessment (cgsv or shapfed)
    progress: Callable[[Context, Any], str] | None = None


# ----------------------------------------------------------------------------------------------- standalone
def _standalone_phases(ctx: Context) -> tuple[int, list]:
    """(epochs, constant-lr stretches) of standalone training: the run's rounds x local epochs unless configured."""
    from fairshare.learning import baselines

    tr = ctx.settings.train
    epochs = tr.standalone_epochs or ctx.st.rounds * tr.local_epochs
    lr_at = tr.schedule(epochs) if ctx.experiment.standalone_schedule else None
    return epochs, baselines.standalone_phases(epochs, ctx.st.train.lr, lr_at)


def _standalone_step(ctx: Context):
    from fairshare.learning import baselines

    st = ctx.st
    return baselines.standalone_step(
        st.model, st.clients, st.train, st.order_rng, _standalone_phases(ctx)[1], executor=st.executor
    )


def _standalone_rewards(ctx: Context, states: list, rounds_done: int) -> dict:
    """Each client's own model: its test accuracy is the contribution (and its validation accuracy, if held out)."""
    st = ctx.st
    out = {
        "reward_acc": [st.acc(x) for x in states],
        "global_acc": None,
        "standalone_epochs": _standalone_phases(ctx)[0],
    }
    if st.val is not None:
        out["validation_acc"] = [st.val_acc(x) for x in states]
    out["reward_acc_halves"] = [[st.acc_on(x, half) for x in states] for half in st.test_halves()]
    return out


# ----------------------------------------------------------------------------------------------- FedAvg-FT
def _fedavg_step(ctx: Context):
    from fairshare.learning import baselines

    st = ctx.st
    return baselines.fedavg_step(
        st.model,
        st.clients,
        st.train,
        st.order_rng,
        lr_at=st.lr_at,
        executor=st.executor,
        weighted=ctx.settings.train.weighted_aggregation,
        participants=ctx.participants,
    )


def _fedavg_ft_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    """FedAvg's global model, fine-tuned by every client on its own data (the rewards), at the clients' initial
    learning rate (a fresh optimizer, as IAFL's code) or, with ``finetune_lr: last_round``, the last round's."""
    from fairshare.learning import baselines

    st = ctx.st
    tuned = baselines.finetune(
        st.model,
        state,
        st.clients,
        st.train,
        ctx.settings.finetune_epochs,
        st.order_rng,
        rounds_done,
        lr_at=st.lr_at if ctx.settings.finetune_lr == "last_round" else None,
        executor=st.executor,
    )
    return {"global_acc": st.acc(state), "reward_acc": [st.acc(x) for x in tuned]}


# ----------------------------------------------------------------------------------------------- CGSV, IAFL
def _cgsv_step(ctx: Context):
    from fairshare.learning import baselines

    st, c = ctx.st, ctx.settings.cgsv
    return baselines.cgsv_step(
        st.model,
        st.clients,
        st.train,
        st.order_rng,
        gamma=lookup(c.gamma, st.used, st.dataset),
        alpha=c.alpha,
        beta=c.beta,
        min_reputation=c.min_reputation,
        lr_at=st.lr_at,
        executor=st.executor,
        participants=ctx.participants,
    )


def _iafl_step(ctx: Context):
    from fairshare.learning import baselines

    st, stream = ctx.st, f"{ctx.experiment.sampling_stream}/{ctx.st.key}"
    return baselines.iafl_step(
        st.model,
        st.clients,
        st.train,
        st.order_rng,
        ctx.fit,
        lambda r: st.stream(stream, r),
        kappa=ctx.settings.iafl.kappa,
        q=ctx.settings.iafl.q,
        lr_at=st.lr_at,
        executor=st.executor,
        participants=ctx.participants,
    )


def _server_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    """The server model (global accuracy) and each client's own model (its reward)."""
    return {"global_acc": ctx.st.acc(state["server"]), "reward_acc": [ctx.st.acc(x) for x in state["locals"]]}


def _cgsv_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    return {**_server_rewards(ctx, state, rounds_done), "final_reputation": state["history"][-1].tolist()}


# ----------------------------------------------------------------------------------------------- Aequa
def _slimmable_training(ctx: Context, stream: str) -> dict[str, Any]:
    """What Algorithms 1 and 2 share: the setting's model, clients and optimiser, the width-sampling stream
    ``stream``, the discrete width grid (batch-norm models) and the configured width training."""
    st, s = ctx.st, ctx.settings
    return dict(
        model=st.model,
        clients=st.clients,
        settings=st.train,
        order_rng=st.order_rng,
        width_rng=lambda r, i: st.stream(stream, r, i),
        p_min=st.p_min,
        grid=_grid(st),
        subwidth_mode=s.subwidth_mode,
        lr_at=st.lr_at,
        weighted=s.train.weighted_aggregation,
        width_loss=s.width_loss,
        executor=st.executor,
    )


def _grid(st: Setting) -> list | None:
    return None if st.bn_grid is None else st.bn_grid.tolist()


def aequa_step(ctx: Context, label: str = ""):
    """Algorithm 1's round on the setting; ``label`` names its width-sampling stream (default: the experiment's)."""
    from fairshare.learning import aequa as aq

    stream = f"aequa/widths/{ctx.st.key}/{label or ctx.experiment.width_stream or ctx.method}"
    return aq.aequa_step(**_slimmable_training(ctx, stream), p_max=ctx.st.p_max, participants=ctx.participants)


def _aequa_rewards(ctx: Context, state: dict, rounds_done: int) -> dict:
    return ctx.experiment.aequa_rewards(ctx, state, rounds_done)


# ----------------------------------------------------------------------------------------------- Algorithm 2
def _training_time_step(ctx: Context):
    from fairshare.learning.aequa_training_time import training_time_step

    tt = ctx.experiment.training_time
    return training_time_step(
        **_slimmable_training(ctx, f"aequa/training_time/widths/{ctx.st.key}/{ctx.method}"),
        ca=METHODS[ctx.method].assessment,
        beta=tt.beta,
        last_k=tt.last_k,
        min_score=tt.min_score,
    )


def _training_time_start(ctx: Context) -> dict:
    from fairshare.learning.aequa_training_time import training_time_start

    return training_time_start(ctx.st.init, len(ctx.st.clients), ctx.st.p_min, _grid(ctx.st))


def _held_width_rewards(ctx: Context, run: dict, rounds_done: int) -> dict:
    """Each client's reward under Algorithm 2: the width it holds, cut from the global model."""
    from fairshare.learning.evaluation import balanced_accuracy_of
    from fairshare.learning.slimmable import set_width

    st = ctx.st
    st.model.load_state_dict(run["model"])
    accs = []
    for p in run["widths"]:
        set_width(st.model, float(p))
        accs.append(balanced_accuracy_of(st.model, None, *st.test, st.n_classes))
    set_width(st.model, 1.0)
    return {"global_acc": st.acc(run["model"]), "reward_acc": accs, "widths": run["widths"].tolist()}


# ----------------------------------------------------------------------------------------------- overhead
def _overhead_step(ctx: Context):
    """FedAvg's and Aequa's rounds, each timed in turn on its own model (Sec. 6.6's per-round overhead)."""
    from fairshare.learning import baselines

    st = ctx.st
    steps = {
        "fedavg": baselines.fedavg_step(
            st.model, st.clients, st.train, st.order_rng, executor=st.executor, participants=ctx.participants
        ),
        "aequa": aequa_step(ctx, "aequa_overhead"),
    }

    def step(r: int, state: dict) -> tuple[dict, dict, int]:
        timed, seconds, samples = {}, {}, 0
        for name, method in steps.items():
            began = time.perf_counter()
            timed[name], _, n = method(r, state[name])
            seconds[name] = time.perf_counter() - began
            samples += n
        return timed, seconds, samples

    return step


def _no_rewards(ctx: Context, state: Any, rounds_done: int) -> dict:
    return {}


def _initial(ctx: Context) -> Any:
    return ctx.st.init


def _cgsv_start(ctx: Context) -> dict:
    from fairshare.learning.baselines import cgsv_start

    return cgsv_start(ctx.st.init, ctx.st.clients)


def _iafl_start(ctx: Context) -> dict:
    from fairshare.learning.baselines import iafl_start

    return iafl_start(ctx.st.init, ctx.st.clients)


# ----------------------------------------------------------------------------------------------- progress lines
def _accuracy_of(model: Callable[[Any], Any]) -> Callable[[Context, Any], str]:
    """The progress metric of a method whose global model is ``model(state)``: its test accuracy (``Setting.acc``,
    what the run's ``global_acc`` reports after training)."""
    return lambda ctx, state: f"accuracy {ctx.st.acc(model(state)):.4f}"


def _standalone_progress(ctx: Context, states: list) -> str:
    """Standalone training has no global model: the clients' mean test accuracy."""
    return f"mean client accuracy {np.mean([ctx.st.acc(x) for x in states]):.4f}"


_aequa = Method(aequa_step, _initial, _aequa_rewards, progress=_accuracy_of(lambda state: state))
_algorithm2 = dict(
    step=_training_time_step,
    start=_training_time_start,
    rewards=_held_width_rewards,
    progress=_accuracy_of(lambda state: state["model"]),
)
_server = _accuracy_of(lambda state: state["server"])
METHODS: Mapping[str, Method] = {
    "standalone": Method(
        _standalone_step,
        lambda ctx: [ctx.st.init] * len(ctx.st.clients),
        _standalone_rewards,
        rounds=lambda ctx: len(_standalone_phases(ctx)[1]),
        progress=_standalone_progress,
    ),
    "fedavg_ft": Method(_fedavg_step, _initial, _fedavg_ft_rewards, progress=_accuracy_of(lambda state: state)),
    "cgsv": Method(_cgsv_step, _cgsv_start, _cgsv_rewards, progress=_server),
    "iafl": Method(_iafl_step, _iafl_start, _server_rewards, progress=_server),
    "aequa": _aequa,
    "aequa_pmin": dataclasses.replace(_aequa, lower_p_min=True),
    "aequa_cgsv": Method(**_algorithm2, assessment="cgsv"),
    "aequa_shapfed": Method(**_algorithm2, assessment="shapfed"),
    "overhead": Method(
        _overhead_step, lambda ctx: {"fedavg": ctx.st.init, "aequa": ctx.st.init}, _no_rewards, timings=True
    ),
}


def evaluation(contributions: np.ndarray, rewards: dict) -> dict:
    """One evaluated round (Figs 3-4): global accuracy, Pearson, MCG, CGS, IPR and the rewards themselves (and the
    widths behind them, where the method allocates widths)."""
    from fairshare import metrics as m
    from fairshare.papers.aequa.tables import pearson

    a = np.asarray(rewards["reward_acc"], float)
    out = {
        "accuracy": rewards["global_acc"],
        "pearson": pearson(contributions, a),
        "mcg": m.mean_collaboration_gain(a, contributions),
        "cgs": m.collaboration_gain_spread(a, contributions),
        "ipr": m.incentivized_participation_rate(a, contributions),
        "reward_acc": a.tolist(),
    }
    if "widths" in rewards:
        out["widths"] = rewards["widths"]
    return out


def _measured(ctx: Context, method: Method, step: Callable, every: int, last: int) -> Callable:
    """``step`` whose metrics are the method's rewards evaluated after every ``every``-th round and the last
    (Figs 3-4), against the test split's contributions."""

    def measured(r: int, state: Any) -> tuple[Any, list[dict], int]:
        state, _, samples = step(r, state)
        due = (r + 1) % every == 0 or r == last - 1
        rows = [evaluation(ctx.contributions.test, method.rewards(ctx, state, r + 1))] if due else []
        return state, rows, samples

    return measured


def run_label(ctx: Context) -> str:
    """How progress lines name a run: paper, experiment, dataset/partition, method, seed and its place in the job."""
    from fairshare.learning.progress import numbered

    st = ctx.st
    return numbered(
        f"aequa {ctx.experiment.name} {st.dataset}/{st.partition.name} {ctx.method} seed={st.seed}", *ctx.place
    )


def train(ctx: Context) -> dict:
    """Train ``ctx.method`` on the run's setting: its rewards after training, or with ``measure_every`` the history of
    its rewards evaluated during training (``history``); a timing entry gives its per-round seconds (``seconds``)."""
    method, every = METHODS[ctx.method], ctx.experiment.measure_every
    step, last = method.step(ctx), method.rounds(ctx)
    if every:
        step = _measured(ctx, method, step, every, last)
    probe = None if method.progress is None else (lambda state: method.progress(ctx, state))
    state, history = ctx.job.rounds(step, method.start(ctx), last, desc=run_label(ctx), probe=probe)
    if every:
        return {"history": history}
    if method.timings:
        return {"seconds": history}
    return method.rewards(ctx, state, last)
