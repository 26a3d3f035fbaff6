"""Exact economics of the five papers: numpy/scipy only (never torch)."""
