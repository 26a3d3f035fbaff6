"""The ``aequa`` config block as typed settings (``workflow/schemas/aequa.schema.yaml`` documents every key and its
source in the paper). :meth:`AequaSettings.from_block` is the only place that reads the block; the experiments, tables
and claims read these settings.

A training job's block leaves out the keys that only select jobs or shape tables (the rules' ``--cfg``), so
:class:`Tables` is ``None`` there. Keys with a per-dataset value (``p_min``, ``models``, ``train.rounds`` ...) hold one
value or a mapping with a ``default``, read with :func:`lookup`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fairshare.pipeline.config import ConfigError

__all__ = [
    "PerDataset",
    "lookup",
    "describe_per_dataset",
    "lr_schedule",
    "Partition",
    "Training",
    "Allocation",
    "Cgsv",
    "Iafl",
    "Verdicts",
    "Tables",
    "AequaSettings",
    "Participation",
    "TrainingTime",
    "Scale",
    "ExtensionSettings",
]

PerDataset = Any  # one value for every dataset, or {dataset: value, "default": value}


def lookup(mapping: PerDataset, *names: str) -> Any:
    """Per-dataset setting: the first of ``names`` present, else ``default``; a plain value applies to every dataset."""
    if not isinstance(mapping, Mapping):
        return mapping
    for name in names:
        if name in mapping:
            return mapping[name]
    if "default" not in mapping:
        raise ConfigError(f"no entry for {names[0]} and no default in {dict(mapping)}")
    return mapping["default"]


def describe_per_dataset(value: float | Mapping[str, float]) -> str:
    """``0.1`` or ``0.1 (digits 0.03)`` for titles and notes."""
    if not isinstance(value, Mapping):
        return f"{value:g}"
    others = ", ".join(f"{k} {v:g}" for k, v in value.items() if k != "default")
    return f"{value['default']:g}" + (f" ({others})" if others else "")


def lr_schedule(lr: float, rounds: int, milestones_frac: tuple[float, ...], gamma: float) -> Callable[[int], float]:
    """MultiStep: lr times gamma per milestone round (fractions of ``rounds``) already reached."""
    milestones = sorted({max(1, int(round(f * rounds))) for f in milestones_frac})
    return lambda r: lr * gamma ** sum(r >= m for m in milestones)


def _fields(cls: type, block: Mapping[str, Any]) -> dict[str, Any]:
    """The block's values of ``cls``'s fields, lists as tuples (frozen settings hold no mutable list)."""
    return {f.name: _frozen(block[f.name]) for f in dataclasses.fields(cls)}


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class Partition:
    """One ``aequa.partitions`` entry (Sec. 6.1: homogeneous, Dirichlet, quantity skew, label skew #OC)."""

    name: str
    scheme: str
    options: Mapping[str, Any]  # the scheme's parameters as configured (alpha, share, n_large, classes_per_client ...)

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> Partition:
        return cls(entry["name"], entry["scheme"], {k: v for k, v in entry.items() if k not in ("name", "scheme")})

    def spec(self, dataset: str, clients: int) -> dict:
        """The ``make_partition`` spec for one dataset (label-skew #OC overrides applied)."""
        spec = {"scheme": self.scheme, **{k: v for k, v in self.options.items() if k != "classes_per_client_overrides"}}
        spec["clients"] = clients
        if self.scheme == "label_skew":
            spec["classes_per_client"] = self.options.get("classes_per_client_overrides", {}).get(
                dataset, self.options.get("classes_per_client", 3)
            )
        return spec

    def label(self) -> str:
        """The partition's row-group label in the paper's tables."""
        o = self.options
        if self.scheme == "homogeneous":
            return "Homogeneous"
        if self.scheme == "dirichlet":
            return f"Heterogeneous: Dirichlet ({o.get('alpha', 0.5)})"
        if self.scheme == "quantity_skew":
            return f"Quantity Skew: Imbalanced ({o.get('share', 0.4)}, {o.get('n_large', 2)})"
        oc = o.get("classes_per_client", 3)
        over = sorted(set(o.get("classes_per_client_overrides", {}).values()) - {oc})
        return "Label Skew: #OC={" + ", ".join(str(v) for v in [oc, *over]) + "}"


@dataclass(frozen=True)
class Training:
    """Optimisation shared by every method (``aequa.train``; the paper: "consistent training hyperparameters")."""

    rounds: PerDataset
    local_epochs: int
    standalone_epochs: int  # 0: the dataset's rounds x local_epochs
    batch_size: int
    lr: float
    momentum: float
    weight_decay: PerDataset
    lr_milestones_frac: tuple[float, ...]
    lr_gamma: float
    weighted_aggregation: bool

    def schedule(self, rounds: int) -> Callable[[int], float]:
        """The learning rate of each round (epoch) of a run of ``rounds`` rounds."""
        return lr_schedule(self.lr, rounds, self.lr_milestones_frac, self.lr_gamma)


@dataclass(frozen=True)
class Allocation:
    """Post-training allocation (Sec. 4.2): the cost, its annealing, and the split it is fitted on."""

    spread: str
    variants: tuple[str, ...]
    eps: float
    tie_break: float
    iters: int
    t_start: float
    t_end: float
    schedule: str
    neighbour_prob: float
    split: str
    validation_fraction: float

    def annealing(self, spread: str | None = None) -> dict[str, Any]:
        """Keyword arguments of ``aequa_allocation.anneal`` (with cost ``spread``, default the configured one)."""
        return dict(
            iters=self.iters,
            t_start=self.t_start,
            t_end=self.t_end,
            schedule=self.schedule,
            eps=self.eps,
            tie_break=self.tie_break,
            spread=spread or self.spread,
            neighbour_prob=self.neighbour_prob,
        )


@dataclass(frozen=True)
class Cgsv:
    """The CGSV baseline (IAFL's code settings)."""

    gamma: PerDataset
    alpha: float
    beta: float
    min_reputation: float


@dataclass(frozen=True)
class Iafl:
    """The IAFL baseline in its most fair setting."""

    kappa: float
    q: float


@dataclass(frozen=True)
class Verdicts:
    """Margins and tolerances of the claims (``aequa.verdicts``), each stated before the rows using it were computed."""

    near_perfect_rho: float  # Sec. 5.2 / App. D.3 "near-perfect"
    on_par_tolerance: float  # Sec. 6.2 "matches or exceeds FedAvg"
    mcg_margin: float  # Table 7 "significantly outperforms in MCG"
    rho_clear_margin: float  # Table 3 "by a clear margin"
    ir_split: str  # the split Definition 1's IR gains are judged on (test or validation)
    nan_rho: float  # what a NaN rho counts as on its seed (a tuned setting: claims_seeds.seed_values)


@dataclass(frozen=True)
class Tables:
    """Which jobs run and how the paper's tables are laid out: absent from a training job's block."""

    datasets: tuple[str, ...]
    seeds: int
    methods: tuple[str, ...]
    table_partitions: Mapping[str, str]
    table9_datasets: tuple[str, ...]
    curve_partition: str
    verdicts: Verdicts

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Tables | None:
        if "datasets" not in block:
            return None
        verdicts = Verdicts(**_fields(Verdicts, block["verdicts"]))
        return cls(**{**_fields(cls, {**block, "verdicts": None}), "verdicts": verdicts})


@dataclass(frozen=True)
class AequaSettings:
    """The ``aequa`` block a main-experiment run, table or claim reads (the extensions' keys:
    ``papers.aequa_extensions.experiment.ExtensionSettings``)."""

    clients: int
    partitions: tuple[Partition, ...]
    models: PerDataset
    mlp_hidden: tuple[int, ...]
    resnet_base: int
    lstm: Mapping[str, Any]
    max_train_samples: PerDataset
    max_features: PerDataset
    test_subset: int
    precision: str
    executor: str
    train: Training
    p_min: PerDataset
    p_max: float
    p_min_ablation: PerDataset  # Table 8's lower p_min (quantity skew)
    width_step: float
    bn_width_step: float
    subwidth_mode: str
    width_loss: str
    allocation: Allocation
    width_reward_normalization: str
    finetune_epochs: int  # FedAvg-FT's local fine-tuning
    finetune_lr: str  # FedAvg-FT's fine-tuning rate: "initial" (train.lr) or "last_round" (the schedule's last rate)
    cgsv: Cgsv
    iafl: Iafl
    cgs_ddof: int
    tables: Tables | None

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> AequaSettings:
        nested = {
            "partitions": tuple(Partition.from_entry(p) for p in block["partitions"]),
            "train": Training(**_fields(Training, block["train"])),
            "allocation": Allocation(**_fields(Allocation, block["allocation"])),
            "width_reward_normalization": block["width_reward"]["normalization"],
            "finetune_epochs": block["fedavg_ft"]["finetune_epochs"],
            "finetune_lr": block["fedavg_ft"]["finetune_lr"],
            "cgsv": Cgsv(**_fields(Cgsv, block["cgsv"])),
            "iafl": Iafl(**_fields(Iafl, block["iafl"])),
            "tables": Tables.from_block(block),
        }
        plain = [f.name for f in dataclasses.fields(cls) if f.name not in nested]
        return cls(**{k: _frozen(block[k]) for k in plain}, **nested)

    def partition(self, name: str) -> Partition:
        """The ``aequa.partitions`` entry called ``name``."""
        for p in self.partitions:
            if p.name == name:
                return p
        raise ConfigError(f"partition '{name}' is not in aequa.partitions")


class _Block:
    """A settings record read field by field from its config block."""

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Any:
        return cls(**_fields(cls, block))


@dataclass(frozen=True)
class Participation(_Block):
    """Participation rate as the contribution (Sec. 6.4, Table 3, Fig. 2)."""

    datasets: tuple[str, ...]
    partition: str
    rate_range: tuple[float, float]
    methods: tuple[str, ...]


@dataclass(frozen=True)
class TrainingTime(_Block):
    """Training-time rewards (Sec. 4.3 and 6.5, Algorithm 2, Figs 3-4)."""

    datasets: tuple[str, ...]
    partitions: Mapping[str, str]  # fig3, fig4 -> an aequa.partitions entry
    methods: tuple[str, ...]
    beta: float  # eq. 4's momentum
    last_k: int  # ShapFed: layers scored
    min_score: float
    eval_every: int


@dataclass(frozen=True)
class Scale:
    """The writer-scale federation with partial participation (Sec. 6.6, Table 4, Fig. 5)."""

    dataset: str
    femnist_leaf_dir: str
    model: str
    clients: int
    partition: Partition  # by_writer (real writer ids) or writers (a writer-like partition)
    participation_fraction: float
    rounds: int
    max_train_samples: int
    overhead_rounds: int

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> Scale:
        values = {**block, "partition": Partition.from_entry({"name": "writers", **block["partition"]})}
        return cls(**_fields(cls, values))

    def training(self, settings: AequaSettings) -> AequaSettings:
        """The main settings as the scale runs see them: this experiment's data subset, model and rounds."""
        return dataclasses.replace(
            settings,
            max_train_samples=self.max_train_samples,
            models=self.model,
            train=dataclasses.replace(settings.train, rounds=self.rounds),
        )


@dataclass(frozen=True)
class ExtensionSettings:
    """The ``aequa`` block the extensions read: the main settings and each extension's own block (a training job's
    block holds only its extension's)."""

    aequa: AequaSettings
    participation: Participation | None
    training_time: TrainingTime | None
    scale: Scale | None

    @classmethod
    def from_block(cls, block: Mapping[str, Any]) -> ExtensionSettings:
        def extension(name: str, kind: type) -> Any:
            return kind.from_block(block[name]) if name in block else None

        return cls(
            aequa=AequaSettings.from_block(block),
            participation=extension("participation", Participation),
            training_time=extension("training_time", TrainingTime),
            scale=extension("scale", Scale),
        )
