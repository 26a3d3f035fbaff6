"""Issue 29, item 2: what a step reads is checked where it is read. A damaged dataset cache, run CSV or claims CSV
is one line naming the file and what rebuilds it (exit status 2 from the CLI), never a traceback, never a result
computed on it; a cache that fails its check is removed before Snakemake starts, so its rule rebuilds it."""

from __future__ import annotations

import json
import os
from base64 import urlsafe_b64encode
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairshare import cli
from fairshare.data import datasets as D
from fairshare.papers.auctions.commands import EXP6_COLUMNS
from fairshare.papers.mmfl.commands import RUN_COLUMNS
from fairshare.pipeline import preflight
from fairshare.pipeline.report import Claim, collect_claims, write_claims
from fairshare.validate import CorruptFileError, read_runs, write_checked_csv


@pytest.fixture
def digits_cache(tmp_path: Path) -> Path:
    """A tiny, valid cache named digits.npz (10 classes)."""
    rng = np.random.default_rng(0)
    ds = D.ArrayDataset(
        "digits",
        rng.integers(0, 255, (40, 1, 8, 8), dtype=np.uint8),
        np.arange(40, dtype=np.int64) % 10,
        rng.integers(0, 255, (10, 1, 8, 8), dtype=np.uint8),
        np.arange(10, dtype=np.int64),
        tuple(str(c) for c in range(10)),
    )
    path = tmp_path / "data" / "processed" / "digits.npz"
    D.save_cache(ds, path)
    return path


def _one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


def _rewrite_labels(path: Path, label: int) -> None:
    """Put ``label`` among the training labels and store a matching digest: the cache is digest-consistent."""
    with np.load(path) as z:
        arrays = {k: z[k] for k in D.CACHE_ARRAYS}
    arrays["y_train"] = arrays["y_train"].copy()
    arrays["y_train"][0] = label
    np.savez(path, **arrays, digest=np.array(D.content_digest(arrays)))


def test_digest_consistent_cache_with_label_12_is_refused_in_one_line(digits_cache, tmp_path, capsys):
    _rewrite_labels(digits_cache, 12)
    with pytest.raises(D.DatasetUnavailableError, match=r"labels 0\.\.12 outside the 10 classes"):
        D.load_cache(digits_cache)
    cfg = json.dumps({"seed": 1, "partitions": [{"name": "p", "dataset": "digits", "scheme": "iid", "clients": 2}]})
    out = tmp_path / "out"
    argv = ["data", "partitions", "--datasets", str(digits_cache), "--outputs", str(out / "p.json")]
    argv += ["--summary", str(out / "s.csv"), "--figure", str(out / "f"), "--cfg", cfg]
    assert cli.main(argv) == 2
    err = _one_line(capsys.readouterr().err)
    assert f"cached dataset {digits_cache} fails its check" in err and "rerun ./run pipeline" in err
    assert not out.exists()  # nothing computed on it


def test_a_truncated_cache_with_an_old_mtime_is_removed_before_snakemake_starts(digits_cache, monkeypatch, capsys):
    data = digits_cache.read_bytes()
    digits_cache.write_bytes(data[: len(data) // 2])
    os.utime(digits_cache, (1_000_000_000, 1_000_000_000))
    processed = digits_cache.parent
    assert preflight.remove_failing_caches(processed, dry_run=True) and digits_cache.exists()  # a dry run only says
    (line,) = preflight.remove_failing_caches(processed)
    assert str(digits_cache) in line and "removed: its rule rebuilds it" in line and not digits_cache.exists()
    assert preflight.remove_failing_caches(processed) == []


def test_the_preflight_of_run_pipeline_removes_a_failing_cache(digits_cache, monkeypatch, capsys):
    """`./run pipeline` runs `python -m fairshare.pipeline.config` first: a failing cache is gone before Snakemake plans, so
    the `dataset` rule rebuilds it and every job that read it reruns."""
    from fairshare.pipeline import config

    _rewrite_labels(digits_cache, 12)
    work = digits_cache.parents[2]
    (work / "config").mkdir()
    (work / "config" / "config.yaml").write_text(f"data: {{processed_dir: {digits_cache.parent}}}\n")
    monkeypatch.chdir(work)
    assert config.main(["-np"]) == 0 and digits_cache.exists()  # a dry run (-n among short flags) only reports it
    assert "would be removed (dry run)" in _one_line(capsys.readouterr().err)
    assert config.main([]) == 0
    assert "fails its check" in _one_line(capsys.readouterr().err) and not digits_cache.exists()


def _metadata(tmp_path: Path, output: str, rule: str) -> None:
    """Snakemake's record of which rule wrote ``output`` (.snakemake/metadata/<base64 path>)."""
    folder = tmp_path / ".snakemake" / "metadata"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / urlsafe_b64encode(output.encode()).decode()).write_text(json.dumps({"rule": rule}))


def _run_rows(n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "experiment": "exp1",
            "method": ["fedfair", "random"] * (n // 2),
            "alpha": 3.0,
            "seed": 0,
            "round": np.arange(n) // 2 + 1,
            "task": 0,
            "task_name": "digits#0",
            "accuracy": 0.5,
            "loss": 1.0,
            "clients": 3,
            "collapsed": False,
        }
    )


def test_a_truncated_run_csv_is_one_line_naming_it_and_its_rule(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = "results/mmfl/runs/exp1/fedfair/seed0.csv"
    write_checked_csv(path, _run_rows(6))
    assert read_runs([path], RUN_COLUMNS).shape == (6, 11)
    _metadata(tmp_path, path, "mmfl_run")
    text = Path(path).read_text()
    Path(path).write_text(text[: text.index("\n") + 20])  # cut inside the first row, then "touched"
    with pytest.raises(CorruptFileError) as info:
        read_runs([path], RUN_COLUMNS)
    assert str(info.value).startswith(f"{path} is malformed (")
    assert str(info.value).endswith("rerun: ./run pipeline --forcerun mmfl_run") and "\n" not in str(info.value)


def test_a_run_csv_of_the_wrong_shape_is_refused_by_its_schema(tmp_path):
    path = tmp_path / "seed0.csv"
    write_checked_csv(path, _run_rows(4).drop(columns="clients"))
    with pytest.raises(CorruptFileError, match="columns .* expected"):
        read_runs([path], RUN_COLUMNS)
    write_checked_csv(path, _run_rows(4).assign(seed="zero").rename(columns={"alpha": "budget"}))
    with pytest.raises(CorruptFileError, match="columns"):
        read_runs([path], EXP6_COLUMNS)
    write_checked_csv(path, _run_rows(4).assign(round="x"))
    with pytest.raises(CorruptFileError, match="column round holds 'x', not int"):
        read_runs([path], RUN_COLUMNS)


def _claims(tmp_path: Path, n: int = 4) -> Path:
    row = dict(paper="aequa", artifact="Table 1", paper_states="x", reproduced="y")
    path = tmp_path / "results" / "aequa" / "claims.csv"
    write_claims(path, [Claim.statement(**row, claim=f"claim {k}", holds=k % 2 == 0) for k in range(n)])
    return path


def test_claims_cut_at_a_row_boundary_stop_the_scorecard_in_one_line(tmp_path, capsys):
    path = _claims(tmp_path)
    assert len(collect_claims([path])) == 4
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-3]))  # three whole rows lost: a valid CSV, one row left
    os.utime(path)
    out = tmp_path / "card"
    argv = ["report", "scorecard", str(path), "--csv", str(out / "c.csv"), "--markdown", str(out / "c.md")]
    assert cli.main([*argv, "--metrics", str(out / "m.json"), "--cfg", '{"profile": "test", "smoke": false}']) == 2
    err = _one_line(capsys.readouterr().err)
    assert err.startswith(f"fairshare: error: {path} is malformed (its bytes differ from those its check file records")
    assert f"rerun: ./run pipeline --forcerun {path}" in err  # outside a Snakemake folder: the file names the job
    assert not out.exists()  # no scorecard with missing rows


def test_a_garbled_or_unchecked_claims_file_is_one_line(tmp_path):
    path = _claims(tmp_path)
    path.write_text('paper,artifact\n"unterminated\n')
    with pytest.raises(CorruptFileError, match="is malformed"):
        collect_claims([path])
    path.with_name("claims.csv.check.json").unlink()
    with pytest.raises(CorruptFileError, match="check file .* is missing"):
        collect_claims([path])
