"""Pipeline commands that belong to no single paper: data preparation and the scorecard report."""

# the public submodules
__all__ = ["data", "report", "sensitivity"]
