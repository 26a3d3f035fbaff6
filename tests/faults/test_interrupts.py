"""Issue 29, interruption and a full disk: one line, the right exit status, no temporary file left, no process left."""

from __future__ import annotations

import argparse
import errno
import os
import signal
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from fairshare import cli
from fairshare.io import atomic_path, write_csv
from fairshare.learning import rounds
from fairshare.learning.rounds import run_rounds
from tests.support.run_folder import run_folder


@pytest.fixture
def run_command(monkeypatch):
    """``run_command(func)``: ``fairshare`` main running ``func`` as its one command; the signal handlers it installs
    are restored afterwards."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}

    class OneCommand:
        def __init__(self, func):
            self.func = func

        def parse_args(self, argv):
            return argparse.Namespace(func=self.func)

    def run(func) -> int:
        monkeypatch.setattr(cli, "build_parser", lambda only=None: OneCommand(func))
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a foreground process (a worker may ignore it)
        return cli.main(["x"])

    yield run
    for sig, handler in saved.items():
        signal.signal(sig, handler)


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_during_a_write_leaves_no_temporary_and_prints_one_line(tmp_path, capsys, run_command, sig):
    def command(args):
        with atomic_path(tmp_path / "out.csv") as tmp:
            tmp.write_text("half")
            os.kill(os.getpid(), sig)
            time.sleep(5)  # the handler raises before this ends

    assert run_command(command) == 128 + sig
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fairshare: stopped by {signal.Signals(sig).name}; rerun the same command to resume"]
    assert _leftovers(tmp_path) == [] and not (tmp_path / "out.csv").exists()


def _full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _FullDiskAppend:
    """``open`` for the rows log: appending fails as on a full disk."""

    def __init__(self, path, mode="r", *args):
        self.file = open(path, mode, *args)  # noqa: SIM115
        self.append = "a" in mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.file.close()

    def __getattr__(self, name):
        return getattr(self.file, name)

    def write(self, data):
        if self.append:
            _full_disk()
        return self.file.write(data)


def _one_round_job(checkpoint: Path):
    return lambda args: run_rounds(
        lambda r, s: (s, {"m": 1.0}, 0), {}, 1, settings="", checkpoint=checkpoint, progress=False
    )


@pytest.mark.parametrize("writer", ["checkpoint", "rows log", "csv"])
def test_full_disk_is_one_line_naming_the_output(tmp_path, capsys, monkeypatch, run_command, writer):
    target = {"checkpoint": tmp_path / "job.pt", "rows log": tmp_path / "job.pt.rows", "csv": tmp_path / "rows.csv"}
    if writer == "checkpoint":
        monkeypatch.setattr(Path, "write_bytes", _full_disk)
        command = _one_round_job(target[writer])
    elif writer == "rows log":
        monkeypatch.setattr(rounds, "open", _FullDiskAppend, raising=False)
        command = _one_round_job(target["checkpoint"])
    else:
        monkeypatch.setattr(pd.DataFrame, "to_csv", _full_disk)
        command = lambda args: write_csv(target[writer], pd.DataFrame({"a": [1]}))  # noqa: E731
    assert run_command(command) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"fairshare: error: no space left on the device for {target[writer]}; free some and rerun"]
    assert _leftovers(tmp_path) == []


SLOW_JOB = """
rule all:
    output: "done.txt"
    shell: "echo $$ > job.pid; sleep 60; touch {output}"
"""


def _start_pipeline(tmp_path: Path) -> subprocess.Popen:
    """`./run pipeline` (uv standing in, as in tests/pipeline) on a one-job Snakefile whose job sleeps."""
    wd, env = run_folder(tmp_path, SLOW_JOB)
    proc = subprocess.Popen(
        ["./run", "pipeline", "--cores", "1", "--forcerun", "all"],
        cwd=wd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # As from a terminal: SIGINT at its default. A pytest-xdist worker ignores SIGINT, and a shell started with a
        # signal ignored can never trap it, so without this the test would not see what a user's Ctrl-C does.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not (wd / "job.pid").is_file() or not (wd / "job.pid").read_text().strip():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    return proc


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_run_pipeline_stops_quietly_on_a_signal(tmp_path, sig):
    """Ctrl-C (SIGINT to the foreground process group) or SIGTERM to ./run: Snakemake and its job stop, one line
    names the command that resumes (without the forcing option), the status is 128 + the signal."""
    proc = _start_pipeline(tmp_path)
    job = int((tmp_path / "wd" / "job.pid").read_text())
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig
    name = signal.Signals(sig).name
    assert err.strip().splitlines()[-1] == f"fairshare: stopped by {name}; resume with: ./run pipeline --cores 1"
    assert "Traceback" not in err and "Error" not in err
    with pytest.raises(ProcessLookupError):
        os.kill(job, 0)
