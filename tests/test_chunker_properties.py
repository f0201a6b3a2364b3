"""The property harness every registered chunker runs through automatically.

For each class in `chunklab.CHUNKERS`, with its defaults and with parameters drawn from everything
its constraints allow (not only the teaching ranges `explore` offers): offsets exact, source order, no empty chunks, the size contract, consistent
indices, determinism, and termination on awkward inputs (unicode, CRLF, whitespace, empty, 1 MB).
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from chunklab import CHUNKERS, Chunker
from chunklab.constraints import Choice, Flag, Number
from chunklab.core import ParameterError

NAMES = sorted(CHUNKERS)

WORDS = ["the", "Dr.", "U.S.", "3.5%", "naïve", "東京", "😀", "e\u0301", "x" * 40, "\u200b", "a.m.", "—", '"quoted"']
SEPARATORS = [" ", "  ", "\n", "\r\n", "\r\n\r\n", "\n\n", "\t", ". ", "? ", "\u3000", "\u00a0"]

texts = st.one_of(
    st.text(max_size=600),
    st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), max_size=250).map(
        lambda pairs: "".join(w + s for w, s in pairs)
    ),
)

AWKWARD = {
    "empty": "",
    "whitespace": " \t\r\n  \n\n \u3000 ",
    "cjk": "東京は日本の首都です。人口は約1400万人です。" * 30,
    "emoji": "Family: 👨‍👩‍👧‍👦 flags 🇬🇧🇯🇵 skin 👍🏽. " * 40,
    "combining": "e\u0301 a\u0300 n\u0303 " * 200,
    "crlf": "First line.\r\nSecond line.\r\n\r\nNew paragraph here.\r\n" * 40,
    "single_word": "a" * 5000,
}


#: Where a number's interval is open above, draws stop here.
OPEN_HIGH = 10**6


@st.composite
def params_for(draw: st.DrawFn, cls: type[Chunker]) -> dict:
    """Parameter values drawn from everything each parameter's constraint allows: numbers over
    their whole validated interval (up to `OPEN_HIGH` where it is open), every option, both flags.
    Text, callables and objects keep their defaults; a combination that the chunker's own rules
    refuse (an overlap above the size) is skipped by the test."""
    values = {}
    for name, constraint in cls.constraints().items():
        if isinstance(constraint, Number):
            low = constraint.low if constraint.low is not None else -OPEN_HIGH
            high = constraint.high if constraint.high is not None else OPEN_HIGH
            if constraint.kind is int:
                values[name] = draw(st.integers(int(low), int(high)))
            else:
                values[name] = draw(st.floats(low, high, allow_nan=False))
        elif isinstance(constraint, Choice):
            values[name] = draw(st.sampled_from(constraint.options))
        elif isinstance(constraint, Flag):
            values[name] = draw(st.booleans())
    return values


def check_chunks(chunker: Chunker, text: str) -> None:
    """Assert every promise a chunker makes about its output on `text`."""
    chunks = chunker(text, source="doc")
    limit = chunker.size_limit()
    for i, chunk in enumerate(chunks):
        assert text[chunk.start : chunk.end] == chunk.text, "offsets must be exact"
        assert chunk.text.strip(), "no empty or whitespace-only chunks"
        assert chunk.index == i and chunk.metadata["chunk_index"] == i
        assert chunk.metadata["total_chunks"] == len(chunks)
        assert chunk.metadata["char_count"] == len(chunk.text)
        assert chunk.metadata["source"] == "doc"
        if limit is not None:  # one character is indivisible, whatever it measures (see `UnitSized`)
            assert chunker.measure(chunk.text) <= limit or len(chunk.text) == 1, f"chunk {i} breaks the size contract"
    for a, b in zip(chunks, chunks[1:]):
        assert (a.start, a.end) < (b.start, b.end) and a.end <= b.end, "chunks must follow source order"
    again = chunker(text, source="doc")
    assert again == chunks, "chunking must be deterministic"


@pytest.mark.parametrize("name", NAMES)
def test_registered_chunker_has_good_defaults(name: str) -> None:
    cls = CHUNKERS[name]
    chunker = cls()
    assert cls.name == name
    assert cls.__doc__ and cls.__doc__.strip()
    for param, spec in cls.param_specs().items():
        assert spec.default is not spec.empty, f"{name}.{param} needs a default"
        assert spec.annotation is not spec.empty, f"{name}.{param} needs a type hint"
    assert cls(**chunker.get_params()).get_params() == chunker.get_params()


@pytest.mark.parametrize("name", NAMES)
def test_out_of_range_parameters_raise_clear_errors(name: str) -> None:
    cls = CHUNKERS[name]
    bounded = {param: (d.low, d.high) for param, d in cls.declarations().items() if d.bounded}
    assert bounded, f"{name} declares no interval (every registered chunker has a chunk_size): nothing tested"
    for param, (low, high) in bounded.items():
        for bad in ([low - 1] if low is not None else []) + ([high + 1] if high is not None else []):
            with pytest.raises(ValueError, match=param):
                cls(**{param: bad})
        with pytest.raises(ValueError, match=param):
            cls(**{param: "not a number"})


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data(), text=texts)
def test_properties_hold_for_drawn_parameters(name: str, data: st.DataObject, text: str) -> None:
    cls = CHUNKERS[name]
    params = data.draw(params_for(cls))
    try:
        chunker = cls(**params)
    except ParameterError:
        assume(False)
    check_chunks(chunker, text)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("case", sorted(AWKWARD))
def test_awkward_inputs(name: str, case: str) -> None:
    check_chunks(CHUNKERS[name](), AWKWARD[case])


@pytest.mark.parametrize("name", NAMES)
def test_terminates_on_one_megabyte_single_line(name: str) -> None:
    text = ("filler text that never breaks its line " * 21_000)[:1_000_000]
    chunks = CHUNKERS[name]()(text)
    assert chunks and all(text[c.start : c.end] == c.text for c in chunks)


@pytest.mark.parametrize("name", NAMES)
def test_rejects_non_string_input(name: str) -> None:
    with pytest.raises(TypeError):
        CHUNKERS[name]()(b"bytes are not text")


def _regex_token_spans(text: str) -> list[tuple[int, int]]:
    """A learner's own tokenizer: words and single punctuation marks, as character spans."""
    import re

    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


def _count_only(text: str) -> int:
    """A tokenizer that only counts: about one token per four characters, at least one per word."""
    return max(len(text.split()), (len(text) + 3) // 4)


TOKENIZED = [n for n in NAMES if "tokenizer" in CHUNKERS[n].param_specs()]


@pytest.mark.parametrize("name", TOKENIZED)
@pytest.mark.parametrize("tokenizer", [_regex_token_spans, _count_only], ids=["spans", "count"])
@given(text=texts, size=st.integers(8, 120))
def test_any_tokenizer_holds_the_size_contract(name: str, tokenizer, text: str, size: int) -> None:
    """Every chunker that counts tokens takes a plain function as its tokenizer and keeps its size
    contract in that tokenizer's tokens; a count-only function is refused, clearly, only by the
    chunkers that cut at token boundaries."""
    cls = CHUNKERS[name]
    size = max(size, cls.declarations()["chunk_size"].low or 1)
    params = {"tokenizer": tokenizer, "chunk_size": size}
    if "stride" in cls.param_specs():
        params["stride"] = max(1, size // 2)
    if "unit" in cls.param_specs():
        params["unit"] = "tokens"
    if "min_chunk_size" in cls.param_specs():
        params["min_chunk_size"] = size // 4
    try:
        chunker = cls(**params)
    except ParameterError as error:
        assert tokenizer is _count_only and "needs spans" in str(error), error
        return
    assert chunker.measure("two words") == len(tokenizer("two words")) if tokenizer is _regex_token_spans else True
    check_chunks(chunker, text)
