"""Kill a real `fairshare` training command mid-run, as a user's Ctrl-C or a cluster pre-emption would.

The command runs in its own process; as soon as its checkpoint shows a finished round that is not the last one,
the process gets SIGKILL. Tests then rerun the same command and compare its outputs with an uninterrupted run.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fairshare.learning.rounds import read_checkpoint

FAIRSHARE = [sys.executable, "-m", "fairshare"]


def checkpoint_round(path: Path) -> int | None:
    """The last finished round recorded in a round-driver checkpoint, or None while there is none."""
    if not path.is_file():
        return None
    try:
        return int(read_checkpoint(path)["round"])
    except Exception:  # being replaced at this very moment: look again
        return None


def kill_mid_run(args: list[str], checkpoint: Path, rounds: int, cwd: Path | None = None, timeout: float = 300) -> int:
    """Start ``fairshare *args``; SIGKILL it once ``checkpoint`` holds a round in [1, rounds); return that round.

    Fails the calling test if the command finishes or errors before it could be killed mid-run.
    """
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    proc = subprocess.Popen(FAIRSHARE + args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            done = checkpoint_round(checkpoint)
            if done is not None and 1 <= done < rounds:
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                return done
            if proc.poll() is not None:
                _, err = proc.communicate()
                raise AssertionError(
                    f"command ended (rc {proc.returncode}) before it could be killed: {err.decode()[-2000:]}"
                )
            time.sleep(0.005)
        raise AssertionError("command did not checkpoint a round in time")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def run_command(args: list[str], cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``fairshare *args`` to completion; fail with its stderr if it does not succeed."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run(FAIRSHARE + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-3000:]
    return out
