"""Embedders: callables that turn a list of texts into a matrix of L2-normalised vectors.

Anything with the signature ``list[str] -> array of shape (n, d)`` works wherever chunklab takes an
embedder (dense retrieval, semantic chunking). Two are provided:

* `MiniLMEmbedder`: all-MiniLM-L6-v2 sentence embeddings (384 dimensions), offline. It uses the
  official sentence-transformers model when that package is installed *and* the model is already in
  the local Hugging Face cache; otherwise the int8 ONNX export with the MiniLM WordPiece tokenizer
  (see `chunklab.models.resources`). Results are cached in memory by text, so re-embedding a chunk that a
  previous chunking already produced costs nothing.
* `TfidfEmbedder`: TF-IDF followed by truncated SVD (latent semantic analysis), a light, fully
  transparent alternative with no neural model at all.

`default_embedder` returns one shared `MiniLMEmbedder`, so every caller shares its cache.

`token_vectors` gives the contextual vector of every word piece of a whole text (the encoder's
output before pooling), with each piece's exact character span; `TokenVectors.pool` mean-pools them
over any spans. That is *late chunking*: the text is encoded in long windows first, and chunk
vectors are pooled afterwards, so every chunk vector has seen the text around the chunk.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import os
import pathlib
import warnings
import zipfile
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..caches import PER_TEXT, RESOURCE, cached
from ..phases import phase
from .resources import (
    MINILM_MAX_TOKENS,
    OFFICIAL_MINILM,
    hf_tokenizer,
    minilm_onnx_session,
    replace_atomically,
    shipped_embeddings_path,
)

__all__ = [
    "MINILM_MAX_POSITIONS",
    "Embedder",
    "MiniLMEmbedder",
    "TfidfEmbedder",
    "TokenVectors",
    "default_embedder",
    "text_key",
    "token_vectors",
    "unit_rows",
]

#: The embedder contract: texts in, one row per text out.
Embedder = Callable[[Sequence[str]], np.ndarray]

MINILM_DIM = 384
#: Positions all-MiniLM-L6-v2's encoder has (those of its BERT-style base model), [CLS] and [SEP]
#: included. Fine-tuning used inputs of at most 128 word pieces and sentence-transformers truncates at
#: 256 (`chunklab.models.resources.MINILM_MAX_TOKENS`); positions beyond that were only seen in pre-training.
MINILM_MAX_POSITIONS = 512


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (all-zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings: ``embedder(texts) -> float32 array (n, 384)``, unit rows.

    Texts longer than `max_tokens` word pieces are truncated (sentence-transformers' limit for this
    model, which was fine-tuned on at most 128), so only the start of a long chunk shapes its vector.
    Uncached texts are embedded in batches of similar length (sorted by token count) so little
    padding is computed. Every vector is cached in memory under a hash of its text; `hits` and
    `misses` count cache look-ups. `persist` keeps the cache in a file as well, so a re-run of a
    long comparison embeds nothing new.

    With `use_shipped` (the default), vectors the course ships for its corpus
    (``data/embeddings/minilm-int8.npz`` in a clone, built by ``scripts/build_embeddings.py``) are
    read, never written, before anything is embedded: a text found there is not embedded again. The
    file is optional: without it every vector is computed, and the same.

    `backend` tells which model ran: ``"sentence-transformers"`` (the official fp32 model, only if
    it is installed and already downloaded; nothing is fetched) or ``"onnx-int8"`` (the bundled
    int8 export, cosine similarity >= 0.999 to the official vectors). It is decided on first use.
    """

    dim = MINILM_DIM

    def __init__(self, batch_size: int = 16, max_tokens: int = MINILM_MAX_TOKENS, use_shipped: bool = True) -> None:
        if batch_size < 1:
            raise ValueError(f"MiniLMEmbedder: batch_size must be >= 1, got {batch_size}")
        if not 2 <= max_tokens <= MINILM_MAX_TOKENS:
            raise ValueError(f"MiniLMEmbedder: max_tokens must be in [2, {MINILM_MAX_TOKENS}], got {max_tokens}")
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self.use_shipped = use_shipped
        self.backend: str | None = None
        self.hits = 0
        self.misses = 0
        self._cache: dict[bytes, np.ndarray] = {}
        self._shipped: dict[bytes, np.ndarray] | None = None
        self._model: Any = None
        self._path: pathlib.Path | None = None
        self._unsaved = 0  # vectors computed since the persist file was last written
        self._saved = 0  # vectors in the persist file when it was last read or written

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(backend={self.backend!r}, cached={len(self._cache)})"

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts`; returns a float32 array of shape ``(len(texts), 384)`` with unit rows."""
        if isinstance(texts, str):
            raise TypeError("MiniLMEmbedder expects a list of strings, not a single string")
        keys = [text_key(t) for t in texts]
        shipped = self._shipped_vectors() if keys else {}
        todo: dict[bytes, str] = {}
        for key, text in zip(keys, texts):
            if key not in self._cache and key not in shipped:
                todo.setdefault(key, text)
        self.misses += len(todo)
        self.hits += len(keys) - len(todo)
        if todo:
            with phase("embedding"):
                vectors = self._embed(list(todo.values()))
            self._cache.update(zip(todo, vectors))
            self._unsaved += len(todo)
            if self._path is not None and self._unsaved >= max(self._saved, 256):
                self.flush()
        if not keys:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._cache[key] if key in self._cache else shipped[key] for key in keys])

    def persist(self, path: str | os.PathLike) -> MiniLMEmbedder:
        """Keep the cache in the ``.npz`` file `path` too: load what it holds now, and write it back
        (merged with whatever other processes wrote there meanwhile, under a file lock, atomically)
        once as many new vectors have been computed as the file held, on `flush`, and when the
        interpreter exits. The file records the backend and `max_tokens`; a file made with other
        settings, or one that cannot be read (truncated, not an ``.npz``), is ignored with a warning
        and replaced on the next write. Returns the embedder.
        """
        self._path = pathlib.Path(path)
        self._decide_backend()
        with _lock(self._path):
            stored = self._read(self._path, warn=True)
        for key, vector in stored.items():
            self._cache.setdefault(key, vector)
        self._saved = len(stored)
        atexit.register(self.flush)
        return self

    def flush(self) -> None:
        """Write the vectors computed since the last write to the `persist` file now, merged with
        what the file holds at this moment (another process may have added vectors meanwhile)."""
        if self._path is None or not self._unsaved:
            return
        with _lock(self._path):
            merged = self._read(self._path, warn=False)
            merged.update(self._cache)
            self._write(self._path, merged)
        self._saved, self._unsaved = len(merged), 0

    def _settings(self) -> str:
        return f"{self.backend} max_tokens={self.max_tokens}"

    def _read(self, path: pathlib.Path, *, warn: bool) -> dict[bytes, np.ndarray]:
        """The vectors stored in `path` for this embedder's settings ({} if none can be used)."""
        if not path.is_file():
            return {}
        try:
            with np.load(path, allow_pickle=False) as stored:
                settings, keys, vectors = str(stored["settings"]), stored["keys"], stored["vectors"]
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as error:
            if warn:
                warnings.warn(f"embedding cache {path} cannot be read ({error}); it is ignored and rebuilt",
                              stacklevel=3)
            return {}
        if settings != self._settings() or keys.shape != (len(vectors), 16) or vectors.shape[1:] != (self.dim,):
            if warn:
                warnings.warn(f"embedding cache {path} was made with other settings ({settings!r}, not "
                              f"{self._settings()!r}); it is ignored and rebuilt", stacklevel=3)
            return {}
        return dict(zip((row.tobytes() for row in keys), vectors))

    def _write(self, path: pathlib.Path, vectors: dict[bytes, np.ndarray]) -> None:
        """Write `vectors` to `path` atomically (a temporary file, then a rename)."""
        keys = np.frombuffer(b"".join(vectors), dtype=np.uint8).reshape(-1, 16)
        matrix = np.stack(list(vectors.values())) if vectors else np.zeros((0, self.dim), np.float32)
        with replace_atomically(path) as tmp:
            np.savez(tmp, keys=keys, vectors=matrix, settings=np.array(self._settings()))

    def _shipped_vectors(self) -> dict[bytes, np.ndarray]:
        """The course's shipped vectors for this embedder's settings (read once; {} if none)."""
        if self._shipped is None:
            self._shipped = {}
            if self.use_shipped:
                self._decide_backend()  # the file's settings are compared with the backend's
                self._shipped = self._read(shipped_embeddings_path(), warn=False)
        return self._shipped

    def _decide_backend(self) -> None:
        """Set `backend` to the one `_load_model` will load, without loading a model: the files this
        embedder reads are for one backend, and a run whose vectors are all stored needs no model."""
        if self.backend is None:
            self.backend = _expected_backend()

    def _load_model(self) -> None:
        if self._model is not None:
            return
        self._model, loaded = _load_minilm(self.max_tokens)
        if self.backend is not None and loaded != self.backend:  # the official model failed to load
            warnings.warn(f"MiniLM loaded with {loaded}, not {self.backend}: the stored vectors of {self.backend} are "
                          "set aside", stacklevel=3)
            self._cache.clear()
            self._shipped = None
            self._saved = 0
        self.backend = loaded

    def _embed(self, texts: list[str]) -> np.ndarray:
        self._load_model()
        if self.backend == "sentence-transformers":
            return unit_rows(self._model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True))
        tokenizer, session = self._model
        encodings = tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for b in range(0, len(order), self.batch_size):
            batch = order[b : b + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            hidden = session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[batch] = unit_rows(pooled)
        return out


def text_key(text: str) -> bytes:
    """The 16-byte key a text's vector is cached under (a BLAKE2b hash of its UTF-8 bytes)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


@contextlib.contextmanager
def _lock(path: pathlib.Path) -> Iterator[None]:
    """Hold the lock file beside `path` (``<path>.lock``): one process at a time reads and writes it."""
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock"):
        yield


def _load_minilm(max_tokens: int) -> tuple[Any, str]:
    """The official sentence-transformers model if installed and cached locally, else the ONNX route."""
    official = _official_minilm(max_tokens)
    if official is not None:
        return official, "sentence-transformers"
    # A private copy of the fast tokenizer: truncation is set on the copy only, so the shared
    # tokenizer (used elsewhere with offsets and no truncation) is left untouched.
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_str(hf_tokenizer("minilm").backend_tokenizer.to_str())
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    return (tokenizer, minilm_onnx_session()), "onnx-int8"


def _expected_backend() -> str:
    """The backend `_load_minilm` picks, found without loading it: ``"sentence-transformers"`` when
    that package is installed and the official model's files are in the local Hugging Face cache."""
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        return "onnx-int8"
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return "onnx-int8"
    found = isinstance(try_to_load_from_cache(OFFICIAL_MINILM, "config.json"), str)
    return "sentence-transformers" if found else "onnx-int8"


def _official_minilm(max_tokens: int) -> Any:
    """`SentenceTransformer` all-MiniLM-L6-v2 from local files, or None if that is not possible."""
    if _expected_backend() != "sentence-transformers":
        return None
    try:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(OFFICIAL_MINILM, device="cpu", local_files_only=True)
    except (ImportError, OSError, ValueError):
        return None
    model.max_seq_length = max_tokens
    return model


@cached(RESOURCE)
def default_embedder() -> MiniLMEmbedder:
    """The process-wide `MiniLMEmbedder` (one model load, one shared cache)."""
    return MiniLMEmbedder()


class TfidfEmbedder:
    """TF-IDF weighted words reduced to `n_components` dimensions by truncated SVD (LSA), unit rows.

    Unfitted (the default), every call fits a fresh model on the texts it is given and embeds them,
    which suits comparing the sentences of one document. After `fit(corpus)` every call embeds with
    that fitted model, which is what retrieval needs (chunks and queries in one space); dense
    retrieval in `chunklab.evaluation.comparison` calls `fit` on the indexed chunks for any embedder that has it.
    When the texts have too few distinct words for the SVD, the TF-IDF vectors are returned as they
    are; texts without a single word between them raise scikit-learn's ``ValueError``.
    """

    def __init__(self, n_components: int = 128, random_state: int = 0) -> None:
        if n_components < 1:
            raise ValueError(f"TfidfEmbedder: n_components must be >= 1, got {n_components}")
        self.n_components = n_components
        self.random_state = random_state
        self._fitted: tuple[Any, Any] | None = None

    def __repr__(self) -> str:
        return f"TfidfEmbedder(n_components={self.n_components}, fitted={self._fitted is not None})"

    def fit(self, texts: Sequence[str]) -> TfidfEmbedder:
        """Fit the vocabulary, IDF weights and SVD on `texts`; later calls embed in that space."""
        self._fitted = self._fit(texts)
        return self

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Embed `texts`: float32 array of shape ``(len(texts), d)`` with unit (or zero) rows."""
        if isinstance(texts, str):
            raise TypeError("TfidfEmbedder expects a list of strings, not a single string")
        if not texts:
            return np.zeros((0, self.n_components), dtype=np.float32)
        vectorizer, svd = self._fitted or self._fit(texts)
        matrix = vectorizer.transform(texts)
        reduced = svd.transform(matrix) if svd is not None else matrix.toarray()
        return unit_rows(reduced)

    def _fit(self, texts: Sequence[str]) -> tuple[Any, Any]:
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        vectorizer = TfidfVectorizer(sublinear_tf=True, token_pattern=r"(?u)\b\w+\b")
        matrix = vectorizer.fit_transform(texts)  # raises ValueError if no text has a single word
        components = min(self.n_components, matrix.shape[1] - 1, matrix.shape[0] - 1)
        if components < 1:
            return vectorizer, None
        return vectorizer, TruncatedSVD(components, random_state=self.random_state).fit(matrix)


@dataclass(frozen=True, eq=False)
class TokenVectors:
    """The contextual vector of every word piece of a text, and the piece's character span.

    `offsets` is an ``(n, 2)`` int array of ``(start, end)`` spans into the text, in order (the
    tokenizer's offsets: whitespace belongs to no piece); `vectors` the ``(n, 384)`` float32 encoder
    outputs (not normalised); `window` the number of word pieces the encoder read at once.
    """

    offsets: np.ndarray
    vectors: np.ndarray
    window: int

    def __len__(self) -> int:
        return len(self.offsets)

    def pool(self, spans: Sequence[tuple[int, int]]) -> np.ndarray:
        """Late chunking: one unit vector per span, the mean of the vectors of the pieces that start
        inside it (``start <= piece start < end``); a span holding no piece gets a zero row."""
        table = np.asarray(spans, dtype=np.int64).reshape(-1, 2)
        if len(self) == 0:
            return np.zeros((len(table), self.vectors.shape[1]), dtype=np.float32)
        starts = self.offsets[:, 0]
        first = np.searchsorted(starts, table[:, 0], side="left")
        last = np.searchsorted(starts, table[:, 1], side="left")
        running = np.cumsum(self.vectors, axis=0, dtype=np.float64)
        totals = np.concatenate([np.zeros((1, self.vectors.shape[1])), running])
        sums = totals[last] - totals[first]
        counts = np.maximum(last - first, 1)[:, None]
        return unit_rows(sums / counts)


def token_vectors(text: str, window: int = MINILM_MAX_POSITIONS - 2, batch_size: int = 4) -> TokenVectors:
    """all-MiniLM-L6-v2's vector for every word piece of `text`, read `window` pieces at a time.

    A text longer than one window is read in windows that overlap by half, and each piece keeps the
    vector of the window in which it sits farthest from an edge, so every piece has at least a
    quarter window of context on each side (except at the text's ends). Each window gets its own
    ``[CLS]`` and ``[SEP]``, which are not returned. `window` is at most 510 (512 positions minus
    those two). Uses the offline ONNX export (`chunklab.models.resources.minilm_onnx_session`) and the
    shared WordPiece tokenizer; results are cached per text and window.
    """
    if not isinstance(text, str):
        raise TypeError(f"token_vectors expects a str, got {type(text).__name__}")
    if not 2 <= window <= MINILM_MAX_POSITIONS - 2:
        raise ValueError(f"token_vectors: window must be in [2, {MINILM_MAX_POSITIONS - 2}], got {window}")
    if batch_size < 1:
        raise ValueError(f"token_vectors: batch_size must be >= 1, got {batch_size}")
    return _token_vectors(text, window, batch_size)


@cached(PER_TEXT)
def _token_vectors(text: str, window: int, batch_size: int) -> TokenVectors:
    tokenizer = hf_tokenizer("minilm")
    encoding = tokenizer.backend_tokenizer.encode(text, add_special_tokens=False)
    ids = np.asarray(encoding.ids, dtype=np.int64)
    offsets = np.asarray(encoding.offsets, dtype=np.int64).reshape(-1, 2)
    n = len(ids)
    vectors = np.zeros((n, MINILM_DIM), dtype=np.float32)
    if n == 0:
        return TokenVectors(offsets, vectors, window)
    starts = _window_starts(n, window)
    owner = _owners(n, starts, min(window, n))
    session = minilm_onnx_session()
    with phase("embedding"):
        for b in range(0, len(starts), batch_size):
            batch = starts[b : b + batch_size]
            width = min(window, n)
            rows = np.empty((len(batch), width + 2), dtype=np.int64)
            rows[:, 0], rows[:, -1] = tokenizer.cls_token_id, tokenizer.sep_token_id
            for r, start in enumerate(batch):
                rows[r, 1:-1] = ids[start : start + width]
            hidden = session.run(
                ["last_hidden_state"],
                {"input_ids": rows, "attention_mask": np.ones_like(rows), "token_type_ids": np.zeros_like(rows)},
            )[0]
            for r, start in enumerate(batch):
                mine = np.flatnonzero(owner[start : start + width] == b + r)
                vectors[start + mine] = hidden[r, 1 + mine]
    return TokenVectors(offsets, vectors, window)


def _window_starts(n: int, window: int) -> list[int]:
    """Starts of windows of `window` pieces over `n` pieces, half a window apart, the last ending at `n`."""
    if n <= window:
        return [0]
    step = max(1, window // 2)
    starts = list(range(0, n - window, step))
    return [*starts, n - window]


def _owners(n: int, starts: Sequence[int], width: int) -> np.ndarray:
    """For every piece, the index of the window whose centre is nearest (the most context)."""
    centres = np.asarray(starts, dtype=np.float64) + width / 2
    positions = np.arange(n, dtype=np.float64) + 0.5
    right = np.clip(np.searchsorted(centres, positions), 1, max(len(centres) - 1, 1))
    if len(centres) == 1:
        return np.zeros(n, dtype=np.int64)
    left = right - 1
    nearer_left = np.abs(positions - centres[left]) <= np.abs(centres[right] - positions)
    return np.where(nearer_left, left, right).astype(np.int64)
