"""Each paper's statement inventory: every table cell, figure and sentence that claims something, mapped to the
scorecard rows that check it, a unit test (an identity) or the reason it cannot be reproduced here.

The inventory is the table between ``<!-- inventory:start -->`` and ``<!-- inventory:end -->`` in the paper's page
``docs/<paper>.md``, with the columns ``where | statement | checked by | refuted by``. ``checked by`` is one of
``row: `ARTIFACT` / `CLAIM` `` (several joined by ``<br>``; ``*`` is the only wildcard), ``test: `tests/...::name` ``
or ``not reproducible here: REASON``; ``refuted by`` names the unit test that feeds a row's claim function a result
where the statement is false. :func:`problems` lists what does not line up with a scorecard:
entries without rows, rows without entries, tests that do not exist.

    python -m fairshare.pipeline.inventory docs/aequa.md results/scorecard.csv [more scorecards...]
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

__all__ = ["Entry", "INVENTORY_COLUMNS", "NOT_REPRODUCIBLE", "has_test", "problems", "read_inventory", "row_matches"]

START, END = "<!-- inventory:start -->", "<!-- inventory:end -->"
INVENTORY_COLUMNS = ["where", "statement", "checked by", "refuted by"]
NOT_REPRODUCIBLE = "not reproducible here:"
_ROW = re.compile(r"row:\s*`([^`]+)`\s*/\s*`([^`]+)`")
_TEST = re.compile(r"`(tests/[^`]+?\.py::[^`]+)`")


@dataclass(frozen=True)
class Entry:
    """One statement of the paper and what checks it."""

    where: str
    statement: str
    rows: tuple[tuple[str, str], ...] = ()  # (artifact, claim pattern) pairs
    test: str = ""  # a unit test checking an identity
    reason: str = ""  # why it is not reproducible here
    refuted_by: tuple[str, ...] = field(default=())  # unit tests feeding the row's claim function a false result


def _cells(line: str) -> list[str]:
    """The cells of one Markdown table line; ``\\|`` stays inside a cell."""
    body = line.strip().strip("|")
    return [cell.replace("\\|", "|").strip() for cell in re.split(r"(?<!\\)\|", body)]


def read_inventory(path: Path) -> list[Entry]:
    """The entries of the inventory table in ``path``; a malformed table raises ValueError naming the line."""
    text = Path(path).read_text()
    if START not in text or END not in text:
        raise ValueError(f"{path}: no inventory (the {START} ... {END} table)")
    lines = [ln for ln in text.split(START, 1)[1].split(END, 1)[0].splitlines() if ln.strip()]
    header = _cells(lines[0]) if lines else []
    if header != INVENTORY_COLUMNS:
        raise ValueError(f"{path}: inventory columns must be {INVENTORY_COLUMNS}, got {header}")
    entries = []
    for number, line in enumerate(lines[2:], start=3):
        cells = _cells(line)
        if len(cells) != len(INVENTORY_COLUMNS):
            raise ValueError(f"{path}: inventory line {number} has {len(cells)} cells, not 4: {line.strip()[:80]}")
        entries.append(_entry(path, number, *cells))
    return entries


def _entry(path: Path, number: int, where: str, statement: str, checked: str, refuted: str) -> Entry:
    rows = tuple(_ROW.findall(checked))
    refuted_by = tuple(_TEST.findall(refuted))
    if rows:
        return Entry(where, statement, rows=rows, refuted_by=refuted_by)
    if checked.startswith("test:") and _TEST.search(checked):
        return Entry(where, statement, test=_TEST.search(checked).group(1), refuted_by=refuted_by)
    if checked.startswith(NOT_REPRODUCIBLE) and checked[len(NOT_REPRODUCIBLE) :].strip():
        return Entry(where, statement, reason=checked[len(NOT_REPRODUCIBLE) :].strip(), refuted_by=refuted_by)
    raise ValueError(
        f"{path}: inventory line {number} ({where}): 'checked by' must be row: `ARTIFACT` / `CLAIM`, "
        f"test: `tests/...::name` or '{NOT_REPRODUCIBLE} REASON', got {checked[:80]!r}"
    )


def _pattern(text: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in text.split("*")) + "$", re.DOTALL)


def row_matches(entry_row: tuple[str, str], artifact: str, claim: str) -> bool:
    """Whether a scorecard row (artifact, claim) is one of an entry's rows: equal artifact, claim matching the
    pattern (``*`` any text)."""
    return entry_row[0] == artifact and bool(_pattern(entry_row[1]).match(claim))


def has_test(node: str, root: Path) -> bool:
    """Whether ``tests/x.py::name`` (or ``::Class::name``, ``name[param]``) names a test function in that file."""
    file, _, rest = node.partition("::")
    name = rest.split("::")[-1].split("[")[0]
    path = root / file
    return path.is_file() and re.search(rf"^\s*(async\s+)?def {re.escape(name)}\(", path.read_text(), re.M) is not None


def problems(
    paper: str, entries: Sequence[Entry], scorecards: Iterable[pd.DataFrame], root: Path, *, orphans_in: int | None = 0
) -> list[str]:
    """What does not line up: an entry none of whose rows is in any of ``scorecards``, a row of the
    ``orphans_in``-th scorecard (None: none) that no entry covers, a missing unit test, a row entry with no
    ``refuted by`` test."""
    cards = [card[card.paper == paper][["artifact", "claim"]].astype(str) for card in scorecards]
    found = []
    for entry in entries:
        label = f"{paper} inventory ({entry.where}: {entry.statement[:50]})"
        for pair in entry.rows:
            if not any(row_matches(pair, a, c) for card in cards for a, c in card.itertuples(index=False)):
                found.append(f"{label}: no scorecard row `{pair[0]}` / `{pair[1]}`")
        if entry.rows and not entry.refuted_by:
            found.append(f"{label}: no 'refuted by' test")
        for node in ([entry.test] if entry.test else []) + list(entry.refuted_by):
            if not has_test(node, root):
                found.append(f"{label}: no test {node}")
    if orphans_in is not None and cards:
        patterns = [pair for entry in entries for pair in entry.rows]
        for artifact, claim in cards[orphans_in].drop_duplicates().itertuples(index=False):
            if not any(row_matches(pair, artifact, claim) for pair in patterns):
                found.append(f"{paper}: scorecard row `{artifact}` / `{claim}` is in no inventory entry")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """Check one paper page's inventory against scorecards (rows without entries are looked for in the first)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        print(
            "usage: python -m fairshare.pipeline.inventory docs/<paper>.md SCORECARD.csv [SCORECARD.csv ...]",
            file=sys.stderr,
        )
        return 2
    page = Path(args[0])
    try:
        entries = read_inventory(page)
    except (OSError, ValueError) as err:
        print(f"inventory: {err}", file=sys.stderr)
        return 1
    cards = [pd.read_csv(p, dtype=str, keep_default_na=False) for p in args[1:]]
    found = problems(page.stem, entries, cards, Path.cwd())
    for line in found:
        print(line)
    print(f"{page}: {len(entries)} entries, {len(found)} problems", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
