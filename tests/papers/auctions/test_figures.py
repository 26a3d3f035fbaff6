"""The auction figures' report captions against what the figures plot."""

from __future__ import annotations

import yaml

from fairshare.papers.auctions.figures import PANELS
from tests.conftest import REPO

# The words a caption uses for each quantity a Fig. 7 panel plots.
WORDS = {"difference": "difference", "min_recruited": "minimum number of clients recruited"}


def test_the_report_captions_of_figs_7a_and_7b_describe_what_each_plots():
    """Each Fig. 7 panel's manifest caption names the quantity on its y-axis, and not the other panel's."""
    entries = {e["id"]: e for e in yaml.safe_load((REPO / "workflow" / "manifest.yaml").read_text())}
    for panel, (metric, _, _) in PANELS.items():
        shows = entries[f"auctions_{panel}"]["shows"]
        other = next(words for quantity, words in WORDS.items() if quantity != metric)
        assert WORDS[metric] in shows and other not in shows, (panel, shows)
