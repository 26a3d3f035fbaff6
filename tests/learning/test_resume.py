"""The round driver (learning/rounds.py) on a FedAvg job: a run killed mid-way (an exception, or SIGKILL of a forked
process) and restarted reaches exactly the parameters and metrics of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import textwrap
import time

import pandas as pd
import pytest
import torch

from fairshare.learning.rounds import read_checkpoint

pytestmark = pytest.mark.usefixtures("one_torch_thread")

FEDAVG = textwrap.dedent('''
    import os, signal
    import numpy as np
    import torch
    from fairshare import seeding
    from fairshare.learning.aggregation import weighted_average
    from fairshare.learning.rounds import run_rounds, settings_hash
    from fairshare.learning.engine import ClientData, TrainSettings, local_train
    from fairshare.learning.evaluation import evaluate
    from fairshare.learning.models import build_model

    SEED, ROUNDS = 5, 4

    def setup():
        torch.manual_seed(seeding.integer_seed(SEED, "init"))
        model = build_model("small_cnn", (1, 8, 8), 4, channels=(4, 8), hidden=16)
        g = torch.Generator().manual_seed(seeding.integer_seed(SEED, "dataset"))
        clients = [ClientData(torch.randn(n, 1, 8, 8, generator=g), torch.randint(0, 4, (n,), generator=g)) for n in (12, 9, 15, 7)]
        return model, clients

    def fedavg(checkpoint, metrics_csv, kill_at=None, fail_at=None):
        """FedAvg over 4 clients, 2 sampled per round; every round's randomness derives from (seed, round)."""
        model, clients = setup()
        settings = TrainSettings(epochs=1, batch_size=4, lr=0.1, momentum=0.9, weight_decay=1e-3)

        def one_round(r, state):
            if r == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            if r == fail_at:
                raise KeyboardInterrupt
            chosen = np.sort(seeding.generator(SEED, "sampling", r).choice(len(clients), size=2, replace=False))
            cohort = [clients[i] for i in chosen]
            states = local_train(model, state, cohort, settings, executor="batched",
                                 generators=[seeding.generator(SEED, "data_order", r, int(i)) for i in chosen])
            state = weighted_average(states, [len(c) for c in cohort])
            acc, loss = evaluate(model, state, clients[0].x, clients[0].y)
            return state, {"accuracy": acc, "loss": loss}, sum(len(c) for c in cohort)

        return run_rounds(one_round, dict(model.state_dict()), ROUNDS, settings=settings_hash(SEED, "fedavg"),
                          checkpoint=checkpoint, metrics_csv=metrics_csv,
                          keys={"paper": "test", "experiment": "resume", "method": "fedavg", "seed": SEED}, progress=False)
''')


@pytest.fixture()
def fedavg_module(tmp_path, monkeypatch):
    (tmp_path / "resume_fedavg.py").write_text(FEDAVG)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    import resume_fedavg

    return importlib.reload(resume_fedavg)


def _same(a: dict, b: dict) -> bool:
    return set(a) == set(b) and all(torch.equal(a[k], b[k]) for k in a)


def test_interrupted_run_resumes_exactly(tmp_path, fedavg_module):
    whole, whole_rows = fedavg_module.fedavg(tmp_path / "whole.pt", tmp_path / "whole.csv")
    ckpt, csv = tmp_path / "part.pt", tmp_path / "part.csv"
    with pytest.raises(KeyboardInterrupt):
        fedavg_module.fedavg(ckpt, csv, fail_at=2)
    assert read_checkpoint(ckpt)["round"] == 2
    assert sorted(pd.read_csv(csv)["round"].unique()) == [1, 2]  # metrics of the finished rounds only
    resumed, rows = fedavg_module.fedavg(ckpt, csv)
    assert _same(resumed, whole)
    assert rows == whole_rows
    assert pd.read_csv(csv).equals(pd.read_csv(tmp_path / "whole.csv"))
    assert list(pd.read_csv(csv).columns) == ["paper", "experiment", "method", "seed", "round", "metric", "value"]
    assert not any(p.name.startswith(".") or p.suffix == ".tmp" for p in tmp_path.iterdir())  # no temporary files left


def test_finished_checkpoint_is_not_trained_again(tmp_path, fedavg_module):
    state, _ = fedavg_module.fedavg(tmp_path / "c.pt", None)
    again, rows = fedavg_module.fedavg(tmp_path / "c.pt", None, fail_at=0)  # would raise if any round ran
    assert _same(state, again) and len(rows) == 2 * fedavg_module.ROUNDS


def test_killed_process_resumes_exactly(tmp_path, fedavg_module):
    """A forked copy of this process is killed (SIGKILL) at the start of round 3; the same call again, here, resumes
    from its checkpoint and reaches the uninterrupted run's parameters exactly (one intra-op thread, see the fixture:
    OpenMP thread pools do not survive fork, and bitwise equality needs equal thread counts)."""
    resumed, whole = _kill_and_resume(tmp_path, fedavg_module)
    assert _same(resumed, whole)


def _kill_and_resume(tmp_path, fedavg_module):
    pid = os.fork()
    if pid == 0:  # child: train until the kill
        try:
            fedavg_module.fedavg(tmp_path / "k.pt", tmp_path / "k.csv", kill_at=2)
        finally:
            os._exit(1)  # only reached if the kill did not happen
    deadline = time.monotonic() + 120
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked training run did not finish")
    assert os.WIFSIGNALED(done[1]) and os.WTERMSIG(done[1]) == signal.SIGKILL
    assert read_checkpoint(tmp_path / "k.pt")["round"] == 2
    resumed, _ = fedavg_module.fedavg(tmp_path / "k.pt", tmp_path / "k.csv")
    whole, _ = fedavg_module.fedavg(None, None)
    return resumed, whole
