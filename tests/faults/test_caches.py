"""Issue 40, row 1: a dataset cache records what it holds (the dataset's name, classes and per-sample shape) and is
checked against what its reader asked for, so a valid cache of another dataset copied over it is refused in one
line naming the file and what rebuilds it, and the preflight of `./run pipeline` removes it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from fairshare.data import datasets as D
from fairshare.pipeline import config, preflight


def _dataset(name: str, shape: tuple[int, ...], classes: int, dtype=np.uint8) -> D.ArrayDataset:
    rng = np.random.default_rng(0)
    return D.ArrayDataset(
        name,
        rng.integers(0, 100, (40, *shape)).astype(dtype),
        np.arange(40, dtype=np.int64) % classes,
        rng.integers(0, 100, (10, *shape)).astype(dtype),
        np.arange(10, dtype=np.int64) % classes,
        tuple(str(c) for c in range(classes)),
    )


@pytest.fixture
def work(tmp_path: Path, monkeypatch) -> Path:
    """A folder with config/config.yaml pointing at its data/processed, the working folder of the test."""
    processed = tmp_path / "data" / "processed"
    processed.mkdir(parents=True)
    (tmp_path / "config").mkdir()
    synthetic = "{n_features: 16, n_classes: 4}"
    (tmp_path / "config" / "config.yaml").write_text(f"data: {{processed_dir: {processed}, synthetic: {synthetic}}}\n")
    monkeypatch.chdir(tmp_path)
    return processed


def _one_line(text: str) -> str:
    assert text.count("\n") == 1 and "Traceback" not in text, text
    return text


def test_digits_copied_over_synthetic_is_refused_and_removed_before_snakemake(work, capsys):
    """`cp data/processed/digits.npz data/processed/synthetic.npz`: a self-consistent cache of another dataset."""
    D.save_cache(_dataset("digits", (1, 8, 8), 10), work / "digits.npz")
    D.save_cache(_dataset("synthetic", (16,), 4, np.float32), work / "synthetic.npz")
    shutil.copyfile(work / "digits.npz", work / "synthetic.npz")
    with pytest.raises(D.DatasetUnavailableError) as info:
        D.load_cache(work / "synthetic.npz")
    message = str(info.value)
    assert message == f"cached dataset {work / 'synthetic.npz'} holds 'digits', not 'synthetic'; {D.REBUILD}"
    assert config.main([]) == 0
    err = _one_line(capsys.readouterr().err)
    assert f"{work / 'synthetic.npz'} holds 'digits', not 'synthetic'; removed: its rule rebuilds it" in err
    assert not (work / "synthetic.npz").exists() and (work / "digits.npz").exists()


def test_a_cache_of_another_layout_than_the_config_asks_for_is_removed(work, capsys):
    """A synthetic cache of 8 features and 3 classes where the config asks for 16 and 4; a digits cache of 28x28."""
    D.save_cache(_dataset("synthetic", (8,), 3, np.float32), work / "synthetic.npz")
    D.save_cache(_dataset("digits", (1, 28, 28), 10), work / "digits.npz")
    with pytest.raises(
        D.DatasetUnavailableError, match=r"samples of shape \(1, 28, 28\), the dataset's are \(1, 8, 8\)"
    ):
        D.load_cache(work / "digits.npz")
    lines = preflight.remove_failing_caches(
        work, dry_run=True, expected=preflight.layouts(config.load_config(config.DEFAULT_CONFIG))
    )
    assert len(lines) == 2 and "3 class names, the dataset has 4" in lines[1]
    assert config.main([]) == 0
    assert not list(work.glob("*.npz"))


def test_a_cache_that_does_not_record_its_dataset_is_refused(work):
    """A cache of the previous format (no ``name``): what it holds cannot be checked, so it is rebuilt."""
    D.save_cache(_dataset("digits", (1, 8, 8), 10), work / "digits.npz")
    with np.load(work / "digits.npz") as z:
        arrays = {k: z[k] for k in z.files if k not in ("name", "digest")}
    np.savez(work / "digits.npz", **arrays, digest=np.array("0" * 64))
    with pytest.raises(D.DatasetUnavailableError, match="lacks name"):
        D.load_cache(work / "digits.npz")


def test_a_good_cache_and_a_writers_file_are_kept(work, capsys):
    D.save_cache(_dataset("synthetic", (16,), 4, np.float32), work / "synthetic.npz")
    np.savez(work / "femnist_writers.npz", writers_train=np.zeros(3, np.int64), writers_test=np.zeros(2, np.int64))
    assert D.load_cache(work / "synthetic.npz", expected=((16,), 4)).name == "synthetic"
    assert config.main([]) == 0 and capsys.readouterr().err == ""
    assert sorted(p.name for p in work.glob("*.npz")) == ["femnist_writers.npz", "synthetic.npz"]
