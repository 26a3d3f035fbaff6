"""Atomic writes leave nothing behind, and figures are byte-identical from run to run."""

from __future__ import annotations

import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from fairshare.io import atomic_path, save_figure, save_figure_paths, write_text  # noqa: E402


def test_failed_write_leaves_no_file(tmp_path):
    target = tmp_path / "table.csv"
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []


def test_leftover_of_a_killed_write_is_removed_by_the_next_write(tmp_path):
    target = tmp_path / "fig2.pdf"
    leftover = tmp_path / ".fig2.pdf.3c91nf3g.pdf"  # what a SIGKILLed savefig leaves
    leftover.write_bytes(b"%PDF partial")
    other = tmp_path / ".fig3.pdf.3c91nf3g.pdf"  # another output's temporary: not ours to remove
    other.write_bytes(b"x")
    with atomic_path(target) as tmp:
        tmp.write_bytes(b"%PDF complete")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".fig3.pdf.3c91nf3g.pdf", "fig2.pdf"]


def test_figures_are_byte_identical_across_saves(tmp_path):
    def draw(stem):
        fig, ax = plt.subplots()
        ax.plot([0, 1, 2], [1, 0, 2], label="a")
        ax.legend()
        save_figure(fig, stem)
        plt.close(fig)

    draw(tmp_path / "one")
    time.sleep(1.1)  # a creation date (to the second) would now differ
    draw(tmp_path / "two")
    for fmt in ("png", "pdf"):
        assert (tmp_path / f"one.{fmt}").read_bytes() == (tmp_path / f"two.{fmt}").read_bytes()


def test_save_figure_paths_writes_each_path_in_the_format_its_suffix_names(tmp_path):
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    save_figure_paths(fig, [tmp_path / "fig1.png", str(tmp_path / "pdf" / "fig1.pdf")])
    with pytest.raises(ValueError, match="no suffix"):
        save_figure_paths(fig, [tmp_path / "fig1"])
    plt.close(fig)
    assert (tmp_path / "fig1.png").read_bytes().startswith(b"\x89PNG")
    pdf = (tmp_path / "pdf" / "fig1.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"CreationDate" not in pdf
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["fig1.pdf", "fig1.png"]


def test_write_text_replaces_atomically(tmp_path):
    target = tmp_path / "a.md"
    write_text(target, "old")
    write_text(target, "new")
    assert target.read_text() == "new"
