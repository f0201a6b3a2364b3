"""Keyword chunking: a new chunk wherever a line starts with a keyword (or a regex matches).

Many documents announce their own sections with a recurring word: "Article 4", "Ticket HC-20417",
"Q:", "SCHEDULE 2", "Step 3". Cutting there gives chunks that each hold one article, ticket or
question, labelled with the keyword that opened it. `suggest_keywords` finds such words in the
document itself, so the chunker does something useful with no keywords given.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from typing import Annotated, Iterator, Literal

from ..caches import PER_TEXT, cached
from ..constraints import Param
from ..core import Chunker, ChunkSpan, ParameterError, register
from ..formats.blocks import DocumentFormat, section_metadata
from ..formats.markdown import line_starts
from ..text.length import DEFAULT_CHUNK_SIZE, TokenizerParam, UnitParam, UnitSized, length_function
from ..text.spans import trim_span
from .sections import cached_blocks, heading_blocks, section_pieces, structure_format

__all__ = ["KeywordChunker", "keyword_counts", "suggest_keywords"]

MatchWhere = Literal["line_start", "heading", "anywhere"]

#: What may precede a keyword at a line start: indentation and decoration such as "## ", "=== ",
#: "**", "> " or "- " (one character class, so matching stays linear).
_LEAD = r"[ \t#=*>_~-]*"
_LINE_START = r"(?:(?<=\n)|(?<=\r)|\A)"
#: A label at the start of a paragraph: a word, then a colon ("Q:") or an identifier that ends the
#: label ("Ticket HC-20417 ·", "SCHEDULE 1:", "Part A:", "Chapter IV" at the line end; not the
#: "In 2019," of a sentence).
_LABEL = re.compile(
    _LINE_START + _LEAD + r"(?P<word>[^\W\d_][^\W\d]{0,29})"
    r"(?:(?P<colon>:)|[ \t]+(?:[A-Z]{1,4}-?\d[\w.-]*|\d[\w.-]*|[A-Z]|[IVXLC]+)(?=[ \t]*(?:[:.·|=—–-]|\r|\n|\Z)))"
)
_PARAGRAPH_START = re.compile(r"\A|\n[ \t]*\r?\n|\r[ \t]*\r")


def keyword_counts(text: str, case_sensitive: bool = False) -> Counter[str]:
    """How many paragraphs of `text` open with each label-like word (see `suggest_keywords`).

    Without `case_sensitive`, spellings that differ only in case are counted together under the
    most frequent one.
    """
    if not isinstance(text, str):
        raise TypeError(f"keyword_counts expects a str, got {type(text).__name__}")
    found: list[str] = []
    for start in _paragraph_starts(text):
        m = _LABEL.match(text, start)
        if m:
            found.append(m["word"] + (":" if m["colon"] else ""))
    if case_sensitive:
        return Counter(found)
    spellings: dict[str, Counter[str]] = {}
    for word in found:
        spellings.setdefault(word.casefold(), Counter())[word] += 1
    return Counter({c.most_common(1)[0][0]: sum(c.values()) for c in spellings.values()})


def _paragraph_starts(text: str) -> Iterator[int]:
    for m in _PARAGRAPH_START.finditer(text):
        yield m.end()


def suggest_keywords(
    text: str, min_count: int = 2, max_keywords: int = 5, case_sensitive: bool = False
) -> tuple[str, ...]:
    """Keywords that open sections of `text`, proposed from the text itself.

    A candidate is the first word of a paragraph (after indentation and decoration such as "=== ")
    when a colon or an identifier follows it: "Q:", "Ticket HC-20417", "SCHEDULE 1", "Part A",
    "Article IV". Paragraph starts only, so "A:" (which always follows its "Q:" line) is not
    proposed. The candidates seen at least `min_count` times are returned, most frequent first
    (ties in order of first appearance), at most `max_keywords` of them.
    """
    if min_count < 1 or max_keywords < 0:
        raise ValueError(f"min_count must be >= 1 and max_keywords >= 0, got {min_count} and {max_keywords}")
    counts = keyword_counts(text, case_sensitive)
    return tuple(word for word, n in counts.most_common() if n >= min_count)[:max_keywords]


@register
class KeywordChunker(UnitSized, Chunker):
    """Cut where a keyword starts a line (or sits in a heading, or anywhere), or a regex matches.

    * `keywords`: words or phrases that open a section. Empty: `suggest_keywords` proposes them
      from each text (with no suggestion either, there are no keyword cuts).
    * `pattern`: a regular expression; a section also starts where it matches. Empty: none.
    * `where`: ``"line_start"``: the keyword begins a line, after indentation and decoration such as
      ``## ``, ``=== ``, ``**`` or ``- `` (the regex must match at the line start itself);
      ``"heading"``: the keyword or regex occurs in a heading line (markdown and HTML headings,
      or the numbered clauses and capitalised lines of plain text, see `chunklab.strategies.sections`), and the
      section starts at that heading; ``"anywhere"``: every occurrence starts a section, even mid-line
      (the naive version: "see Article 4" in a sentence cuts too).
    * `case_sensitive`: whether "PART" matches the keyword "Part" (and the regex's case).
    * A keyword matches whole words: "Part" does not open a line that starts with "Parties".

    Each section is then cut into pieces of at most `chunk_size` units, whole blocks packed together
    (`chunklab.strategies.sections.section_pieces`). Metadata: ``keyword`` (the keyword that opened the
    section, as given, or the regex's match; ``""`` for the text before the first cut), ``section``
    (the line that opened it: the section's title, the keyword's label in the document) with
    ``breadcrumb`` (that one title, or none before the first cut) and, on the second and later
    pieces of a long section, ``context`` (that line again, to index with the piece).

    Size contract: every chunk measures at most `chunk_size` (a single character that a tokenizer
    counts as more tokens excepted, see `chunklab.text.pack.fit`).
    """

    name = "keyword"

    def __init__(
        self,
        *,
        keywords: tuple[str, ...] = (),
        pattern: str = "",
        where: MatchWhere = "line_start",
        case_sensitive: bool = False,
        chunk_size: Annotated[int, Param(low=1, slider=(200, 4000, 50), counted_in_unit=True)] = DEFAULT_CHUNK_SIZE,
        format: DocumentFormat = "auto",
        unit: UnitParam = "chars",
        tokenizer: TokenizerParam = "minilm",
    ) -> None:
        self.keywords = keywords
        self.pattern = pattern
        self.where = where
        self.case_sensitive = case_sensitive
        self.chunk_size = chunk_size
        self.format = format
        self.unit = unit
        self.tokenizer = tokenizer
        self.validate()

    def check(self) -> None:
        """Keywords must be non-blank; the pattern must compile."""
        blank = [k for k in self.keywords if not k.strip()]
        if blank:
            raise ParameterError(
                f"KeywordChunker: parameter 'keywords' must hold non-blank strings, got {self.keywords!r}"
            )
        try:
            _compiled(self.pattern, self.case_sensitive)
        except re.error as error:
            raise ParameterError(
                "KeywordChunker: parameter 'pattern' must be a valid regular expression, "
                f"got {self.pattern!r} ({error})"
            ) from None

    def active_keywords(self, text: str) -> tuple[str, ...]:
        """The keywords used on `text`: `keywords`, or the suggested ones when none are given."""
        if self.keywords or self.pattern:
            return self.keywords
        return suggest_keywords(text, case_sensitive=self.case_sensitive)

    def cuts(self, text: str) -> list[tuple[int, str]]:
        """Where sections start and what opened them: ``(offset, label)`` in order, one per offset."""
        keywords = self.active_keywords(text)
        found: dict[int, str] = {}
        for matcher, labels in ((_keyword_regex(keywords, self.where, self.case_sensitive), keywords),
                                (_compiled(self.pattern, self.case_sensitive), None)):
            if matcher is None:
                continue
            for start, label in _matches(text, matcher, self.where, self.format):
                found.setdefault(start, _label(label, labels, self.case_sensitive))
        return sorted(found.items())

    def spans(self, text: str) -> Iterator[ChunkSpan]:
        """Each section's pieces, in order, labelled with the section's keyword."""
        blocks = cached_blocks(text, structure_format(text, self.format))
        measure = length_function(self.unit, self.tokenizer)
        cuts = self.cuts(text)
        starts = [(0, "")] + cuts if not cuts or cuts[0][0] > 0 else cuts
        for (start, label), (end, _) in zip(starts, [*starts[1:], (len(text), "")]):
            heading = _line_at(text, start) if label or start > 0 else ""
            for i, (s, e) in enumerate(section_pieces(text, blocks, start, end, self.chunk_size, measure)):
                metadata = {"keyword": label, **section_metadata([heading] if heading else [])}
                if i and heading:
                    metadata["context"] = heading
                yield s, e, metadata


@cached(PER_TEXT)
def _compiled(pattern: str, case_sensitive: bool) -> re.Pattern[str] | None:
    """The user's regex, compiled once (None when empty)."""
    return re.compile(pattern, 0 if case_sensitive else re.IGNORECASE) if pattern else None


@cached(PER_TEXT)
def _keyword_regex(keywords: tuple[str, ...], where: MatchWhere, case_sensitive: bool) -> re.Pattern[str] | None:
    """One regex for all keywords, longest first, each matching whole words only."""
    if not keywords:
        return None
    words = "|".join(
        (r"(?<!\w)" if k[0].isalnum() or k[0] == "_" else "")
        + re.escape(k)
        + (r"(?!\w)" if k[-1].isalnum() or k[-1] == "_" else "")
        for k in sorted(set(keywords), key=len, reverse=True)
    )
    lead = _LINE_START + _LEAD if where == "line_start" else ""
    return re.compile(f"{lead}(?P<keyword>{words})", 0 if case_sensitive else re.IGNORECASE)


def _matches(text: str, matcher: re.Pattern[str], where: MatchWhere, fmt: DocumentFormat) -> Iterator[tuple[int, str]]:
    """``(section start, matched text)`` for every match of `matcher` where `where` allows."""
    if where == "heading":
        for heading in heading_blocks(text, fmt):
            m = matcher.search(text, heading.start, heading.end)
            if m:
                yield heading.start, _matched(m)
    elif where == "line_start" and "keyword" not in matcher.groupindex:
        for line in dict.fromkeys(line_starts(text)[:-1]):
            m = matcher.match(text, line)
            if m:
                yield line, _matched(m)
    else:
        for m in matcher.finditer(text):
            yield (m.start() if where == "anywhere" else _line_start(text, m.start())), _matched(m)


def _matched(m: re.Match[str]) -> str:
    return (m["keyword"] if "keyword" in m.re.groupindex else m[0]).strip() or m.re.pattern


def _label(matched: str, keywords: tuple[str, ...] | None, case_sensitive: bool) -> str:
    """The keyword as given for a keyword match (whatever its case in the text), else the match."""
    if keywords is None:
        return matched
    return next(
        (k for k in keywords if (k == matched if case_sensitive else k.casefold() == matched.casefold())), matched
    )


def _line_start(text: str, pos: int) -> int:
    """Where the line holding `pos` starts."""
    starts = line_starts(text)
    return starts[bisect.bisect_right(starts, pos) - 1]


def _line_at(text: str, pos: int) -> str:
    """The line holding `pos`, trimmed."""
    starts = line_starts(text)
    i = bisect.bisect_right(starts, pos) - 1
    s, e = trim_span(text, starts[i], starts[min(i + 1, len(starts) - 1)])
    return text[s:e]
