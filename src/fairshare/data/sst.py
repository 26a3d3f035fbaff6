"""Stanford Sentiment Treebank (SST-5) from the original PTB-tree files, for Aequa's text task.

torchtext's ``SST`` class is gone from current torchtext, so this module reads Stanford's archive
``trainDevTestTrees_PTB.zip`` itself (docs/aequa.md): each line of ``trees/{train,dev,test}.txt`` is one sentence as a
labelled binary parse tree, e.g. ``(3 (2 It) (4 (2 's) (3 good)))``. The sentence label is the root's (0 = very
negative ... 4 = very positive, the fine-grained task IAFL's code uses); the tokens are the tree's leaves, already
tokenised by the treebank.

Reconstructions (the paper gives no text preprocessing; each is a named argument): tokens are lower-cased; the
vocabulary is every training-set token seen at least ``min_freq`` times, plus ``<pad>`` (id 0) and ``<unk>`` (id 1);
sentences are cut or padded (at the end) to ``max_len`` tokens; the dev split is not used (train -> train, test ->
test), as the image datasets have no validation split either.
"""

from __future__ import annotations

import hashlib
import io
import re
import shutil
import tempfile
import urllib.request
import zipfile
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

__all__ = [
    "URL",
    "ARCHIVE",
    "SHA256",
    "SIZE",
    "CLASSES",
    "SSTError",
    "verify_archive",
    "fetch_archive",
    "parse_tree",
    "read_split",
    "build_vocabulary",
    "encode",
    "sst_arrays",
    "stand_in_arrays",
]

URL = "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip"
ARCHIVE = "trainDevTestTrees_PTB.zip"
SHA256 = "5c613a4f673fc74097d523a2c83f38e0cc462984d847b82c7aaf36b01cbbbfcc"
SIZE = 789_539
CLASSES = ("very negative", "negative", "neutral", "positive", "very positive")
PAD, UNK = 0, 1
_LEAF = re.compile(r"\(\d+ ([^()\s]+)\)")


class SSTError(RuntimeError):
    """The SST archive is missing, cannot be downloaded, or fails its checksum."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_archive(path: str | Path, sha256: str = SHA256, size: int | None = SIZE) -> None:
    """Raise :class:`SSTError` unless ``path`` is the published archive (size and SHA-256)."""
    path = Path(path)
    if size is not None and path.stat().st_size != size:
        raise SSTError(
            f"{path} has {path.stat().st_size} bytes, not the published {size}: delete it and fetch it again"
        )
    if _sha256(path) != sha256:
        raise SSTError(f"{path} fails its SHA-256 checksum (expected {sha256}): delete it and fetch it again")


def fetch_archive(raw_dir: str | Path, allow_download: bool = False, url: str = URL) -> Path:
    """The verified archive under ``raw_dir/sst/``, downloading it first when allowed (atomically: a failed or
    corrupted download leaves nothing behind)."""
    target = Path(raw_dir) / "sst" / ARCHIVE
    if target.is_file():
        verify_archive(target)
        return target
    if not allow_download:
        raise SSTError(
            f"dataset 'sst' is not available: {target} does not exist and data.allow_download is false. To provide "
            f"it: set data.allow_download: true on a machine with internet, or put {ARCHIVE} from {URL} there"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{ARCHIVE}.", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with open(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:  # noqa: S310 (fixed https URL)
            shutil.copyfileobj(response, out)
        verify_archive(tmp)
        tmp.replace(target)
    except OSError as exc:
        raise SSTError(
            f"dataset 'sst': download from {url} failed ({exc}); retry, or put {ARCHIVE} in {target.parent}"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    return target


def parse_tree(line: str) -> tuple[int, list[str]]:
    """(root label, leaf tokens) of one PTB-format sentiment tree."""
    line = line.strip()
    if not line.startswith("(") or len(line) < 3 or not line[1].isdigit():
        raise ValueError(f"not a sentiment tree: {line[:60]!r}")
    tokens = _LEAF.findall(line)
    if not tokens:
        raise ValueError(f"sentiment tree without leaves: {line[:60]!r}")
    return int(line[1]), tokens


def read_split(archive: str | Path, split: str) -> tuple[list[list[str]], np.ndarray]:
    """Token lists and int64 labels of ``split`` (train, dev or test) from the archive."""
    with zipfile.ZipFile(archive) as z, z.open(f"trees/{split}.txt") as raw:
        parsed = [parse_tree(line) for line in io.TextIOWrapper(raw, encoding="utf-8") if line.strip()]
    return [tokens for _, tokens in parsed], np.array([label for label, _ in parsed], dtype=np.int64)


def build_vocabulary(sentences: Iterable[Sequence[str]], min_freq: int = 1, lowercase: bool = True) -> list[str]:
    """``<pad>``, ``<unk>``, then the tokens seen at least ``min_freq`` times, most frequent first (ties: A-Z)."""
    counts = Counter(t.lower() if lowercase else t for sentence in sentences for t in sentence)
    kept = sorted((t for t, n in counts.items() if n >= min_freq), key=lambda t: (-counts[t], t))
    return ["<pad>", "<unk>", *kept]


def encode(
    sentences: Sequence[Sequence[str]], vocabulary: Sequence[str], max_len: int, lowercase: bool = True
) -> np.ndarray:
    """(N, max_len) int64 token ids: unknown tokens -> ``<unk>``, cut at ``max_len``, padded with ``<pad>``."""
    index = {t: i for i, t in enumerate(vocabulary)}
    out = np.full((len(sentences), max_len), PAD, dtype=np.int64)
    for row, sentence in enumerate(sentences):
        ids = [index.get(t.lower() if lowercase else t, UNK) for t in sentence[:max_len]]
        out[row, : len(ids)] = ids
    return out


def sst_arrays(
    archive: str | Path, *, max_len: int = 56, min_freq: int = 1, lowercase: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(x_train, y_train, x_test, y_test, vocabulary) of SST-5 with the vocabulary of the training split."""
    train_tokens, y_train = read_split(archive, "train")
    test_tokens, y_test = read_split(archive, "test")
    vocabulary = build_vocabulary(train_tokens, min_freq, lowercase)
    return (
        encode(train_tokens, vocabulary, max_len, lowercase),
        y_train,
        encode(test_tokens, vocabulary, max_len, lowercase),
        y_test,
        vocabulary,
    )


def stand_in_arrays(
    rng: np.random.Generator, *, n_train: int, n_test: int, vocab_size: int, max_len: int, n_classes: int = len(CLASSES)
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Random token ids and labels with SST's layout (plumbing only: nothing can be learnt from them), for the smoke
    profile where the archive cannot be downloaded."""
    lengths = rng.integers(1, max_len + 1, size=n_train + n_test)
    x = rng.integers(UNK + 1, vocab_size, size=(n_train + n_test, max_len), dtype=np.int64)
    x[np.arange(max_len)[None, :] >= lengths[:, None]] = PAD
    y = rng.integers(0, n_classes, size=n_train + n_test).astype(np.int64)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]
