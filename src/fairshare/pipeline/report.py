"""Claims and the scorecard: one record type for every checked paper number or statement, and the table of them.

Each paper's ``papers/<paper>/claims.py`` returns :class:`Claim` records computed from this run's results; its
commands write them with :func:`write_claims` to ``results/<paper>/claims*.csv``; the report rule reads those files
with :func:`read_claims` (which accepts only that shape) and stacks them into the scorecard, dropping no column.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from fairshare.pipeline.verdicts import Verdict, verdict_mde
from fairshare.pipeline.yardstick import YARDSTICK_KINDS, decision_text
from fairshare.pipeline.yardstick import counts as yardstick_counts

__all__ = [
    "CLAIM_COLUMNS",
    "SCORECARD_ONLY",
    "Claim",
    "KINDS",
    "NOT_RUN_HERE",
    "ROW_KEY",
    "SMOKE",
    "STATUSES",
    "STATUS_COLOURS",
    "TRAINING_PAPERS",
    "claims_frame",
    "collect_claims",
    "erratum_outcome",
    "mark_smoke",
    "read_claims",
    "summarize",
    "to_markdown",
    "training_verdicts",
    "verdict_table",
    "verdict_table_html",
    "verdict_table_markdown",
    "with_reasons",
    "yardstick_markdown",
    "write_claims",
]

# kind: what sort of statement the row checks (ARCHITECTURE "Contracts").
#   printed  a number printed in the paper, compared at its printed precision
#   claim    a qualitative statement, tested exactly as the paper states it
#   erratum  the printed statement fails; the corrected one is computed and checked in the same row
KINDS = ("printed", "claim", "erratum")
# inconclusive: a comparison of training results whose interval over seeds does not settle it (fairshare.pipeline.verdicts).
STATUSES = ("match", "within tolerance", "differs", "inconclusive", "not run in this profile", "smoke: plumbing only")
SMOKE = "smoke: plumbing only"
# interval: for a comparison of training results, the effect with its interval over seeds (fairshare.pipeline.verdicts);
# mde: its minimum detectable effect at its seeds; decision: the interval it was decided on, oriented so that the
# paper's side is up, and the bar it had to clear (fairshare.pipeline.yardstick.decision_text), "no single interval"
# for a comparison decided otherwise (over settings, a trend, a spread), empty on the rows that compare no seeds.
CLAIM_COLUMNS = [
    "paper",
    "artifact",
    "claim",
    "kind",
    "paper_states",
    "reproduced",
    "status",
    "note",
    "interval",
    "mde",
    "decision",
]
# The scorecard's own columns after CLAIM_COLUMNS: sensitivity, the verdict of an affected row when a tuned setting is
# put back to its paper's (or untuned) value (fairshare.pipeline.sensitivity; empty on the other rows); paper_effect
# and yardstick, the effect the paper reports (workflow/paper_effects.yaml) and what a row that does not match says
# against it (fairshare.pipeline.yardstick).
SCORECARD_ONLY = ["sensitivity", "paper_effect", "yardstick"]


def _constructor(kind: str, doc: str) -> Callable[..., Claim]:
    """The keyword-only constructor of :class:`Claim` records of one ``kind``."""

    def build(
        cls: type[Claim],
        *,
        paper: str,
        artifact: str,
        claim: str,
        paper_states: object,
        reproduced: object,
        holds: bool | None,
        note: object = "",
    ) -> Claim:
        status = "not run in this profile" if holds is None else ("match" if bool(holds) else "differs")
        fields = dict(paper=paper, artifact=artifact, claim=claim, paper_states=paper_states, reproduced=reproduced)
        texts = {k: "" if v is None else str(v) for k, v in {**fields, "note": note}.items()}
        return cls(kind=kind, status=status, **texts)

    build.__doc__ = doc
    return build


@dataclass(frozen=True)
class Claim:
    """One scorecard row: what the paper states, what this run reproduced, and the verdict."""

    paper: str
    artifact: str  # e.g. "Table 2", "Figure 7b", "Lemma C.4"
    claim: str  # the statement checked, in a few words
    kind: str  # one of KINDS
    paper_states: str  # what the paper prints or says
    reproduced: str  # what this run computed (numbers, parameters)
    status: str  # one of STATUSES
    note: str = ""
    interval: str = ""  # a training comparison's effect, interval and per-seed values
    mde: str = ""  # its minimum detectable effect (95 % two-sided, 80 % power) at its seeds
    decision: str = ""  # the oriented interval and bar it was decided on (fairshare.pipeline.yardstick)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim kind must be one of {KINDS}, got {self.kind!r} ({self.claim})")
        if self.status not in STATUSES:
            raise ValueError(f"claim status must be one of {STATUSES}, got {self.status!r} ({self.claim})")

    # Keyword-only constructors, one per kind; each turns ``holds`` (computed by the caller from this run's
    # results) into the status: True -> match, False -> differs, None -> not run in this profile.
    printed = classmethod(_constructor("printed", "A number printed in the paper, compared at its printed precision."))
    statement = classmethod(_constructor("claim", "A statement of the paper, tested exactly as the paper words it."))
    erratum = classmethod(
        _constructor(
            "erratum",
            "A printed statement that fails, the corrected one computed and checked in the same row: ``holds`` is "
            "True only when the printed statement fails and the correction holds.",
        )
    )

    @classmethod
    def comparison(
        cls,
        *,
        paper: str,
        artifact: str,
        claim: str,
        paper_states: object,
        reproduced: object,
        verdict: Verdict,
        note: object = "",
        kind: str = "claim",
    ) -> Claim:
        """A comparison of training results, decided over seeds by :mod:`fairshare.pipeline.verdicts`: its status (match,
        differs, inconclusive or not run) and evidence (the ``interval`` column) come from ``verdict``, its minimum
        detectable effect (``mde``) and the oriented interval and bar it was decided on (``decision``) from the
        interval the verdict carries. The note of an inconclusive row says why."""
        mde = verdict_mde(verdict)
        if verdict.status == "inconclusive":
            note = f"inconclusive: {verdict.why}" + (f"; {note}" if note else "")
        texts = {
            k: "" if v is None else str(v)
            for k, v in dict(paper_states=paper_states, reproduced=reproduced, note=note).items()
        }
        return cls(
            paper=paper,
            artifact=artifact,
            claim=claim,
            kind=kind,
            status=verdict.status,
            interval=verdict.evidence,
            mde="" if math.isnan(mde) else f"{mde:.4g}",
            decision=decision_text(verdict),
            **texts,
        )

    @property
    def holds(self) -> bool | None:
        if self.status in ("not run in this profile", "inconclusive"):
            return None
        return self.status in ("match", "within tolerance")


def erratum_outcome(printed_fails: bool, corrected_holds: bool) -> str:
    """How an erratum row's two statements fared on this run, as its ``reproduced`` text opens: the row matches
    only for "as printed: fails; corrected: holds"."""
    return f"as printed: {'fails' if printed_fails else 'holds'}; corrected: {'holds' if corrected_holds else 'fails'}"


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The records as a table with exactly :data:`CLAIM_COLUMNS`."""
    return pd.DataFrame([dataclasses.asdict(c) for c in claims], columns=CLAIM_COLUMNS)


def write_claims(path: str | Path, claims: Sequence[Claim]) -> None:
    """Write claim records as CSV (atomically), with the check file :func:`read_claims` verifies."""
    from fairshare.validate import write_checked_csv

    write_checked_csv(path, claims_frame(claims))


def read_claims(path: str | Path) -> pd.DataFrame:
    """A claims CSV written by :func:`write_claims`: bytes and row count as its check file records, exactly
    :data:`CLAIM_COLUMNS`, known kinds and statuses; else :class:`fairshare.validate.CorruptFileError` naming the file
    and the rule that makes it (a file cut at a row boundary never reaches the scorecard)."""
    from fairshare.validate import corrupt, read_checked_csv

    frame = read_checked_csv(path, dict.fromkeys(CLAIM_COLUMNS, "str"), dtype=str, keep_default_na=False)
    for column, allowed in (("kind", KINDS), ("status", STATUSES)):
        bad = sorted(set(frame[column]) - set(allowed))
        if bad:
            raise corrupt(path, f"{column} {bad} not in {allowed}")
    return frame


def collect_claims(claim_files: Iterable[str | Path]) -> pd.DataFrame:
    """Every row of every claims file, in file order, with every column."""
    frames = [read_claims(path) for path in claim_files]
    if not frames:
        return pd.DataFrame(columns=CLAIM_COLUMNS)
    return pd.concat(frames, ignore_index=True)


def mark_smoke(card: pd.DataFrame) -> pd.DataFrame:
    """The scorecard of a smoke run (stand-in data): every row's status becomes "smoke: plumbing only", the computed
    verdict moves into the note, so no stand-in number can be read as a reproduction."""
    out = card.copy()
    out["note"] = [
        f"computed on stand-in data: {status}" + (f"; {note}" if note else "")
        for status, note in zip(out["status"], out["note"])
    ]
    out["status"] = SMOKE
    return out


def with_reasons(card: pd.DataFrame, reasons: Sequence[dict]) -> pd.DataFrame:
    """``card`` with "known reason: ..." appended to the note of each ``differs`` or ``inconclusive`` row whose paper
    and claim start as a ``reasons`` entry (workflow/known_reasons.yaml) gives. Statuses are left as computed."""
    out = card.copy()
    open_rows = out["status"].isin(["differs", "inconclusive"])
    for entry in reasons:
        hit = open_rows & (out["paper"] == entry["paper"]) & out["claim"].str.startswith(entry["claim"])
        text = f"known reason: {entry['reason']}"
        out.loc[hit, "note"] = [f"{n}; {text}" if n else text for n in out.loc[hit, "note"]]
    return out


def summarize(card: pd.DataFrame) -> dict:
    """Counts per status, overall, per paper and per kind (the DVC metrics), and the training comparisons per paper
    and kind of match or non-match (``yardstick``: fairshare.pipeline.yardstick; {} before that column existed)."""

    def counts(frame: pd.DataFrame) -> dict[str, int]:
        return {s: int((frame["status"] == s).sum()) for s in STATUSES}

    return {
        "rows": int(len(card)),
        "by_status": counts(card),
        "by_kind": {k: counts(card[card["kind"] == k]) for k in KINDS},
        "papers": {paper: counts(group) for paper, group in card.groupby("paper", sort=False)},
        "yardstick": yardstick_counts(card),
    }


#: The papers whose rows compare training results (or seed-dependent simulations): their claims are judged over seeds.
TRAINING_PAPERS = ("mmfl", "auctions", "aequa", "aequa_extensions")
ROW_KEY = ["paper", "artifact", "claim"]
NOT_RUN_HERE = "not run here"


#: The verdict-table cell of a profile whose committed column was computed by other row definitions (issue 42 item 6).
OLDER_DEFINITIONS = "older row definitions"


def row_definitions() -> str:
    """A fingerprint of the code that decides the training statements' verdicts: the training papers' claims modules
    and :mod:`fairshare.pipeline.verdicts` (12 hex digits of a SHA-256 over their bytes). A profile's column of the
    verdict table carries it, so a column committed before the rows changed is shown as such, never as a verdict."""
    import hashlib

    src = Path(__file__).resolve().parents[1]
    files = sorted(f for paper in TRAINING_PAPERS for f in (src / "papers" / paper).glob("claims*.py"))
    digest = hashlib.sha256()
    for path in [*files, src / "pipeline" / "verdicts.py"]:
        digest.update(path.relative_to(src).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def training_verdicts(card: pd.DataFrame) -> pd.DataFrame:
    """The statement rows (kind ``claim``) of the training papers: the row key, its status and the
    :func:`row_definitions` that decided it, one profile's column of the verdict table (:func:`verdict_table`)."""
    rows = card[card["paper"].isin(TRAINING_PAPERS) & (card["kind"] == "claim")]
    out = rows[[*ROW_KEY, "status"]].reset_index(drop=True)
    out["definitions"] = row_definitions()
    return out


def verdict_table(columns: dict[str, pd.DataFrame | None], definitions: str | None = None) -> pd.DataFrame:
    """One row per training statement, one column per profile (its verdicts from :func:`training_verdicts`, or None:
    "not run here"); a statement a profile has no row for reads "-". Rows in order of first appearance. A column
    whose row definitions are not ``definitions`` (default: this code's :func:`row_definitions`) reads
    :data:`OLDER_DEFINITIONS` in every cell: its verdicts were decided by rows that no longer exist as written."""
    definitions = definitions or row_definitions()
    columns = {
        profile: frame
        if frame is None or set(frame.get("definitions", pd.Series(["?"]))) == {definitions}
        else frame.assign(status=OLDER_DEFINITIONS)
        for profile, frame in columns.items()
    }
    known = [frame for frame in columns.values() if frame is not None]
    keys = pd.concat([f[ROW_KEY] for f in known], ignore_index=True).drop_duplicates() if known else None
    table = (keys if keys is not None else pd.DataFrame(columns=ROW_KEY)).reset_index(drop=True)
    for profile, frame in columns.items():
        if frame is None:
            table[profile] = NOT_RUN_HERE
            continue
        status = frame.drop_duplicates(ROW_KEY).set_index(ROW_KEY)["status"]
        table[profile] = [status.get(tuple(k), "-") for k in table[ROW_KEY].itertuples(index=False)]
    return table


COUNTED_STATUSES = ("match", "differs", "inconclusive", "not run in this profile", OLDER_DEFINITIONS)


def verdict_table_markdown(table: pd.DataFrame) -> str:
    """The verdict table as Markdown, with each profile's counts per status first."""
    profiles = [c for c in table.columns if c not in ROW_KEY]
    lines = ["| status | " + " | ".join(profiles) + " |", "|---|" + "---|" * len(profiles)]
    for status in COUNTED_STATUSES:
        lines.append(f"| {status} | " + " | ".join(str(int((table[p] == status).sum())) for p in profiles) + " |")
    lines += ["", "| " + " | ".join([*ROW_KEY, *profiles]) + " |", "|" + "---|" * (len(ROW_KEY) + len(profiles))]
    for row in table.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines) + "\n"


STATUS_COLOURS = {"match": "#d9f2d9", "differs": "#f8d7d7", "inconclusive": "#fff3cd"}


def verdict_table_html(table: pd.DataFrame) -> str:
    """The verdict table as a self-contained HTML page (no script, no external file), a cell coloured by status."""
    import html

    profiles = [c for c in table.columns if c not in ROW_KEY]
    head = "".join(f"<th>{html.escape(c)}</th>" for c in table.columns)
    counts_head = "<th>status</th>" + "".join(f"<th>{html.escape(p)}</th>" for p in profiles)
    counts = "".join(
        f"<tr><td>{html.escape(s)}</td>" + "".join(f"<td>{int((table[p] == s).sum())}</td>" for p in profiles) + "</tr>"
        for s in COUNTED_STATUSES
    )
    body = []
    for row in table.itertuples(index=False):
        cells = [f"<td>{html.escape(str(v))}</td>" for v in row[: len(ROW_KEY)]]
        cells += [
            f"<td style='background:{STATUS_COLOURS.get(str(v), '#ffffff')}'>{html.escape(str(v))}</td>"
            for v in row[len(ROW_KEY) :]
        ]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Verdicts by profile</title><style>"
        "body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}</style></head><body>"
        "<h3>Training statements: the verdict on each profile</h3>"
        "<p>match / differs: the paper's direction holds / the opposite holds beyond the seed-to-seed uncertainty "
        "(95% t interval of the per-seed differences); inconclusive: the interval does not settle it or too few "
        "seeds ran (docs/verdicts.md). '-': the profile has no such row.</p>"
        f"<table><tr>{counts_head}</tr>{counts}</table><br><table><tr>{head}</tr>{''.join(body)}</table></body></html>\n"
    )


def yardstick_markdown(by_paper: dict[str, dict[str, int]]) -> str:
    """The training comparisons per paper and kind (:data:`fairshare.pipeline.yardstick.YARDSTICK_KINDS`), with a
    total, as a Markdown table."""
    lines = [
        "| paper | comparisons | " + " | ".join(YARDSTICK_KINDS) + " |",
        "|---|" + "---|" * (len(YARDSTICK_KINDS) + 1),
    ]
    total = dict.fromkeys(YARDSTICK_KINDS, 0)
    for paper, counts in by_paper.items():
        lines.append(
            f"| {paper} | {sum(counts.values())} | " + " | ".join(str(counts[k]) for k in YARDSTICK_KINDS) + " |"
        )
        total = {k: total[k] + counts[k] for k in YARDSTICK_KINDS}
    cells = " | ".join(str(total[k]) for k in YARDSTICK_KINDS)
    lines.append(f"| **total** | {sum(total.values())} | {cells} |")
    return "\n".join(lines) + "\n"


def to_markdown(card: pd.DataFrame, summary: dict, profile: str) -> str:
    lines = [f"# Reproduction scorecard (profile: {profile})", ""]
    lines.append("| paper | " + " | ".join(STATUSES) + " |")
    lines.append("|---|" + "---|" * len(STATUSES))
    for paper, counts in summary["papers"].items():
        lines.append(f"| {paper} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    if summary.get("yardstick"):
        lines += ["", "Training comparisons against the paper's effect (docs/verdicts.md):", ""]
        lines.append(yardstick_markdown(summary["yardstick"]))
    columns = [*CLAIM_COLUMNS, *(c for c in SCORECARD_ONLY if c in card.columns)]
    lines += ["", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in card[columns].itertuples(index=False):
        cells = [str(v).replace("|", "\\|").replace("\n", " ") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
