"""Reproduction of the auctions paper (see docs/auctions.md)."""
