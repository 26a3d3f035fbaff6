"""The round driver: resume from a checkpoint of the same settings only, bit-identical to an uninterrupted run."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fairshare import seeding
from fairshare.errors import UserError
from fairshare.learning.rounds import (
    CHECKPOINT_SECONDS_ENV,
    checkpoint_seconds,
    read_checkpoint,
    run_rounds,
    settings_hash,
)


class Killed(Exception):
    pass


def _step_factory(root: int, kill_at: int | None = None):
    """A small SGD job whose round r draws its data from (root, r) and dropout from torch's global RNG."""

    def step(r: int, state: dict) -> tuple[dict, dict, int]:
        if kill_at is not None and r == kill_at:
            raise Killed
        rng = seeding.generator(root, "data_order", r)
        x = torch.as_tensor(rng.normal(size=(16, 4)), dtype=torch.float32)
        w = state["w"].clone().requires_grad_(True)
        out = torch.nn.functional.dropout(x @ w, p=0.5, training=True)
        loss = (out**2).mean()
        loss.backward()
        return {"w": (w - 0.1 * w.grad).detach()}, {"loss": loss.item()}, 16

    return step


def _initial() -> dict:
    return {"w": torch.ones(4, 2)}


def test_killed_run_resumes_bit_identical(tmp_path):
    torch.manual_seed(0)
    full, full_rows = run_rounds(
        _step_factory(3), _initial(), 6, settings=settings_hash({"lr": 0.1}, 3), progress=False
    )
    ckpt = tmp_path / "job.pt"
    torch.manual_seed(0)
    with pytest.raises(Killed):
        run_rounds(_step_factory(3, kill_at=4), _initial(), 6, settings=settings_hash({"lr": 0.1}, 3), checkpoint=ckpt)
    assert read_checkpoint(ckpt)["round"] == 4
    torch.manual_seed(123)  # a fresh process would not share the killed one's RNG state; the checkpoint restores it
    calls = []

    def counting(r, state):
        calls.append(r)
        return _step_factory(3)(r, state)

    resumed, rows = run_rounds(counting, _initial(), 6, settings=settings_hash({"lr": 0.1}, 3), checkpoint=ckpt)
    assert calls == [4, 5]
    assert torch.equal(resumed["w"], full["w"])
    assert rows == full_rows


def test_checkpoint_interval_resumes_from_the_last_write_bit_identical(tmp_path, monkeypatch):
    """With a checkpoint at most every ``every_seconds``, a run killed between writes resumes from the last one:
    the rows log's later records are cut off, the rounds after it run again, and the result is the same bits."""
    clock = iter(range(0, 1000, 10))  # each look at the clock is 10 s after the previous one
    monkeypatch.setattr("fairshare.learning.rounds.monotonic", lambda: next(clock))
    torch.manual_seed(0)
    full, full_rows = run_rounds(_step_factory(3), _initial(), 8, settings=settings_hash({"lr": 0.1}), progress=False)
    ckpt = tmp_path / "job.pt"
    torch.manual_seed(0)
    with pytest.raises(Killed):  # start at 0 s; rounds end at 10, 20, 30 ... s: writes after rounds 3 (30 s) and 6
        run_rounds(
            _step_factory(3, kill_at=7),
            _initial(),
            8,
            settings=settings_hash({"lr": 0.1}),
            checkpoint=ckpt,
            every_seconds=25,
            progress=False,
        )
    assert read_checkpoint(ckpt)["round"] == 6
    torch.manual_seed(123)
    calls = []

    def counting(r, state):
        calls.append(r)
        return _step_factory(3)(r, state)

    resumed, rows = run_rounds(counting, _initial(), 8, settings=settings_hash({"lr": 0.1}), checkpoint=ckpt)
    assert calls == [6, 7]
    assert torch.equal(resumed["w"], full["w"])
    assert rows == full_rows


def test_run_killed_before_its_first_write_starts_again_and_the_last_round_is_written(tmp_path):
    ckpt = tmp_path / "job.pt"
    torch.manual_seed(0)
    full, full_rows = run_rounds(_step_factory(3), _initial(), 5, settings=settings_hash({"lr": 0.1}), progress=False)
    torch.manual_seed(0)
    with pytest.raises(Killed):
        run_rounds(
            _step_factory(3, kill_at=4),
            _initial(),
            5,
            settings=settings_hash({"lr": 0.1}),
            checkpoint=ckpt,
            every_seconds=float("inf"),
        )
    assert not ckpt.exists()  # 4 rounds' rows are in the log, no checkpoint says where it ends: start again
    torch.manual_seed(0)
    resumed, rows = run_rounds(
        _step_factory(3),
        _initial(),
        5,
        settings=settings_hash({"lr": 0.1}),
        checkpoint=ckpt,
        every_seconds=float("inf"),
    )
    assert read_checkpoint(ckpt)["round"] == 5  # the last round is always written (a finished run's result)
    assert torch.equal(resumed["w"], full["w"]) and rows == full_rows


@pytest.mark.parametrize(("text", "seconds"), [(None, 30.0), ("", 30.0), ("0", 0.0), ("2.5", 2.5)])
def test_checkpoint_seconds_from_the_environment(monkeypatch, text, seconds):
    if text is None:
        monkeypatch.delenv(CHECKPOINT_SECONDS_ENV, raising=False)
    else:
        monkeypatch.setenv(CHECKPOINT_SECONDS_ENV, text)
    assert checkpoint_seconds() == seconds


@pytest.mark.parametrize("text", ["soon", "-1", "nan"])
def test_bad_checkpoint_seconds_is_a_one_line_user_error(monkeypatch, text):
    monkeypatch.setenv(CHECKPOINT_SECONDS_ENV, text)
    with pytest.raises(UserError, match=CHECKPOINT_SECONDS_ENV):
        checkpoint_seconds()


@pytest.mark.parametrize("change", ["settings", "rounds"])
def test_checkpoint_of_other_settings_is_discarded(tmp_path, capsys, change):
    ckpt = tmp_path / "job.pt"
    with pytest.raises(Killed):
        run_rounds(_step_factory(3, kill_at=3), _initial(), 8, settings=settings_hash({"lr": 0.1}), checkpoint=ckpt)
    calls = []

    def counting(r, state):
        calls.append(r)
        return _step_factory(3)(r, state)

    new_settings = settings_hash({"lr": 0.2}) if change == "settings" else settings_hash({"lr": 0.1})
    rounds = 8 if change == "settings" else 2
    _, rows = run_rounds(counting, _initial(), rounds, settings=new_settings, checkpoint=ckpt)
    assert calls == list(range(rounds))
    assert [r["round"] for r in rows] == list(range(1, rounds + 1))
    assert "discarding checkpoint" in capsys.readouterr().err


def test_unreadable_checkpoint_is_discarded(tmp_path, capsys):
    ckpt = tmp_path / "job.pt"
    ckpt.write_bytes(b"not a checkpoint")
    _, rows = run_rounds(_step_factory(1), _initial(), 2, settings="x", checkpoint=ckpt, progress=False)
    assert len(rows) == 2
    assert "cannot be read" in capsys.readouterr().err


def test_settings_hash_sees_data_and_ignores_key_order():
    a = np.arange(6, dtype=np.int64)
    assert settings_hash({"a": 1, "b": 2}, a) == settings_hash({"b": 2, "a": 1}, a.copy())
    b = a.copy()
    b[3] = 99
    assert settings_hash({"a": 1, "b": 2}, a) != settings_hash({"a": 1, "b": 2}, b)
    assert settings_hash(a.astype(np.int32)) != settings_hash(a)
    with pytest.raises(TypeError):
        settings_hash(object())


def test_a_kept_result_is_returned_for_its_key_only_and_goes_with_its_checkpoint(tmp_path, capsys):
    from fairshare.learning.rounds import discard_checkpoint, keep_result, kept_result, result_path

    checkpoint = tmp_path / "run.pt"
    checkpoint.write_bytes(b"checkpoint")
    keep_result(checkpoint, "settings-a rev1", {"reward_acc": [0.5, float("nan")], "method": "aequa"})
    again = kept_result(checkpoint, "settings-a rev1")
    assert again["method"] == "aequa" and again["reward_acc"][0] == 0.5 and again["reward_acc"][1] != 0.5
    assert kept_result(checkpoint, "settings-a rev2") is None  # another code version: evaluated again
    assert "discarding kept result" in capsys.readouterr().err and not result_path(checkpoint).exists()
    keep_result(checkpoint, "k", {"x": 1})
    result_path(checkpoint).write_text('{"key": "k", "result": {"x": 2}}\n')  # changed after its check file
    assert kept_result(checkpoint, "k") is None
    keep_result(checkpoint, "k", {"x": 1})
    discard_checkpoint(checkpoint)
    assert not list(tmp_path.iterdir())
