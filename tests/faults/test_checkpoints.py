"""Issue 29, checkpoints: a corrupted or foreign checkpoint is never resumed from, and a checkpoint's size does not
grow with the run."""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch

from fairshare import seeding
from fairshare.learning.rounds import read_checkpoint, rows_path, run_rounds, save_checkpoint
from tests.conftest import REPO


class Killed(Exception):
    pass


def _step(kill_at: int | None = None):
    """A small job: a 64 x 32 weight updated from (seed, round) data; metrics as rows carrying a numpy scalar."""

    def step(r: int, state: dict) -> tuple[dict, list[dict], int]:
        if r == kill_at:
            raise Killed
        x = torch.as_tensor(seeding.generator(7, "data_order", r).normal(size=(8, 64)), dtype=torch.float32)
        w = state["w"] - 0.01 * x.T @ (x @ state["w"])
        return {"w": w, "seen": state["seen"] + 8}, [{"metric": "norm", "value": float(w.norm()), "n": np.int64(r)}], 8

    return step


def _initial() -> dict:
    return {"w": torch.ones(64, 32), "seen": np.int64(0)}


def _run(checkpoint: Path | None, rounds: int = 4, kill_at: int | None = None):
    return run_rounds(_step(kill_at), _initial(), rounds, settings="s", checkpoint=checkpoint, progress=False)


def _interrupted(tmp_path: Path, done: int = 2) -> Path:
    ckpt = tmp_path / "job.pt"
    with pytest.raises(Killed):
        _run(ckpt, kill_at=done)
    return ckpt


def _flip_bit_in_largest_entry(path: Path) -> None:
    """Flip one bit in the middle of the data of the zip's largest entry (the tensor data)."""
    with zipfile.ZipFile(path) as z:
        entry = max(z.infolist(), key=lambda info: info.compress_size)
    data = bytearray(path.read_bytes())
    name_length, extra_length = struct.unpack("<HH", data[entry.header_offset + 26 : entry.header_offset + 30])
    start = entry.header_offset + 30 + name_length + extra_length
    data[start + entry.compress_size // 2] ^= 0x10
    path.write_bytes(bytes(data))


def _same(a, b) -> bool:
    return torch.equal(a[0]["w"], b[0]["w"]) and a[0]["seen"] == b[0]["seen"] and a[1] == b[1]


def test_flipped_bit_in_tensor_data_is_discarded_and_rerun_from_round_0(tmp_path, capsys):
    ckpt = _interrupted(tmp_path)
    _flip_bit_in_largest_entry(ckpt)
    resumed = _run(ckpt)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not match its digest; starting from round 0" in err[0]
    assert _same(resumed, _run(None))


def test_tampered_rows_log_is_discarded(tmp_path, capsys):
    ckpt = _interrupted(tmp_path)
    log = rows_path(ckpt)
    data = bytearray(log.read_bytes())
    data[-5] ^= 0x01
    log.write_bytes(bytes(data))
    resumed = _run(ckpt)
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "does not match its checkpoint's digest; starting from round 0" in err[0]
    assert _same(resumed, _run(None))


def test_rows_appended_after_the_last_checkpoint_are_dropped_on_resume(tmp_path):
    """Killed between appending a round's rows and writing its checkpoint: the log is cut back to the checkpoint."""
    ckpt = _interrupted(tmp_path)
    with rows_path(ckpt).open("ab") as f:
        f.write(b"\x05\x00\x00\x00\x00\x00\x00\x00junk!")
    assert _same(_run(ckpt), _run(None))


class _RunsCode:
    def __reduce__(self):
        return (exec, ("import pathlib; pathlib.Path('PWNED').write_text('ran')",))


def test_foreign_checkpoint_runs_no_code(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ckpt = tmp_path / "job.pt"
    torch.save({"format": 3, "payload": _RunsCode()}, ckpt)
    _, rows = _run(ckpt)
    assert not (tmp_path / "PWNED").exists()
    assert len(rows) == 4 and "cannot be read (UnpicklingError" in capsys.readouterr().err


def test_no_torch_load_without_weights_only_in_src():
    calls = [
        f"{path.relative_to(REPO)}: {line.strip()}"
        for path in (REPO / "src").rglob("*.py")
        for line in path.read_text().splitlines()
        if re.search(r"torch\.load\(", line) and "weights_only=True" not in line
    ]
    assert not calls


def test_checkpoint_size_does_not_grow_with_the_run(tmp_path):
    sizes = {}
    for rounds in (4, 10_000_000):
        ckpt = tmp_path / f"{rounds}.pt"
        with pytest.raises(Killed):
            _run(ckpt, rounds=rounds, kill_at=3)
        sizes[rounds] = ckpt.stat().st_size
    assert sizes[4] == sizes[10_000_000]


def test_mmfl_checkpoint_holds_no_clients_by_rounds_array(tmp_path):
    """The allocation map (clients x rounds) is rebuilt from the rows; the state holds the models and accuracies."""
    from tests.learning.test_mmfl import Killed as MMFLKilled
    from tests.learning.test_mmfl import _run as run_mmfl_small
    from tests.learning.test_mmfl import _tasks

    sizes = {}
    for rounds in (3, 10_000_000):
        ckpt = tmp_path / f"{rounds}.pt"
        with pytest.raises(MMFLKilled):
            run_mmfl_small(_tasks(), checkpoint=ckpt, rounds=rounds, kill_at=1)
        sizes[rounds] = ckpt.stat().st_size
    assert set(read_checkpoint(ckpt)["state"]) == {"globals", "accuracies", "losses"}
    assert sizes[3] == sizes[10_000_000]


def test_numpy_values_survive_a_checkpoint(tmp_path):
    saved = {"a": np.arange(3, dtype=np.int16), "s": np.float32(0.1), "t": (1, [2.5, None]), "g": {"x": "y"}}
    save_checkpoint(tmp_path / "c.pt", saved)
    loaded = read_checkpoint(tmp_path / "c.pt")
    assert loaded["a"].dtype == np.int16 and np.array_equal(loaded["a"], saved["a"])
    assert type(loaded["s"]) is np.float32 and loaded["s"] == saved["s"]
    assert loaded["t"] == saved["t"] and loaded["g"] == saved["g"]
