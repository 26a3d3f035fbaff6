"""The `fairshare` entry point: commands joined by `+` and the per-job statistics behind bench/startup_share.py."""

from __future__ import annotations

import json

from fairshare.cli import main, split_commands
from tests.conftest import REPO

REFERENCE = str(REPO / "workflow" / "reference" / "dp_coalitions_printed.yaml")


def test_split_commands_cuts_at_every_plus():
    assert split_commands(["a", "x", "+", "b", "+", "c", "y"]) == [["a", "x"], ["b"], ["c", "y"]]
    assert split_commands(["a", "+"]) == [["a"], []]


def test_joined_commands_write_what_each_writes_alone(tmp_path):
    alone = tmp_path / "alone.csv"
    assert main(["dp-coalitions", "examples", "--reference", REFERENCE, "--output", str(alone)]) == 0
    first, second = tmp_path / "first.csv", tmp_path / "second.csv"
    command = ["dp-coalitions", "examples", "--reference", REFERENCE, "--output"]
    assert main([*command, str(first), "+", *command, str(second)]) == 0
    assert first.read_bytes() == second.read_bytes() == alone.read_bytes()


def test_job_statistics_name_the_job_its_cpu_and_modules(tmp_path, monkeypatch):
    monkeypatch.setenv("FAIRSHARE_JOB_STATS", str(tmp_path / "stats"))
    argv = ["dp-coalitions", "examples", "--reference", REFERENCE, "--output", str(tmp_path / "x.csv")]
    assert main(argv) == 0
    (record,) = [json.loads(p.read_text()) for p in (tmp_path / "stats").glob("*.json")]
    assert record["argv"] == argv and record["cpu_s"] > 0
    assert "fairshare.papers.dp_coalitions.commands" in record["modules"]
    monkeypatch.delenv("FAIRSHARE_JOB_STATS")
    assert main(argv) == 0 and len(list((tmp_path / "stats").glob("*.json"))) == 1  # off without the variable
