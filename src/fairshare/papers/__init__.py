"""Reproductions: one folder per paper, each with experiment, claims, figures and commands modules."""
