"""`CachedRe`: Python's `re` with a larger pattern cache, which pySBD's modules are given."""

import re
import sys
import types

import pytest

from chunklab.models.regex_cache import CachedRe, use_cached_re

TEXT = "Dr. Ellis met Mr. Jones at 10 a.m. on Jan. 5. They spoke of U.S. weirs!\nThen: nothing."


@pytest.mark.parametrize("pattern", [r"\b[A-Z][a-z]+\.", r"(?<=\s)(mr|dr)\.", re.compile(r"\d+"), r"(\w)\.(\s)"])
def test_every_function_answers_like_re(pattern):
    cached = CachedRe(size=4)
    for flags in (0, re.IGNORECASE):
        compiled_flags = 0 if isinstance(pattern, re.Pattern) else flags
        assert cached.sub(pattern, "#", TEXT, flags=compiled_flags) == re.sub(pattern, "#", TEXT, flags=compiled_flags)
        assert cached.sub(pattern, "#", TEXT, 1, compiled_flags) == re.sub(pattern, "#", TEXT, count=1, flags=compiled_flags)
        assert cached.subn(pattern, "#", TEXT, flags=compiled_flags) == re.subn(pattern, "#", TEXT, flags=compiled_flags)
        assert cached.findall(pattern, TEXT, compiled_flags) == re.findall(pattern, TEXT, compiled_flags)
        assert cached.split(pattern, TEXT, 2, compiled_flags) == re.split(pattern, TEXT, maxsplit=2, flags=compiled_flags)
        assert [m.span() for m in cached.finditer(pattern, TEXT, compiled_flags)] == [
            m.span() for m in re.finditer(pattern, TEXT, compiled_flags)]
        for name in ("search", "match", "fullmatch"):
            mine, theirs = getattr(cached, name)(pattern, TEXT, compiled_flags), getattr(re, name)(pattern, TEXT, compiled_flags)
            assert (mine and mine.span()) == (theirs and theirs.span())
    assert cached.escape is re.escape and cached.IGNORECASE == re.IGNORECASE


def test_patterns_are_compiled_once_and_the_cache_is_bounded():
    cached = CachedRe(size=3)
    for _ in range(5):
        cached.sub("a+", "b", "caaat")
    info = cached.compile.cache_info()
    assert info.misses == 1 and info.hits == 4
    for word in ("w1", "w2", "w3", "w4", "w5"):
        cached.search(word, "w5")
    assert cached.compile.cache_info().currsize == 3
    with pytest.raises(ValueError, match="size"):
        CachedRe(size=0)


def test_only_modules_that_use_re_are_given_the_stand_in():
    uses_re, other = types.ModuleType("uses_re"), types.ModuleType("other")
    uses_re.re, other.re = re, "not the module"
    cached = CachedRe()
    assert use_cached_re([uses_re, other], cached) == 1
    assert uses_re.re is cached and other.re == "not the module"
    assert re.sub is not cached.sub, "the re module itself is untouched"


def test_pysbd_reads_its_patterns_from_one_cache():
    pytest.importorskip("pysbd")
    from chunklab.models.resources import pysbd_segmenter
    from chunklab.text.sentences import sentence_spans

    pysbd_segmenter("en")
    abbreviations = sys.modules["pysbd.abbreviation_replacer"]
    assert isinstance(abbreviations.re, CachedRe)
    text = "Dr. Ellis met Mr. Jones at 10 a.m. on Jan. 5. They spoke of U.S. weirs."
    assert sentence_spans(text, "pysbd", cache=False) == [(0, 45), (46, 71)]
    before = abbreviations.re.compile.cache_info().misses
    sentence_spans(text, "pysbd", cache=False)
    assert abbreviations.re.compile.cache_info().misses == before, "a second reading compiles nothing"
