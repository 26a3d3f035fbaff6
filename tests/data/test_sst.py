"""SST-5 from PTB-format trees: parsing, vocabulary, encoding, checksums and a clear error when missing."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from fairshare.data import sst

TRAIN = [
    "(3 (2 It) (4 (2 's) (3 (2 a) (4 Good) (2 film))))",
    "(0 (1 (2 a) (0 terrible)) (2 movie))",
    "(2 (2 film) (2 .))",
]
TEST = ["(4 (4 good) (2 unseenword))"]


def _archive(tmp_path, train=TRAIN, test=TEST):
    path = tmp_path / sst.ARCHIVE
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("trees/train.txt", "\n".join(train) + "\n")
        z.writestr("trees/dev.txt", "")
        z.writestr("trees/test.txt", "\n".join(test) + "\n")
    return path


def test_tree_label_is_the_root_and_tokens_are_the_leaves():
    assert sst.parse_tree(TRAIN[0]) == (3, ["It", "'s", "a", "Good", "film"])
    with pytest.raises(ValueError):
        sst.parse_tree("just words")


def test_arrays_use_the_training_vocabulary(tmp_path):
    x_train, y_train, x_test, y_test, vocab = sst.sst_arrays(_archive(tmp_path), max_len=4)
    assert vocab[:2] == ["<pad>", "<unk>"] and "good" in vocab and "Good" not in vocab
    assert vocab[2:4] == ["a", "film"]  # most frequent first, ties alphabetical
    assert y_train.tolist() == [3, 0, 2] and y_test.tolist() == [4]
    assert x_train.shape == (3, 4) and x_train.dtype == np.int64
    assert x_train[2].tolist() == [vocab.index("film"), vocab.index("."), sst.PAD, sst.PAD]  # padded at the end
    assert [vocab[i] for i in x_train[0]] == ["it", "'s", "a", "good"]  # cut at max_len
    assert x_test[0].tolist() == [vocab.index("good"), sst.UNK, sst.PAD, sst.PAD]


def test_archive_with_wrong_content_is_rejected(tmp_path):
    path = _archive(tmp_path)
    with pytest.raises(sst.SSTError, match="bytes, not the published"):
        sst.verify_archive(path)
    with pytest.raises(sst.SSTError, match="SHA-256"):
        sst.verify_archive(path, size=None)


def test_missing_archive_names_the_config_key_and_the_file(tmp_path):
    with pytest.raises(sst.SSTError) as info:
        sst.fetch_archive(tmp_path / "raw", allow_download=False)
    message = str(info.value)
    assert "data.allow_download" in message and sst.ARCHIVE in message and "\n" not in message
    assert not (tmp_path / "raw" / "sst").exists()


def test_stand_in_has_the_layout_of_sst():
    rng = np.random.default_rng(0)
    x_train, y_train, x_test, y_test = sst.stand_in_arrays(rng, n_train=20, n_test=5, vocab_size=50, max_len=7)
    assert x_train.shape == (20, 7) and x_test.shape == (5, 7)
    assert set(np.unique(y_train)) <= set(range(5))
    assert (x_train[:, 0] != sst.PAD).all() and x_train.max() < 50
