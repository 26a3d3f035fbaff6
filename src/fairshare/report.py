"""Scorecard: every checked paper number or claim, from the claims CSVs the paper rules write.

Each paper's rules write ``results/<paper>/claims.csv`` (or several ``*claims*.csv``) with at least the columns
``claim`` and ``holds``; optional columns ``artifact``, ``paper_states``, ``reproduced``, ``status``,
``parameters`` and ``note`` are carried over. Nothing is typed in here: every row comes from a computed file.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import pandas as pd

SCORECARD_COLUMNS = ["paper", "artifact", "claim", "paper_states", "reproduced", "status", "note"]
STATUSES = ("match", "within tolerance", "differs", "not run in this profile")


def _status(row: pd.Series) -> str:
    given = str(row.get("status", "") or "").strip()
    if given in STATUSES:
        return given
    holds = row.get("holds")
    if isinstance(holds, str):
        holds = holds.strip().lower() in ("true", "1", "yes")
    if pd.isna(holds):
        return "not run in this profile"
    return "match" if bool(holds) else "differs"


def collect_claims(claim_files: Iterable[str | Path], results_dir: str | Path = "results") -> pd.DataFrame:
    """One scorecard row per claim row in the given CSV files (the paper is the folder under ``results_dir``)."""
    frames = []
    for path in map(Path, claim_files):
        df = pd.read_csv(path)
        if "claim" not in df.columns:
            raise ValueError(f"{path} has no 'claim' column; claims files need at least 'claim' and 'holds'")
        paper = path.relative_to(results_dir).parts[0]
        out = pd.DataFrame({
            "paper": paper,
            "artifact": df.get("artifact", pd.Series([path.stem] * len(df))).fillna(path.stem),
            "claim": df["claim"],
            "paper_states": df.get("paper_states", pd.Series([""] * len(df))).fillna(""),
            "reproduced": df.get("reproduced", df.get("parameters", pd.Series([""] * len(df)))).fillna(""),
            "status": df.apply(_status, axis=1),
            "note": df.get("note", pd.Series([""] * len(df))).fillna(""),
        })
        frames.append(out)
    if not frames:
        return pd.DataFrame(columns=SCORECARD_COLUMNS)
    return pd.concat(frames, ignore_index=True)[SCORECARD_COLUMNS]


def summarize(card: pd.DataFrame) -> dict:
    """Counts per status, overall and per paper (the DVC metrics)."""
    summary = {"rows": int(len(card)), "by_status": {s: int((card["status"] == s).sum()) for s in STATUSES}, "papers": {}}
    for paper, group in card.groupby("paper"):
        summary["papers"][paper] = {s: int((group["status"] == s).sum()) for s in STATUSES}
    return summary


def to_markdown(card: pd.DataFrame, summary: dict, profile: str) -> str:
    lines = [f"# Reproduction scorecard (profile: {profile})", ""]
    lines.append("| paper | " + " | ".join(STATUSES) + " |")
    lines.append("|---|" + "---|" * len(STATUSES))
    for paper, counts in summary["papers"].items():
        lines.append(f"| {paper} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    lines += ["", "| " + " | ".join(SCORECARD_COLUMNS) + " |", "|" + "---|" * len(SCORECARD_COLUMNS)]
    for row in card.itertuples(index=False):
        cells = [str(v).replace("|", "\\|").replace("\n", " ") for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
