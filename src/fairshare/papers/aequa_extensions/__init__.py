"""Reproduction of the aequa_extensions paper (see docs/aequa_extensions.md)."""
