"""Issue 40, rows 2 and 3: a JSON intermediate (a training run's record, a coalition's value, an auction's recruits)
has a check file as the CSVs do. Floats edited into still-valid JSON, or the file cut in half, are refused by the step
that reads it in one line naming the file and the rule that rebuilds it: no JSONDecodeError traceback, no summary
computed from it."""

from __future__ import annotations

import hashlib
import json
from base64 import urlsafe_b64encode
from pathlib import Path

import pytest

from fairshare import cli
from fairshare.io import read_json, write_json
from fairshare.pipeline import config
from fairshare.validate import CorruptFileError, check_path
from tests.conftest import REPO

RUN = "results/aequa/runs/digits/homogeneous/aequa/seed0.json"


@pytest.fixture
def run_record(tmp_path, monkeypatch) -> Path:
    """A run record as `aequa run` writes it, with Snakemake's record that the rule aequa_run made it."""
    monkeypatch.chdir(tmp_path)
    write_json(RUN, {"method": "aequa", "seed": 0, "accuracy": [0.81, 0.79, 0.84], "contributions": [0.5, 0.25]})
    folder = tmp_path / ".snakemake" / "metadata"
    folder.mkdir(parents=True)
    (folder / urlsafe_b64encode(RUN.encode()).decode()).write_text(json.dumps({"rule": "aequa_run"}))
    return tmp_path / RUN


def _summarize(tmp_path: Path) -> list[str]:
    cfg = config.load_config(REPO / config.DEFAULT_CONFIG, REPO / "config" / "test.yaml")
    out = tmp_path / "out"
    argv = ["aequa", "summarize", RUN, "--summary", str(out / "s.csv"), "--per-client", str(out / "p.csv")]
    argv += ["--curves", str(out / "c.csv"), "--claims", str(out / "claims.csv")]
    for table in ("table1", "table2", "table7", "table8", "table9"):
        argv += [f"--{table}", str(out / f"{table}.csv"), str(out / f"{table}.md")]
    return [*argv, "--cfg", json.dumps({"seed": cfg["seed"], "aequa": cfg["aequa"]})]


def _one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text and "JSONDecodeError" not in text, text
    return text


def test_a_run_record_has_a_check_file_and_reads_back(run_record):
    assert check_path(run_record).is_file()
    assert read_json(RUN)["accuracy"] == [0.81, 0.79, 0.84]


def test_floats_edited_into_valid_json_stop_the_summary_in_one_line(run_record, tmp_path, capsys):
    run_record.write_text(run_record.read_text().replace("0.79", "0.97"))  # still valid JSON, then "touched"
    json.loads(run_record.read_text())
    assert cli.main(_summarize(tmp_path)) == 2
    err = _one_line(capsys.readouterr().err)
    assert err.startswith(f"fairshare: error: {RUN} is malformed (its bytes differ from those its check file records)")
    assert err.rstrip().endswith("rerun: ./run pipeline --forcerun aequa_run")
    assert not (tmp_path / "out").exists()  # no table computed from it


def test_a_run_record_cut_in_half_is_one_line_naming_it(run_record, tmp_path, capsys):
    text = run_record.read_text()
    run_record.write_text(text[: len(text) // 2])
    assert cli.main(_summarize(tmp_path)) == 2
    err = _one_line(capsys.readouterr().err)
    assert f"{RUN} is malformed" in err and "--forcerun aequa_run" in err
    check_path(run_record).write_text(json.dumps({"sha256": hashlib.sha256(text[:40].encode()).hexdigest()}))
    run_record.write_text(text[:40])  # cut, and a check file that agrees: still one line, not a JSONDecodeError
    with pytest.raises(CorruptFileError, match="not valid JSON"):
        read_json(RUN)


def test_a_record_without_its_check_file_is_refused(run_record):
    check_path(run_record).unlink()
    with pytest.raises(CorruptFileError, match=r"check file .* is missing or unreadable\); rerun: ./run pipeline"):
        read_json(RUN)


def test_metrics_files_have_no_check_file(tmp_path):
    """DVC metrics are final outputs: a check file beside them would be shown by `dvc metrics show`."""
    write_json(tmp_path / "summary.json", {"rows": 3}, check=False)
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
