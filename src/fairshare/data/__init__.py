"""Datasets (registry, local mirrors, checksums, tensor cache) and client partitions."""

from fairshare.data.datasets import DATASETS, ArrayDataset, DatasetUnavailableError, load_dataset

__all__ = [
    "DATASETS",
    "ArrayDataset",
    "DatasetUnavailableError",
    "load_dataset",
    # the public submodules
    "datasets",
    "leaf",
    "partition",
    "sst",
    "stand_in",
]
