"""Chunks in a real vector database: ChromaDB, embedded in the process and persisted in a folder.

One collection per chunker (strategy and parameters), as a RAG system that compares strategies
keeps them: `collection_name` names it after both, so ``fixed`` with ``chunk_size=200`` and with
``chunk_size=800`` live side by side in one store. Everything runs offline:

* vectors come from chunklab's MiniLM (`chunklab.models.embed.default_embedder`, through
  `MiniLMEmbeddingFunction`); Chroma's own default embedding function would download a model, so it
  is never used;
* Chroma's anonymous telemetry is switched off (``Settings(anonymized_telemetry=False)``).

What is stored for a chunk: its text as the document; its vector, made from
`chunklab.evaluation.indexing.indexed_text` (the text alone, or with ``use_context=True`` its
``metadata["context"]`` on a line before it); its metadata flattened to the types Chroma keeps
(`flatten_metadata`) plus ``start`` and ``end``; and an id computed from its source, offsets and
indexed text (`chunk_id`), so indexing the same chunks again changes nothing. Re-indexing a
document replaces its old chunks in that collection. `index_stream` takes the chunks as an iterable
and embeds them in batches, so a large tree is indexed in bounded memory, and says how many chunks
were new.

``use_context`` means what it means in `chunklab.evaluation.comparison.compare`, and is False by
default there and here: `index_documents` with ``use_context=True`` (``chunklab index
--use-context``) makes every chunk with the context `compare(..., use_context=True)` indexes it with
(`chunklab.evaluation.indexing.contextualized`: the chunker's own, else the document's title and
section breadcrumb, by `chunklab.pipeline.files.chunk_document`) and embeds that context with the
text, so a store holds what a comparison measured.

Python::

    from chunklab.pipeline import store
    from chunklab.formats.readers import read_document
    from chunklab.strategies import FixedSizeChunker

    client = store.open_store("chroma-db")
    collection = store.index_documents(client, FixedSizeChunker(chunk_size=400), [read_document("guide.md")])
    for hit in store.query(client, collection.name, "How do I rotate the keys?", where=["source=guide.md"]):
        print(hit.score, hit.chunk.start, hit.chunk.text[:80])

The ``chroma`` retriever of `chunklab.evaluation.comparison.compare` (`chunklab.pipeline.store.ChromaRetriever`)
serves dense retrieval from an in-memory collection through `memory_collection` and `nearest`.
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import json
import os
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import chromadb
import numpy as np
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.config import Settings
from chromadb.utils.embedding_functions import register_embedding_function

from ..core import Chunk, Chunker
from ..evaluation.indexing import indexed_text
from ..evaluation.retrieval import Allowed, DenseRetriever, allowed_masks
from ..formats.document import Document
from ..metadata import metadata_values
from ..models.embed import Embedder, default_embedder
from .export import from_dicts
from .files import chunk_document

__all__ = [
    "ChromaRetriever",
    "Hit",
    "Indexed",
    "MiniLMEmbeddingFunction",
    "chunk_id",
    "collection_name",
    "collections",
    "flatten_metadata",
    "index_chunks",
    "index_documents",
    "index_stream",
    "memory_collection",
    "nearest",
    "open_store",
    "parse_where",
    "query",
]

#: Collection metadata keys chunklab writes (Chroma keeps them with the collection).
STRATEGY_KEY, PARAMS_KEY, FIELDS_KEY = "chunklab:strategy", "chunklab:params", "chunklab:fields"

_SETTINGS = Settings(anonymized_telemetry=False, allow_reset=False)
_COSINE = {"hnsw": {"space": "cosine"}}


@register_embedding_function
class MiniLMEmbeddingFunction(EmbeddingFunction[Documents]):
    """chunklab's offline all-MiniLM-L6-v2 as a Chroma embedding function (unit vectors, cosine space).

    `embedder` defaults to the process-wide `chunklab.models.embed.default_embedder` (one model, one cache).
    Registered with Chroma under `name`, so a collection reopened without an embedding function is
    rebuilt with this one, never with Chroma's downloading default.
    """

    def __init__(self, embedder: Embedder | None = None) -> None:
        self.embedder = embedder

    def __call__(self, input: Documents) -> Embeddings:
        return list((self.embedder or default_embedder())(list(input)))

    @staticmethod
    def name() -> str:
        return "chunklab-minilm"

    def get_config(self) -> dict[str, Any]:
        return {"model": "all-MiniLM-L6-v2"}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> MiniLMEmbeddingFunction:
        return MiniLMEmbeddingFunction()

    def default_space(self) -> Literal["cosine"]:
        return "cosine"

    def supported_spaces(self) -> list[Literal["cosine", "l2", "ip"]]:
        return ["cosine"]


def open_store(path: str | os.PathLike[str], create: bool = True) -> Any:
    """A persistent ChromaDB client on the folder `path` (created when `create`), telemetry off.

    With ``create=False`` a missing folder raises `FileNotFoundError` instead of starting an empty
    store (a mistyped ``--store`` should not look like a store without collections).
    """
    if not create and not os.path.isdir(path):
        raise FileNotFoundError(f"no ChromaDB store at {path}")
    return chromadb.PersistentClient(path=os.fspath(path), settings=_SETTINGS)


def _client(store: Any) -> Any:
    return open_store(store) if isinstance(store, (str, os.PathLike)) else store


# -- names, ids and metadata -----------------------------------------------------------------------
def _param_value(value: Any) -> Any:
    """A parameter value as plain JSON (objects such as an embedder by their type's name)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [_param_value(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return f"<{type(value).__name__}>"


def _params_json(chunker: Chunker) -> str:
    return json.dumps({k: _param_value(v) for k, v in chunker.get_params().items()}, sort_keys=True)


def _slug(text: str) -> str:
    return re.sub(r"\.{2,}", ".", re.sub(r"[^A-Za-z0-9.]+", "_", text)).strip("._")


def collection_name(chunker: Chunker) -> str:
    """A stable, valid Chroma collection name for `chunker`: its strategy, the parameters that differ
    from the defaults (as far as they fit) and a hash of all parameters, e.g.
    ``fixed-chunk_size200-chunk_overlap40-d043c292``. Equal chunkers get the same name, different ones differ."""
    defaults = {name: spec.default for name, spec in chunker.param_specs().items()}
    changed = []
    for key, value in chunker.get_params().items():
        if value == defaults.get(key) or not isinstance(value, (str, int, float, bool)):
            continue
        changed.append(key if value is True else f"no_{key}" if value is False else f"{key}{_slug(str(value))}")
    digest = hashlib.sha256(f"{chunker.name}\0{_params_json(chunker)}".encode()).hexdigest()[:8]
    readable = "-".join([_slug(chunker.name) or "chunker", *changed])[:60].strip("._-")
    return f"{readable}-{digest}"


def chunk_id(chunk: Chunk, use_context: bool = False) -> str:
    """The id of `chunk` in a collection: a hash of its source, offsets and the text its vector is
    made from (`indexed_text` with `use_context`)."""
    key = f"{chunk.metadata.get('source', '')}\0{chunk.start}\0{chunk.end}\0{indexed_text(chunk, use_context)}"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


_SCALAR = (str, int, float, bool)


def flatten_metadata(metadata: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """`metadata` in the shapes Chroma stores: str, int, float, bool, or a non-empty list of one of them.

    Nested mappings become dotted keys (``parent.id``); a list of mappings becomes one list per
    field (``entities.label``); lists of mixed scalars become lists of strings; a list of lists
    (page spans) and anything else becomes its JSON text; None and empty lists are left out. Values
    are made plain first (`chunklab.metadata.metadata_values`: numpy numbers as Python numbers, sets
    as sorted lists).
    """
    flat: dict[str, Any] = {}
    for key, value in metadata_values(metadata).items():
        name = f"{prefix}{key}"
        if value is None:
            continue
        if isinstance(value, _SCALAR):
            flat[name] = value
        elif isinstance(value, Mapping):
            flat.update(flatten_metadata(value, f"{name}."))
        elif isinstance(value, (list, tuple)):
            flat.update(_flatten_list(name, list(value)))
        else:
            flat[name] = json.dumps(value, default=str, ensure_ascii=False)
    return flat


def _flatten_list(name: str, values: list[Any]) -> dict[str, Any]:
    if not values:
        return {}
    if all(isinstance(v, Mapping) for v in values):
        fields = dict.fromkeys(k for v in values for k in v)
        out: dict[str, Any] = {}
        for field in fields:
            column = [v[field] for v in values if isinstance(v.get(field), _SCALAR)]
            out.update(_flatten_list(f"{name}.{field}", column))
        return out
    if all(isinstance(v, _SCALAR) for v in values):
        kinds = {bool if isinstance(v, bool) else type(v) for v in values}
        return {name: values if len(kinds) == 1 else [str(v) for v in values]}
    return {name: json.dumps(values, default=str, ensure_ascii=False)}


def _field_type(value: Any) -> str:
    if isinstance(value, list):
        return f"list:{_field_type(value[0])}"
    return "bool" if isinstance(value, bool) else type(value).__name__


# -- indexing --------------------------------------------------------------------------------------
def _collection(client: Any, chunker: Chunker) -> Any:
    return client.get_or_create_collection(
        collection_name(chunker),
        embedding_function=MiniLMEmbeddingFunction(),
        metadata={STRATEGY_KEY: chunker.name, PARAMS_KEY: _params_json(chunker), FIELDS_KEY: "{}"},
        configuration=_COSINE,
    )


def _batches(n: int, size: int) -> Iterable[slice]:
    return (slice(i, min(i + size, n)) for i in range(0, n, size))


@dataclass(frozen=True)
class Indexed:
    """What `index_stream` did: the Chroma ``collection``, how many chunks were ``new`` (embedded and
    added), how many were ``kept`` (already indexed: their stored vectors reused) and how many old
    chunks of the same sources were ``removed`` (no longer produced)."""

    collection: Any
    new: int
    kept: int
    removed: int


def index_stream(
    store: Any, chunker: Chunker, chunks: Iterable[Chunk], use_context: bool = False, batch_size: int = 256,
) -> Indexed:
    """Put `chunks` (made by `chunker`, each with ``metadata["source"]``) into the chunker's collection,
    `batch_size` chunks at a time, and say what changed.

    Each chunk's vector is made from `indexed_text` ``(chunk, use_context)``: with `use_context`,
    the ``metadata["context"]`` the chunk carries, then its text. Chunks made by
    `chunklab.pipeline.files.chunk_document` with ``use_context=True`` (as `index_documents` and
    ``chunklab index --use-context`` make them) carry the context `compare(..., use_context=True)`
    indexes; chunks made otherwise are embedded with whatever context they have.

    The chunks are consumed as they come (a generator over a large tree is never held whole): the
    texts in memory are one batch's; what grows with the tree is the ids seen so far and the vectors
    (MiniLM's cache of 1.5 KB per text, Chroma's index). A chunk already there (same id: same
    source, offsets and indexed text) keeps its stored vector, so re-indexing embeds only what
    changed and indexing twice is idempotent; its metadata is rewritten (``total_chunks`` may have
    changed). Chunks of the same sources that are no longer produced (an edited document) are
    deleted. `store` is a folder or a client from `open_store`.
    """
    if batch_size < 1:
        raise ValueError(f"index_stream: batch_size must be >= 1, got {batch_size}")
    client = _client(store)
    collection = _collection(client, chunker)
    fresh: dict[str, str] = {}  # id -> source, every chunk seen
    fields = json.loads((collection.metadata or {}).get(FIELDS_KEY, "{}"))
    new = kept = 0
    batch: dict[str, Chunk] = {}
    size = min(batch_size, client.get_max_batch_size())
    for chunk in itertools.chain(chunks, [None]):
        if chunk is not None:
            key = chunk_id(chunk, use_context)
            if key not in fresh:
                fresh[key] = chunk.metadata.get("source", "")
                batch[key] = chunk
        if batch and (chunk is None or len(batch) >= size):
            added = _upsert(collection, batch, use_context, fields)
            new, kept, batch = new + added, kept + len(batch) - added, {}
    removed = 0
    for source in dict.fromkeys(fresh.values()):
        stale = [i for i in collection.get(where={"source": source}, include=[])["ids"] if i not in fresh]
        if stale:
            collection.delete(ids=stale)
            removed += len(stale)
    collection.modify(metadata={**collection.metadata, FIELDS_KEY: json.dumps(fields, sort_keys=True)})
    return Indexed(collection, new, kept, removed)


def index_chunks(store: Any, chunker: Chunker, chunks: Iterable[Chunk], use_context: bool = False) -> Any:
    """`index_stream` returning only the Chroma collection."""
    return index_stream(store, chunker, chunks, use_context).collection


def _upsert(collection: Any, batch: Mapping[str, Chunk], use_context: bool, fields: dict[str, str]) -> int:
    """Write one batch of chunks (by id) with their vectors; returns how many were not stored before."""
    ids = list(batch)
    chunks = list(batch.values())
    metadatas = [{**flatten_metadata(c.exported_metadata()), "start": c.start, "end": c.end} for c in chunks]
    vectors, added = _vectors(collection, ids, [indexed_text(c, use_context) for c in chunks])
    collection.upsert(ids=ids, embeddings=vectors, documents=[c.text for c in chunks], metadatas=metadatas)
    _record_fields(fields, metadatas)
    return added


def _vectors(collection: Any, ids: Sequence[str], texts: Sequence[str]) -> tuple[np.ndarray, int]:
    """The vector of each id (the one stored in `collection` if there is one, else MiniLM's of its
    text), and how many had to be embedded."""
    found = collection.get(ids=list(ids), include=["embeddings"])
    stored = dict(zip(found["ids"], found["embeddings"]))
    vectors = np.zeros((len(ids), default_embedder().dim), dtype=np.float32)
    missing = [i for i, key in enumerate(ids) if key not in stored]
    if missing:
        vectors[missing] = default_embedder()([texts[i] for i in missing])
    for i, key in enumerate(ids):
        if key in stored:
            vectors[i] = stored[key]
    return vectors, len(missing)


def _record_fields(fields: dict[str, str], metadatas: Sequence[Mapping[str, Any]]) -> None:
    """Add the type of every metadata field to `fields` (kept in the collection's metadata for `parse_where`)."""
    for metadata in metadatas:
        for key, value in metadata.items():
            kind = _field_type(value)
            if fields.setdefault(key, kind) != kind:
                fields[key] = "float" if {fields[key], kind} == {"int", "float"} else "str"


def index_documents(store: Any, chunker: Chunker, documents: Iterable[Document], use_context: bool = False) -> Any:
    """Chunk each `chunklab.Document` as ``chunklab chunk`` does (`chunklab.pipeline.files.chunk_document`:
    its name as ``source``, pages for a PDF) and `index_chunks` the result.

    With `use_context`, every document's chunks are indexed with a context before their text, by the
    rule of `compare(..., use_context=True)` (`chunklab.evaluation.indexing.contextualized`): the
    chunker's own, else the document's title and section breadcrumb, which is then also stored in
    the chunk's metadata as ``context``."""
    chunks = (c for doc in documents for c in from_dicts(chunk_document(chunker, doc, use_context)))
    return index_chunks(store, chunker, chunks, use_context)


def collections(store: Any) -> list[dict[str, Any]]:
    """Every collection of the store: ``name``, ``strategy``, ``params`` (dict) and ``count``."""
    client = _client(store)
    out = []
    for collection in client.list_collections():
        metadata = collection.metadata or {}
        out.append({"name": collection.name, "strategy": metadata.get(STRATEGY_KEY),
                    "params": json.loads(metadata.get(PARAMS_KEY, "{}")), "count": collection.count()})
    return sorted(out, key=lambda c: c["name"])


# -- querying --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Hit:
    """One retrieved chunk: the `Chunk` (offsets, flattened metadata), its cosine similarity, its id,
    and the spans of its document that are sent for it (`sent`: the whole chunk, unless a budget
    de-duplicated it against better hits; see `query`)."""

    chunk: Chunk
    score: float
    id: str
    sent: tuple[tuple[int, int], ...] = ()

    def __post_init__(self) -> None:
        if not self.sent:
            object.__setattr__(self, "sent", ((self.chunk.start, self.chunk.end),))

    @property
    def sent_text(self) -> str:
        """The text sent for this hit: its `sent` spans of the chunk's text, joined by a blank line."""
        c = self.chunk
        return "\n\n".join(c.text[start - c.start : end - c.start] for start, end in self.sent)

    def record(self) -> dict[str, Any]:
        """The hit as a plain dict (the chunk's record plus ``score``, ``id`` and the ``sent`` spans)."""
        c = self.chunk
        return {"id": self.id, "score": self.score, "text": c.text, "start": c.start, "end": c.end,
                "index": c.index, "metadata": c.exported_metadata(), "sent": [list(span) for span in self.sent]}


_OPERATORS = {">=": "$gte", "<=": "$lte", "!=": "$ne", ">": "$gt", "<": "$lt", "=": "$eq"}
_CONDITION = re.compile(r"^\s*([^<>=!\s][^<>=!]*?)\s*(>=|<=|!=|=|>|<)\s*(.*?)\s*$", re.DOTALL)


def parse_where(conditions: Sequence[str], fields: Mapping[str, str]) -> dict[str, Any] | None:
    """Chroma's ``where`` filter for ``KEY=VALUE`` conditions (also ``!=``, ``>``, ``>=``, ``<``, ``<=``).

    `fields` gives each metadata key's type (a collection records them when chunks are indexed), so
    ``page=3`` compares with the number 3 and ``source=2024.md`` with a string. A list field
    (``entities=Ada Brook``) matches when the list contains the value. All conditions must hold.
    Raises `ValueError` naming the condition for an unknown key or a value of the wrong type.
    """
    clauses = []
    for condition in conditions:
        match = _CONDITION.match(condition)
        if not match:
            raise ValueError(f"filter {condition!r} is not KEY=VALUE (or KEY>=VALUE, KEY!=VALUE, ...)")
        key, op, raw = match.groups()
        if key not in fields:
            keys = ", ".join(sorted(fields))
            raise ValueError(f"filter {condition!r}: no chunk has the metadata key {key!r}; keys: {keys}")
        kind = fields[key]
        element = kind.removeprefix("list:")
        value = _typed(raw, element, condition)
        if kind.startswith("list:"):
            if op not in ("=", "!="):
                raise ValueError(f"filter {condition!r}: {key!r} is a list; use = (contains) or != (does not contain)")
            clauses.append({key: {"$contains" if op == "=" else "$not_contains": value}})
        else:
            clauses.append({key: {_OPERATORS[op]: value}})
    if not clauses:
        return None
    return clauses[0] if len(clauses) == 1 else {"$and": clauses}


def _typed(raw: str, kind: str, condition: str) -> Any:
    try:
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
    except ValueError:
        raise ValueError(f"filter {condition!r}: the value must be a number") from None
    if kind == "bool":
        if raw.lower() not in ("true", "false"):
            raise ValueError(f"filter {condition!r}: the value must be true or false")
        return raw.lower() == "true"
    return raw


def query(
    store: Any, collection: str, question: str, k: int = 5,
    where: Mapping[str, Any] | Sequence[str] | None = None, budget: int | None = None,
) -> list[Hit]:
    """The `k` chunks of `collection` most similar to `question`, best first.

    `where` is Chroma's filter dict, or ``KEY=VALUE`` strings for `parse_where` (e.g.
    ``["source=report.pdf", "page>=3"]``). Raises `ValueError` for an unknown collection (listing
    the known ones) or a bad filter.

    With a `budget` (characters the reader receives, whitespace included), `k` is ignored: hits are
    taken best first, each sending only the text of its document that better hits have not sent
    already (`chunklab.evaluation.expand.new_text_only`: overlapping chunks never pay for the same
    character twice), until the budget is spent; the last one is cut at the budget. A hit that
    would send nothing new is left out. Each hit's `sent` holds its spans.
    """
    if budget is not None and budget < 1:
        raise ValueError(f"query: parameter 'budget' must be a positive number of characters, got {budget!r}")
    client = _client(store)
    names = [c.name for c in client.list_collections()]
    if collection not in names:
        raise ValueError(f"no collection {collection!r} in this store; it has: {', '.join(sorted(names)) or 'none'}")
    handle = client.get_collection(collection, embedding_function=MiniLMEmbeddingFunction())
    if where is not None and not isinstance(where, Mapping):
        where = parse_where(list(where), json.loads((handle.metadata or {}).get(FIELDS_KEY, "{}")))
    size = handle.count()
    if not size or k < 1:
        return []
    depth = min(size, k if budget is None else max(k, _BUDGET_DEPTH))
    found = handle.query(query_embeddings=default_embedder()([question]), n_results=depth, where=where or None,
                         include=["documents", "metadatas", "distances"])
    hits = [
        Hit(Chunk(text, meta["start"], meta["end"], int(meta.get("chunk_index", 0)), meta), 1.0 - float(distance), id_)
        for id_, text, meta, distance in zip(found["ids"][0], found["documents"][0], found["metadatas"][0],
                                             found["distances"][0])
    ]
    return hits if budget is None else _within_budget(hits, budget)


#: How many hits a budgeted `query` ranks at most before it spends the budget on their new text.
_BUDGET_DEPTH = 100


def _within_budget(hits: Sequence[Hit], budget: int) -> list[Hit]:
    """`hits`, best first, each with the spans of new text it sends, until `budget` characters are spent."""
    from ..evaluation.expand import new_text_only

    # new_text_only gives each hit's new pieces in hit order, each inside its own hit's span (text
    # outside every earlier hit): one pass hands them back to their hits
    pieces = new_text_only([hit.chunk for hit in hits])
    kept, left, next_piece = [], budget, 0
    for hit in hits:
        chunk, source, sent = hit.chunk, hit.chunk.metadata.get("source", ""), []
        while next_piece < len(pieces) and left > 0:
            name, start, end = pieces[next_piece]
            if name != source or not chunk.start <= start < end <= chunk.end:
                break
            end = min(end, start + left)
            sent.append((start, end))
            left -= end - start
            next_piece += 1
        if sent:
            kept.append(Hit(chunk, hit.score, hit.id, tuple(sent)))
        if left <= 0:
            break
    return kept


# -- the in-memory index behind the "chroma" retriever ---------------------------------------------
def memory_collection(vectors: np.ndarray) -> Any:
    """A fresh in-memory Chroma collection holding `vectors` (unit rows) under ids ``"0"``, ``"1"``, ...

    Its HNSW graph is searched with ``ef_search`` of at least the collection size, so on the sizes a
    comparison uses the search is exhaustive and returns the exact cosine top-k.
    """
    client = chromadb.EphemeralClient(settings=_SETTINGS)
    n = len(vectors)
    collection = client.create_collection(
        f"chunklab-{uuid.uuid4().hex}",
        embedding_function=MiniLMEmbeddingFunction(),  # type: ignore[arg-type]  # Chroma's union of input types
        configuration={"hnsw": {"space": "cosine", "ef_search": max(100, n), "ef_construction": max(100, min(n, 400))}},
    )
    for part in _batches(n, client.get_max_batch_size()):
        collection.add(ids=[str(i) for i in range(part.start, part.stop)], embeddings=vectors[part])
    return collection


def nearest(collection: Any, queries: np.ndarray, k: int, masks: Sequence[np.ndarray | None]) -> list[list[int]]:
    """For each query vector, the positions of its `k` nearest vectors in `collection`, best first
    (ties in position order), among those its mask allows (None: all). Queries sharing a mask are
    sent to Chroma together."""
    size = collection.count()
    groups: dict[bytes | None, list[int]] = {}
    for row, mask in enumerate(masks):
        groups.setdefault(None if mask is None else np.asarray(mask, dtype=bool).tobytes(), []).append(row)
    ranked: list[list[int]] = [[] for _ in masks]
    for key, rows in groups.items():
        allowed = None if key is None else [str(i) for i in np.flatnonzero(np.frombuffer(key, dtype=bool))]
        n_results = min(k, size if allowed is None else len(allowed))
        if n_results < 1:
            continue
        found = collection.query(query_embeddings=queries[rows], n_results=n_results, ids=allowed,
                                 include=["distances"])
        for row, ids, distances in zip(rows, found["ids"], found["distances"]):
            ranked[row] = [int(i) for _, i in sorted(zip(distances, map(int, ids)))]
    return ranked


class ChromaRetriever(DenseRetriever):
    """Dense retrieval served by a ChromaDB collection in memory (`chunklab.pipeline.store`).

    The vectors are `DenseRetriever`'s (same embedder, same cache); Chroma stores them and answers
    the queries, with metadata masks sent as id filters. Its HNSW search is made exhaustive for the
    collection's size, so the top-k equal the dense retriever's: what this retriever shows is that
    a real vector database returns what `compare` measured. chromadb is imported on first `index`.
    """

    name = "chroma"

    def __init__(self, embedder: Embedder | None = None) -> None:
        super().__init__(embedder)
        self._collection: Any = None

    def __repr__(self) -> str:
        return f"ChromaRetriever(embedder={self.embedder!r})"

    def index(self, texts: Sequence[str]) -> None:
        """Embed `texts` as `DenseRetriever` does and load the vectors into a fresh Chroma collection."""
        from ..pipeline.store import memory_collection

        super().index(texts)
        self._collection = memory_collection(self._matrix) if texts and self._matrix is not None else None

    def search(self, queries: Sequence[str], k: int, allowed: Allowed = None) -> list[list[int]]:
        """Top-`k` (allowed) texts by cosine similarity, as Chroma ranks them."""
        from ..pipeline.store import nearest

        masks = allowed_masks(allowed, len(queries))
        if self._collection is None or not queries:
            return [[] for _ in queries]
        return nearest(self._collection, self._embed(queries), k, masks)
