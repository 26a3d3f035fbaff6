"""Figures: one module per paper; each reads tidy results and writes PNG + PDF."""
import matplotlib

matplotlib.use("Agg")
