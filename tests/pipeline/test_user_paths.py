"""What a user meets after the first run: a killed run finished by the plain command, byte-identical reruns, the HTML
report in a real browser, and DVC push/pull through a local remote."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.pipeline.conftest import output_files, snakemake, workflow_copy

# A temporary file of an atomic write: .<name>.<8 random characters><suffix>
STRAY_TEMPORARY = re.compile(r"^\.[^/]+\.[a-z0-9_]{8}(\.[A-Za-z0-9]+)?$")
# Every output is compared byte for byte, the HTML report included (its job times are dropped: fairshare.pipeline.html_report).
NOT_BYTE_COMPARED: set[str] = set()
# The training rules (`snakemake --list-rules`): every job that trains, checkpoints and resumes.
TRAINING_RULE = re.compile(
    r"\w+_run(_\w+)?|auctions_exp6(_\w+)?|payoff_flows_valuate_\d+|sensitivity_aequa(_\w+_ext)?|sensitivity_mmfl_\w+"
)

UV_STAND_IN = """#!/bin/sh
# Stands in for uv so that ./run runs inside the test's environment: `uv sync` has nothing to do here,
# `uv run --frozen CMD ...` runs CMD as a module of this environment's Python.
case "$1" in
  sync) exit 0 ;;
  run) shift; [ "$1" = "--frozen" ] && shift; cmd="$1"; shift
       if [ "$cmd" = python ]; then exec "{python}" "$@"; fi
       exec "{python}" -m "$cmd" "$@" ;;
esac
exit 2
"""


def _run_script(wd: Path, tmp_path: Path, *args: str, timeout: int = 1200) -> subprocess.CompletedProcess:
    """`./run pipeline ARGS` in ``wd``, with uv standing in as above."""
    shutil.copyfile(REPO / "run", wd / "run")
    (wd / "run").chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "uv").write_text(UV_STAND_IN.format(python=sys.executable))
    (bin_dir / "uv").chmod(0o755)
    # HOME points away from a real uv in ~/.local/bin, which ./run puts first on PATH.
    env = {**os.environ, "HOME": str(tmp_path), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["./run", "pipeline", *args], cwd=wd, env=env, capture_output=True, text=True, timeout=timeout
    )


def _stray_temporaries(wd: Path) -> list[str]:
    return [
        str(p.relative_to(wd))
        for top in ("results", "figures", "data")
        for p in (wd / top).rglob(".*")
        if STRAY_TEMPORARY.match(p.name)
    ]


@pytest.mark.slow
def test_killed_run_is_finished_by_the_plain_command_byte_identical(request, tmp_path):
    """Kill a run of every training job (the jobs that checkpoint and resume; the other rules write each output once,
    atomically) a third of the way in, finish it with the same command through ./run, and compare every file with
    the uninterrupted run's."""
    wd = workflow_copy(tmp_path / "killed")
    listed = snakemake(["--list-rules", "--configfile", "config/test.yaml"], wd)
    names = [line.split()[0] for line in listed.stdout.splitlines() if line[:1].isalpha()]
    training = [name for name in names if TRAINING_RULE.fullmatch(name)]
    assert "sensitivity_aequa" in training and all(  # one job per multi-model FL experiment, per Exp 6 mechanism
        any(name.startswith(f"{stem}_") for name in training) for stem in ("mmfl_run", "auctions_exp6")
    ), listed.stdout[-3000:]
    command = [*training, "--configfile", "config/test.yaml"]  # each training rule is one job, a target by name
    log = tmp_path / "killed.log"
    with open(log, "w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--cores", "2", *command],
            cwd=wd,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline and proc.poll() is None:
            progress = [int(p) for p in re.findall(r"steps \((\d+)%\) done", log.read_text())]
            if progress and progress[-1] >= 33:  # a third of the jobs finished
                break
            time.sleep(0.2)
        assert proc.poll() is None, "the run ended before it could be killed mid-way"
        os.killpg(proc.pid, signal.SIGKILL)  # the whole run, jobs included, as a lost node would
        proc.wait()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    out = _run_script(wd, tmp_path, *command)
    assert out.returncode == 0, (out.stdout + out.stderr)[-6000:]
    assert not _stray_temporaries(wd), _stray_temporaries(wd)
    finished = output_files(wd)
    # the uninterrupted run, asked for only now: another worker makes it while this one runs its own
    reference = output_files(request.getfixturevalue("test_profile_run"))
    assert finished and set(finished) <= set(reference), sorted(set(finished) - set(reference))[:20]
    trained = [name for name in reference if "/runs/" in name or "/valuation/" in name]
    assert trained and not [name for name in trained if name not in finished], "a training output is missing"
    assert "results/report.html" not in finished
    differ = [name for name in finished if name not in NOT_BYTE_COMPARED and finished[name] != reference[name]]
    assert not differ, f"{len(differ)} files differ from an uninterrupted run: {differ[:20]}"


def _chrome():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    browser, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("no headless browser: install Debian's chromium and chromium-driver (CI does)")
    options = Options()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(driver))


@pytest.mark.slow
def test_html_report_shows_every_item_with_its_caption(test_profile_run, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url = (test_profile_run / "results" / "report.html").as_uri()
    browser = _chrome()
    errors, shown = [], []

    def severe():
        return [e["message"][:300] for e in browser.get_log("browser") if e["level"] == "SEVERE"]

    def link_texts() -> list[str]:
        """Every link's visible text, in one round trip to the browser (one per link took most of this test)."""
        return browser.execute_script(
            "return Array.from(document.querySelectorAll('a')).map(a => a.innerText.trim()).filter(t => t)"
        )

    def body_text() -> str:
        """The page's visible text (the browser's innerText; WebDriver's own text of a large page is slower)."""
        return browser.execute_script("return document.body.innerText")

    def links(name: str):
        """The links whose visible text is ``name`` (an XPath string literal: no category name holds a quote)."""
        assert "'" not in name, name
        return browser.find_elements(By.XPATH, f"//a[normalize-space(.)='{name}']")

    def load(name: str) -> None:
        browser.get(url)
        WebDriverWait(browser, 30, poll_frequency=0.05).until(lambda b: links(name))
        errors.extend(severe())

    def open_category(name: str) -> None:
        """The category's list of items: from the item page's breadcrumb link when there is one, else from a fresh
        load of the report (a 10 MB page on the default profile: a reload per item took most of this test's time)."""
        if not links(name):
            load(name)
        links(name)[0].click()
        WebDriverWait(browser, 30, poll_frequency=0.05).until(
            lambda b: b.find_elements(By.CSS_SELECTOR, "tbody tr a, tbody tr button")
        )

    try:
        browser.get(url)
        WebDriverWait(browser, 30, poll_frequency=0.05).until(lambda b: links("0 scorecard"))
        categories = link_texts()
        categories = [c for c in categories if c not in ("Workflow", "Statistics", "About")]
        assert {"0 scorecard", "aequa", "mmfl", "model_sharing"} <= set(categories), categories

        def items() -> list:
            """The category's item rows: those with a link or a button (the front page's scorecard summary table, which
            stays on the page, has neither)."""
            return [
                r
                for r in browser.find_elements(By.CSS_SELECTOR, "tbody tr")
                if r.find_elements(By.CSS_SELECTOR, "a, button")
            ]

        for c, name in enumerate(categories):
            open_category(name)
            rows = len(items())
            assert rows >= 1, f"category {name} shows no item"
            if name != "0 scorecard":  # each item's label names the rule that made it, not the copy job
                listing = browser.find_element(By.TAG_NAME, "table").text
                assert "made by" in listing.lower() and "rule " in listing and "report_items" not in listing, listing
            browser.save_screenshot(str(tmp_path / f"category_{c}.png"))
            for k in range(rows):
                open_category(name)
                row = items()[k]
                row.find_elements(By.CSS_SELECTOR, "a, button")[-1].click()  # the item's details, with its caption
                WebDriverWait(browser, 30, poll_frequency=0.05).until(
                    lambda b: "manifest id" in body_text() or name == "0 scorecard"
                )
                text = body_text()
                errors.extend(severe())
                if name != "0 scorecard":
                    shown.append(text)
                    assert "of " in text and "Profile test" in text and "manifest id" in text, text[:500]
                    assert "What to look for" in text and "Scorecard" in text and "Made by" in text, text[:500]
                    # Snakemake's own info panel names the rule that made the artifact, not the copy job
                    rule = text.lower().split("snakemake rule\n", 1)[1].split("\n", 1)[0]
                    assert rule and rule != "report_items", text[-500:]
    finally:
        browser.quit()
    assert not errors, errors[:5]
    assert len(shown) >= 30  # every manifest item was opened


@pytest.mark.slow
def test_dvc_push_then_pull_into_a_fresh_clone(test_profile_run, tmp_path):
    """README's DVC sequence, on the test profile's outputs: repro (nothing to redo), status, push, clone, pull."""
    repo = tmp_path / "repo"
    shutil.copytree(test_profile_run, repo, ignore=shutil.ignore_patterns("logs"))
    for name in ("src", ".dvc", ".dvcignore", ".gitignore", "dvc.yaml"):
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, repo / name, ignore=shutil.ignore_patterns("cache", "tmp", "__pycache__"))
        else:
            shutil.copyfile(src, repo / name)
    # The stages run the default profile; this test's outputs are the test profile's.
    dvc_yaml = (
        (repo / "dvc.yaml")
        .read_text()
        .replace("snakemake --cores all", "snakemake --configfile config/test.yaml --cores all")
    )
    (repo / "dvc.yaml").write_text(dvc_yaml)
    # The stage declares the default profile's tracked metrics (metrics/); the test profile writes its own under
    # results/metrics/test/ so that it never touches tracked files. Here they stand where the stage declares them.
    shutil.copytree(repo / "results" / "metrics" / "test", repo / "metrics")
    remote = tmp_path / "remote"

    # The stages call `snakemake`, as a user's activated environment provides it.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}

    def sh(*cmd: str, cwd: Path = repo) -> str:
        out = subprocess.run(list(cmd), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, f"{' '.join(cmd)}: {(out.stdout + out.stderr)[-3000:]}"
        return out.stdout + out.stderr

    dvc = [sys.executable, "-m", "dvc"]
    sh("git", "init", "-q")
    sh("git", "config", "user.email", "test@example.org")
    sh("git", "config", "user.name", "test")
    before = output_files(repo)
    sh(*dvc, "repro")
    assert output_files(repo) == before  # persisted outputs: nothing deleted, nothing recomputed
    assert "up to date" in sh(*dvc, "status")
    sh(*dvc, "remote", "add", "-d", "store", str(remote))
    sh(*dvc, "remote", "modify", "store", "verify", "true")
    sh(*dvc, "push")
    sh("git", "add", "-A")
    sh("git", "commit", "-qm", "run")
    clone = tmp_path / "clone"
    sh("git", "clone", "-q", str(repo), str(clone), cwd=tmp_path)
    sh(*dvc, "pull", cwd=clone)
    assert output_files(clone) == before
    assert (clone / "data" / "processed" / "digits.npz").read_bytes() == (
        repo / "data" / "processed" / "digits.npz"
    ).read_bytes()
