"""Unit tests of the core model: Chunk, the Chunker base class, the registry, export."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import pytest

from chunklab import CHUNKERS, Chunk, Chunker
from chunklab.constraints import Param
from chunklab.core import ParameterError, as_spans, content_hash, numbered, register
from chunklab.pipeline.export import from_dicts, read_jsonl, to_dicts, to_langchain, to_llamaindex, write_jsonl
from chunklab.strategies import FixedSizeChunker


class Toy(Chunker):
    """A two-parameter chunker used only here."""

    def __init__(
        self,
        size: Annotated[int, Param(low=1, high=100)] = 10,
        ratio: Annotated[float, Param(low=0.0, high=1.0)] = 0.5,
        mode: Literal["a", "b"] = "a",
        flag: bool = True,
    ):
        self.size, self.ratio, self.mode, self.flag = size, ratio, mode, flag
        self.validate()

    def spans(self, text):
        for start in range(0, len(text), self.size):
            yield start, min(start + self.size, len(text)), {"mode": self.mode}


def test_chunk_rejects_inconsistent_offsets() -> None:
    with pytest.raises(ValueError, match="covers"):
        Chunk("abc", 0, 5)
    with pytest.raises(ValueError, match="start <= end"):
        Chunk("", 3, 2)
    assert len(Chunk("abc", 4, 7)) == 3


class SpansFrom(Chunker):
    """Yields the spans it was given, whatever the text (to test what `Chunker.__call__` accepts)."""

    def __init__(self, given: tuple = ()) -> None:
        self.given = given

    def spans(self, text):
        return iter(self.given)


@pytest.mark.parametrize(
    "span, message", [((0, 9), "covers"), ((3, 2), "start <= end"), ((-1, 2), "start <= end"), ((4, 12), "covers")]
)
def test_call_rejects_spans_outside_the_text(span: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SpansFrom(((0, 2), span))("abcdefgh")


def test_call_builds_the_same_chunks_as_the_constructor() -> None:
    chunks = Toy(size=3)("abcdefg", source="s")
    rebuilt = [Chunk(c.text, c.start, c.end, c.index, dict(c.metadata)) for c in chunks]
    assert chunks == rebuilt and [type(c) for c in chunks] == [Chunk] * 3
    assert list(chunks[0].metadata) == ["source", "chunk_index", "total_chunks", "char_count", "mode"]
    with pytest.raises(AttributeError):
        chunks[0].start = 5  # still frozen


def test_chunk_overlap() -> None:
    assert Chunk("abcd", 0, 4).overlaps(Chunk("cdef", 2, 6)) == 2
    assert Chunk("ab", 0, 2).overlaps(Chunk("cd", 2, 4)) == 0


def test_call_builds_chunks_with_standard_metadata() -> None:
    chunks = Toy(size=4)("abcdefghij", source="letters")
    assert [c.text for c in chunks] == ["abcd", "efgh", "ij"]
    assert chunks[1].metadata == {
        "source": "letters",
        "chunk_index": 1,
        "total_chunks": 3,
        "char_count": 4,
        "mode": "a",
    }
    assert "source" not in Toy()("abc")[0].metadata


def test_content_hash_is_computed_from_the_text_and_exported_not_stored() -> None:
    chunks = Toy(size=4)("abcdefghab")
    assert len(chunks[1].content_hash) == 16 and chunks[1].content_hash == content_hash("efgh")
    assert chunks[0].content_hash == Chunk("abcd", 5, 9).content_hash != chunks[1].content_hash
    assert "content_hash" not in chunks[1].metadata  # reading it writes nothing into the frozen chunk
    assert chunks[1].exported_metadata() == {**chunks[1].metadata, "content_hash": chunks[1].content_hash}
    assert "content_hash" not in chunks[1].metadata


@pytest.mark.parametrize(
    "params, message",
    [
        ({"size": 0}, r"'size' must be in \[1, 100\], got 0"),
        ({"size": 101}, r"'size' must be in \[1, 100\]"),
        ({"size": 2.5}, r"'size' must be an int"),
        ({"size": True}, r"'size' must be an int"),
        ({"ratio": 1.5}, r"'ratio' must be in \[0.0, 1.0\]"),
        ({"ratio": float("nan")}, r"'ratio' must be a number"),
        ({"mode": "c"}, r"'mode' must be one of \['a', 'b'\]"),
        ({"flag": 1}, r"'flag' must be a bool"),
    ],
)
def test_validation_names_parameter_and_range(params: dict, message: str) -> None:
    with pytest.raises(ParameterError, match=message):
        Toy(**params)


def test_parameter_error_is_value_and_type_error() -> None:
    assert issubclass(ParameterError, ValueError) and issubclass(ParameterError, TypeError)


def test_get_set_params_and_repr() -> None:
    toy = Toy(size=7)
    assert toy.get_params() == {"size": 7, "ratio": 0.5, "mode": "a", "flag": True}
    assert repr(toy) == "Toy(size=7)"
    assert toy.set_params(mode="b") is toy and toy.mode == "b"
    with pytest.raises(ParameterError, match="size"):
        toy.set_params(size=0, mode="a")
    assert toy.get_params() == {"size": 7, "ratio": 0.5, "mode": "b", "flag": True}, "failed set_params rolls back"
    with pytest.raises(ValueError, match="no parameter"):
        toy.set_params(colour="red")
    assert toy.clone(size=3).size == 3 and toy.size == 7


def test_registry() -> None:
    assert CHUNKERS["fixed"] is FixedSizeChunker
    with pytest.raises(TypeError, match="name"):
        register(Toy)

    class Other(Toy):
        """Clashes with the fixed chunker's name."""

        name = "fixed"

    with pytest.raises(TypeError, match="already taken"):
        register(Other)


def test_fixed_overlap_must_be_smaller_than_size() -> None:
    with pytest.raises(ValueError, match=r"chunk_overlap.*smaller than 'chunk_size'.*0 <= chunk_overlap <= 99"):
        FixedSizeChunker(chunk_size=100, chunk_overlap=100)


def test_fixed_chars_snap_and_overlap() -> None:
    text = "The quick brown fox jumps over the lazy dog."
    plain = FixedSizeChunker(chunk_size=12)(text)
    assert [c.text for c in plain] == ["The quick br", "own fox jump", "s over the l", "azy dog."]
    snapped = FixedSizeChunker(chunk_size=12, chunk_overlap=4, snap_to_words=True)(text)
    # The overlap never exceeds 4 characters, so it holds a whole word only where one fits ("fox").
    assert [c.text for c in snapped] == ["The quick", "brown fox", "fox jumps", "over the", "the lazy", "lazy dog."]


def test_fixed_words_with_overlap() -> None:
    text = "one two  three\nfour five six seven"
    chunks = FixedSizeChunker(chunk_size=3, chunk_overlap=1, unit="words")(text)
    assert [c.text for c in chunks] == ["one two  three", "three\nfour five", "five six seven"]


def test_export_round_trip(tmp_path) -> None:
    text = "Zoë's café — naïve text. Second sentence here."
    chunks = FixedSizeChunker(chunk_size=20)(text, source="cafe")
    assert from_dicts(to_dicts(chunks)) == chunks
    path = write_jsonl(chunks, tmp_path / "chunks.jsonl")
    assert "Zoë" in path.read_text(encoding="utf-8")
    assert read_jsonl(path) == chunks
    assert json.loads(path.read_text(encoding="utf-8").splitlines()[0])["start"] == 0


def test_langchain_and_llamaindex_shapes() -> None:
    text = "alpha beta gamma delta"
    chunks = FixedSizeChunker(chunk_size=10)(text, source="greek")
    lc = to_langchain(chunks)
    assert set(lc[1]) == {"page_content", "metadata"}
    assert lc[1]["page_content"] == chunks[1].text
    assert lc[1]["metadata"]["start_index"] == chunks[1].start and lc[1]["metadata"]["source"] == "greek"
    li = to_llamaindex(chunks)
    assert set(li[0]) == {"text", "start_char_idx", "end_char_idx", "metadata"}
    assert text[li[1]["start_char_idx"] : li[1]["end_char_idx"]] == li[1]["text"]


def test_chunkers_compare_by_class_and_parameters_and_pickle() -> None:
    import pickle

    assert Toy(size=4) == Toy(size=4) and Toy(size=4) != Toy(size=5)
    assert hash(Toy(size=4)) == hash(Toy(size=4))
    toy = Toy(size=4)
    before = hash(toy)
    assert toy in {toy} and toy.set_params(size=9) in {toy} and hash(toy) == before, "the hash is stable"
    for name, cls in CHUNKERS.items():
        chunker = cls()
        assert pickle.loads(pickle.dumps(chunker)) == chunker, name


def test_deep_params_and_nested_set_params() -> None:
    """get_params(deep=True) and set_params("outer__inner") work as in scikit-learn, on a copy."""
    from chunklab.strategies import HybridChunker
    from chunklab.strategies.hybrid import ExtractiveContext

    shared = ExtractiveContext()
    chunker = HybridChunker(context=shared)
    deep = chunker.get_params(deep=True)
    assert deep["context"] is shared and deep["context__breadcrumb"] is True and "context__lead" in deep
    assert "context__breadcrumb" not in chunker.get_params()
    chunker.set_params(context__breadcrumb=False, context__lead=True, chunk_size=500)
    assert chunker.context == ExtractiveContext(breadcrumb=False, lead=True) and chunker.chunk_size == 500
    assert shared == ExtractiveContext(), "the object another chunker may share is not changed"
    assert chunker.clone(context__title=False).context.title is False and chunker.context.title is True
    with pytest.raises(ParameterError, match="colour"):
        chunker.set_params(context__colour=True)
    with pytest.raises(ParameterError, match="no parameters of its own"):
        chunker.set_params(chunk_size__x=1)
    with pytest.raises(ParameterError, match="nope"):
        chunker.set_params(nope__x=1)
    assert chunker.context.breadcrumb is False, "failed nested set_params changes nothing"


def test_no_chunker_reimplements_the_template_call() -> None:
    import chunklab.integrations.wrapped  # noqa: F401  (the wrappers are chunkers too)
    from chunklab.strategies.granularities import Granularities
    from chunklab.strategies.steps import Pipeline

    def subclasses(cls: type) -> list[type]:
        return [cls, *(s for sub in cls.__subclasses__() for s in subclasses(sub))]

    found = subclasses(Chunker)
    assert {Pipeline, Granularities, CHUNKERS["hybrid"]} <= set(found)
    assert [c.__qualname__ for c in found if c is not Chunker and "__call__" in c.__dict__] == []


def test_numbered_numbers_chunks_made_elsewhere_again() -> None:
    text = "abcdefghij"
    first, second = Toy(size=4)(text[:6], source="x"), Toy(size=4)(text[6:], source="x")
    chunks = numbered(text, [*as_spans(first), *as_spans(second, shift=6)], "x")
    assert [(c.text, c.index) for c in chunks] == [("abcd", 0), ("ef", 1), ("ghij", 2)]
    assert [c.metadata["chunk_index"] for c in chunks] == [0, 1, 2]
    assert {c.metadata["total_chunks"] for c in chunks} == {3}
    assert chunks[2].metadata == {**second[0].metadata, "chunk_index": 2, "total_chunks": 3}
    assert [c.metadata["token_count"] for c in numbered(text, [(0, 3)], measure=lambda t: 7)] == [7]
