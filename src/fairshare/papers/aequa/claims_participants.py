"""App. D.5's per-participant statements (CIFAR-100 under Dirichlet, label skew and quantity skew), decided over seeds
(:mod:`fairshare.pipeline.verdicts`) on every dataset of the run: the paper studies CIFAR-100, which a profile may not
train, and the statements are about the methods under these partitions, so a profile without it runs them on its
stand-in datasets and says so in the note (issue 38). The quantity skew is App. D.5's own (two clients with 40 % of
the data each); the Dirichlet alpha and label skew are the profile's. "Comparable" / "very close" use
``aequa.verdicts.on_par_tolerance`` (stated before the rows were computed).
"""

from __future__ import annotations

from collections.abc import Mapping

from fairshare.papers.aequa.claims_seeds import open_settings, placed, seed_mean
from fairshare.pipeline import verdicts as v
from fairshare.pipeline.report import Claim

__all__ = ["DATASET", "per_participant_claims"]

PAPER = "aequa"
DATASET = "cifar100"  # the dataset App. D.5 studies
Setting = tuple[str, str]
Runs = Mapping[tuple[str, str, str, str], Mapping[object, float]]
NOT_RUN = "no setting of this partition kind in this profile"


def _settings(cases: list[Setting], schemes: Mapping[str, str], *wanted: str) -> list[Setting]:
    """The settings of the wanted partition kinds: CIFAR-100's where the profile trains it, else every dataset's."""
    mine = [s for s in cases if schemes.get(s[1]) in wanted]
    return [s for s in mine if s[0] == DATASET] or mine


def _where(per: Mapping[str, object]) -> str:
    datasets = sorted({k.split("/")[0] for k in per})
    return "" if datasets == [DATASET] else f"on the stand-in datasets {', '.join(datasets)} (the paper: CIFAR-100)"


def _claim(claim: str, states: str, per: Mapping[str, v.Verdict], reproduced: str = "", note: str = "") -> Claim:
    verdict = v.every(per) if per else v.not_run(NOT_RUN)
    return Claim.comparison(
        paper=PAPER,
        artifact="App. D.5",
        claim=f"per participant: {claim}",
        paper_states=states,
        reproduced=reproduced,
        verdict=verdict,
        note="; ".join(
            x for x in (open_settings(per) if per else "", _where(per), note, v.reach_note(verdict) if per else "") if x
        ),
    )


def _get(runs: Runs, s: Setting, method: str, metric: str) -> Mapping[object, float]:
    return runs.get((*s, method, metric), {})


def iafl_variable(runs: Runs, hetero: list[Setting]) -> Claim:
    """IAFL's collaboration gains vary more over seeds than Aequa's (F interval of the variance ratio)."""
    per = {
        f"{d}/{p}": v.spread_decreases(
            list(_get(runs, (d, p), "iafl", "mcg").values()), list(_get(runs, (d, p), "aequa", "mcg").values())
        )
        for d, p in hetero
    }
    sizes = {(len(_get(runs, s, "iafl", "mcg")), len(_get(runs, s, "aequa", "mcg"))) for s in hetero}
    return _claim(
        "IAFL's mean collaboration gain varies more over seeds than Aequa's under Dirichlet and label skew",
        "IAFL exhibits high variability in the first two partitioning strategies",
        per,
        note="; ".join(v.detectable_ratio(a, b) for a, b in sorted(sizes)),
    )


def iafl_negative_on_some_seed(runs: Runs, hetero: list[Setting]) -> Claim:
    """On some seed of a Dirichlet or label-skew setting, IAFL leaves a participant below its standalone accuracy:
    an existence over runs, not a comparison (one run suffices)."""
    gains = [x for d, p in hetero for x in _get(runs, (d, p), "iafl", "min_gain").values()]
    return Claim.statement(
        paper=PAPER,
        artifact="App. D.5",
        claim="per participant: on some seed IAFL gives a participant a negative collaboration gain under Dirichlet "
        "or label skew",
        paper_states="in some random seeds, IAFL fails to achieve a positive collaboration gain",
        reproduced=f"{sum(x < 0 for x in gains)} of {len(gains)} IAFL runs with a negative gain" if gains else "",
        holds=any(x < 0 for x in gains) if gains else None,
        note=_where({f"{d}/{p}": None for d, p in hetero}) if gains else NOT_RUN,
    )


def cgsv_near_standalone(runs: Runs, hetero: list[Setting], tolerance: float) -> Claim:
    """CGSV's rewards stay within ``tolerance`` of the standalone accuracies on average (its MCG comparable to 0)."""
    per = {
        f"{d}/{p}": v.comparable(v.interval(_get(runs, (d, p), "cgsv", "mcg").values()), tolerance) for d, p in hetero
    }
    return _claim(
        f"CGSV's mean collaboration gain is within {tolerance:g} of zero under Dirichlet and label skew",
        "CGSV remains very close to standalone accuracy",
        per,
    )


def aequa_like_fedavg(runs: Runs, hetero: list[Setting], tolerance: float) -> Claim:
    """Aequa's mean collaboration gain is comparable (within ``tolerance``) to FedAvg-FT's."""
    per = {
        f"{d}/{p}": v.comparable(
            v.paired(_get(runs, (d, p), "aequa", "mcg"), _get(runs, (d, p), "fedavg_ft", "mcg")), tolerance
        )
        for d, p in hetero
    }
    return _claim(
        f"Aequa's mean collaboration gain is comparable (within {tolerance:g}) to FedAvg-FT's under Dirichlet and "
        "label skew",
        "Aequa achieves performance comparable to FedAvg-FT",
        per,
    )


def positive_gains_under_quantity_skew(runs: Runs, qskew: list[Setting]) -> Claim:
    """Under quantity skew, IAFL and Aequa give every participant a positive gain: the smallest gain of each run
    above zero, over seeds, for both methods."""
    per = {}
    for d, p in qskew:
        pairs = {m: v.higher(v.interval(_get(runs, (d, p), m, "min_gain").values())) for m in ("iafl", "aequa")}
        per[f"{d}/{p}"] = v.every(pairs, "methods")
    return _claim(
        "under quantity skew, IAFL and Aequa give every participant a positive collaboration gain",
        "Both IAFL and Aequa ... consistently ensuring positive collaboration gains",
        per,
    )


def large_clients_above_fedavg(runs: Runs, qskew: list[Setting]) -> Claim:
    """Under quantity skew, Aequa's reward to the large clients is above FedAvg-FT's (paired over seeds)."""
    per = {
        f"{d}/{p}": v.higher(
            v.paired(_get(runs, (d, p), "aequa", "large_reward"), _get(runs, (d, p), "fedavg_ft", "large_reward"))
        )
        for d, p in qskew
    }
    return _claim(
        "under quantity skew, Aequa gives the two large clients more than FedAvg-FT does",
        "Aequa provides even better performance to Clients 1 and 2 compared to FedAvg-FT",
        per,
        reproduced="seed-mean reward of the large clients, Aequa: "
        + ", ".join(f"{d}/{p} {seed_mean(_get(runs, (d, p), 'aequa', 'large_reward')):.3f}" for d, p in qskew),
    )


def aequa_highest_mcg_under_quantity_skew(runs: Runs, qskew: list[Setting]) -> Claim:
    """Under quantity skew, Aequa's MCG is above every baseline's (paired over seeds)."""
    per = {
        f"{d}/{p}": placed("aequa", {m: _get(runs, (d, p), m, "mcg") for m in ("aequa", "fedavg_ft", "cgsv", "iafl")})
        for d, p in qskew
    }
    return _claim(
        "under quantity skew, Aequa's mean collaboration gain is above every baseline's",
        "while also maximizing the mean collaboration gain (MCG) across all participants",
        per,
    )


def per_participant_claims(
    runs: Runs, cases: list[Setting], schemes: Mapping[str, str], tolerance: float
) -> list[Claim]:
    """App. D.5's rows on the CIFAR-100 settings of ``cases``, or on every dataset's without CIFAR-100."""
    hetero = _settings(cases, schemes, "dirichlet", "label_skew")
    qskew = _settings(cases, schemes, "quantity_skew")
    return [
        iafl_variable(runs, hetero),
        iafl_negative_on_some_seed(runs, hetero),
        cgsv_near_standalone(runs, hetero, tolerance),
        aequa_like_fedavg(runs, hetero, tolerance),
        positive_gains_under_quantity_skew(runs, qskew),
        large_clients_above_fedavg(runs, qskew),
        aequa_highest_mcg_under_quantity_skew(runs, qskew),
    ]
