"""Issue 40, rows 8 and 9: an empty ``--configfile``, a profile without one of the default config's blocks, and an
emptied ``experiments`` or ``partitions`` list are each one line naming the file, before Snakemake starts: never a
silent run of the default profile's values."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from fairshare.pipeline import config
from tests.conftest import REPO


@pytest.fixture
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)


def _refused(capsys, *files: Path) -> str:
    assert config.main(["--configfile", *map(str, files)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _test_profile(tmp_path: Path, change) -> Path:
    cfg = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
    change(cfg)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def test_an_empty_configfile_is_one_line_naming_it(tmp_path, capsys, in_repo):
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing yet\n")
    err = _refused(capsys, empty)
    assert (
        err
        == f"fairshare: invalid config: {empty}: the config file is empty; give it config keys, or leave it off the command line\n"
    )


def test_a_profile_without_the_mmfl_block_is_refused(tmp_path, capsys, in_repo):
    path = _test_profile(tmp_path, lambda cfg: cfg.pop("mmfl"))
    err = _refused(capsys, path)
    assert err.startswith(
        f"fairshare: invalid config: {path}: profile 'test' has no 'mmfl' block, so it would silently"
    )
    assert "copy it from config/config.yaml" in err


def test_a_profile_that_extends_the_default_keeps_the_blocks_it_leaves_out(tmp_path, capsys, in_repo):
    """config/decisive.yaml's form: the default profile with a few blocks changed, said in the file."""
    path = tmp_path / "mine.yaml"
    seeds = "mmfl: {seeds: 2}\nauctions: {exp6: {seeds: 2}}\naequa: {seeds: 2, extension_seeds: 2}\n"
    path.write_text("profile: mine\nextends_default: true\n" + seeds)
    assert config.main(["--configfile", str(path)]) == 0
    path.write_text("profile: mine\n" + seeds)
    assert "profile 'mine' has no " in _refused(capsys, path)


def test_an_overlay_on_a_profile_may_leave_blocks_out(tmp_path, capsys, in_repo):
    """Layered files (config/cpu_scale.yaml on config/paper.yaml) take the blocks of the profile under them."""
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("mmfl: {seeds: 2}\n")
    assert config.main(["--configfile", "config/test.yaml", str(overlay)]) == 0


@pytest.mark.parametrize("key", ["experiments", "partitions"])
def test_an_emptied_list_is_refused(tmp_path, capsys, in_repo, key):
    path = _test_profile(tmp_path, lambda cfg: (cfg["mmfl"] if key == "experiments" else cfg).update({key: []}))
    dotted = "mmfl.experiments" if key == "experiments" else "partitions"
    assert (
        _refused(capsys, path)
        == f"fairshare: invalid config: {path}: '{dotted}' is empty; give it at least one entry\n"
    )


@pytest.mark.parametrize(("papers", "says"), [("[mmfl, aequa_x]", "'aequa_x'"), ("[]", "'papers'")])
def test_papers_names_known_papers(tmp_path, capsys, in_repo, papers, says):
    overlay = tmp_path / "overlay.yaml"  # not named after the key, so the message must name it
    overlay.write_text(f"papers: {papers}\n")
    err = _refused(capsys, REPO / "config" / "test.yaml", overlay)
    assert says in err, err
