"""Reproduction of the model_sharing paper (see docs/model_sharing.md)."""
