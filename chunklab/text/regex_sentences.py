"""The regex sentence splitter: one compiled pattern finds every place a sentence may end, and a few
rules, with the tables of `chunklab.text.sentence_rules`, decide whether it does.

A candidate end is terminal punctuation (``.`` ``!`` ``?`` ``…``, a spaced ``. . .``) with any closing
quotes and brackets after it, before whitespace; or a Chinese/Japanese terminator (``。！？``) with
its closing brackets, whitespace or not; or a full stop glued between two words ("restarted.Then").
It is a sentence end unless

1. the next word starts in lowercase (an abbreviation we do not know, a quotation carried on by "she
   said", an ellipsis inside a sentence), or, after a closing quote in Chinese or Japanese, a speech
   tag or the particle と follows;
2. the punctuation is a single full stop after an abbreviation whose class says it is not: the
   class is looked up once (`_kind`: the first table of `chunklab.text.sentence_rules` that holds
   the word, else the word's look) and decides through one table (`_VERDICTS`): titles never end a
   sentence; "No." only before a number; "etc.", "Ltd." and "p.m." before a capitalised word;
   initials and "U.S." only before a word that opens sentences;
3. it is the full stop of an ordinal (German "am 3. Mai") or of an inline list marker.

Numbered or bulleted items run together on one line ("1.) Remove the cover 2.) Hold the button",
"• 9. Check • 10. Clean", "Findings: (i) The gauge ... (ii) Its battery ...") start a sentence of
their own at their marker, as if each stood on its own line: a run of at least two markers in
sequence (1, 2 or a, b or i, ii), each before a capitalised word, or any bullet "•". An enumeration
woven into a sentence ("(i) the gauge was badly placed, (ii) its battery ...") is not cut.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple

from .sentence_rules import SentenceRules, normalise
from .spans import trim_span

__all__ = ["regex_sentences"]

#: Characters that may stand before the first letter of a sentence or a word.
_OPENERS = "\"'“‘«»„‚¿¡([{—–"
_CLOSE = "\"'”’“‘»«)\\]」』）】〕》›‹"
_CJK_CLOSE = "」』）】〕》”’)\\]"

# Where a sentence may end (see the module docstring). Every match starts with its terminal
# punctuation (a pattern that starts with one character class is scanned fast): after a CJK
# terminator, more of them and closing brackets; after a full stop glued to the next word, nothing;
# else a spaced ellipsis or more terminal punctuation, closing quotes and brackets (a French closing
# guillemet after a space too), and whitespace after them.
_CANDIDATE = re.compile(
    rf"[.!?…。！？](?:(?<=[。！？])[。！？]*[{_CJK_CLOSE}]*"
    r"|(?<=[a-z][a-z]\.)(?=[A-Z][a-z]+\s)"
    rf"|(?:(?<=\.)(?:[ \u00a0]\.){{2,}}|[.!?…]*)(?:[{_CLOSE}]|[ \u00a0\u202f]»)*(?=\s))"
)
# The first word after a candidate end, past whitespace and opening quotes, brackets and dashes.
_NEXT = re.compile(rf"\s*(?P<open>[{_OPENERS}\s]*)(?P<word>[^\W_][\w'’.-]*)?")
# The first character after a candidate end, past whitespace and dashes ("? — perguntou o Sr. Costa").
_NEXT_CHAR = re.compile(r"[\s—–]*(.?)", re.DOTALL)
# A dotted abbreviation: short letter groups joined by full stops ("U.S", "Ph.D", "z.g.a.n", "J.-C").
_DOTTED = re.compile(r"(?:[^\W\d_]{1,4}\.-?)+[^\W\d_]{1,4}")
_NUMBER = re.compile(r"\d[\d.,]*")
# Everything up to the last CJK character of a word ("どうぞ。Ver" is the word "Ver" after Japanese).
_UP_TO_CJK = re.compile(r".*[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
# Where an inline list marker may end: a bullet (with its number: "• 10."), a closing bracket, a
# full stop after a digit (one character class first, as in `_CANDIDATE`).
_ITEM_END = re.compile(r"[•).](?:(?<=•)(?:[ \t]+\d{1,3}[.)]\)?)?|(?<=\))|(?<=\d\.))")
# `_ITEM_END` other than a bullet, with a space or tab after it (one character class first too).
_LABEL_END = re.compile(r"[).](?:(?<=\))|(?<=\d\.))(?=[ \t])")
# A whole marker before such an end, from the whitespace before it: a label in brackets ("1.)",
# "2)", "b)", "(iv)") or a bare number ("2.").
_LABEL = re.compile(r"\(?(?P<label>\d{1,2}|[a-z]|[ivx]{2,4})\.?\)|(?P<number>\d{1,2})\.")
# A label that is a whole word: after whitespace (the block itself starts after whitespace), up to
# where the search ends, of at most `_LABEL_CHARS` characters ("(viii.)").
_LABEL_WORD = re.compile(rf"(?<!\S)(?:{_LABEL.pattern})\Z")
_LABEL_CHARS = 7
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10}
# Look back at most this many characters for the words before a full stop.
_LOOKBACK = 48


def regex_sentences(text: str, start: int, stop: int, rules: SentenceRules) -> list[tuple[int, int]]:
    """Sentences of ``text[start:stop]`` (one block, see `chunklab.text.sentences.sentence_blocks`),
    as trimmed, non-empty spans into `text`, by the rules of one language."""
    items = _inline_items(text, start, stop)
    cuts, head, k = [], start, 0
    for m in _CANDIDATE.finditer(text, start, stop):
        while k < len(items) and items[k][0] <= m.start():
            cuts.append(items[k][0])
            head = items[k][0]
            k += 1
        if k and m.start() < items[k - 1][1]:
            continue  # the full stop of a list marker
        if _ends_sentence(text, m, head, stop, rules):
            cuts.append(m.end())
            head = m.end()
    cuts.extend(item_start for item_start, _ in items[k:])
    spans, begin = [], start
    for cut in (*cuts, stop):
        span = trim_span(text, begin, cut)
        if span[0] < span[1]:
            spans.append(span)
        begin = cut
    return spans


def _ends_sentence(text: str, m: re.Match[str], head: int, stop: int, rules: SentenceRules) -> bool:
    """Does the candidate `m` end the sentence that starts at `head`?"""
    end, dot = m.end(), m.start()
    following = _NEXT.match(text, end, stop)
    word = following.group("word") or ""
    if text[dot] in "。！？":
        return _cjk_ends(text, end, stop, rules)
    opened = following.start("open")
    if following.end("open") == opened:  # no opener or dash: the next character starts the word, if any
        first = word[:1] if word else text[opened : opened + 1] if opened < stop else ""
    else:
        first = _NEXT_CHAR.match(text, end, stop).group(1)
    if first.islower() and not (rules.lowercase_openers and rules.lowercase_openers.match(text, opened)):
        return False  # goes on in lowercase, and not with one of the language's lowercase openers
    if text[dot] != "." or text.startswith(("..", ". .", ".\u00a0."), dot):
        return True
    return _full_stop_ends(text, head, dot, end, word, rules)


def _cjk_ends(text: str, end: int, stop: int, rules: SentenceRules) -> bool:
    """A Chinese or Japanese terminator ends a sentence unless a closing quote or bracket (before
    `end`) is followed by what carries the sentence on (`SentenceRules.quote_continuation`)."""
    return not (rules.quote_continuation and text[end - 1] in _CJK_CLOSE
                and rules.quote_continuation.match(text, end, stop))


def _full_stop_ends(text: str, head: int, dot: int, end: int, word: str, rules: SentenceRules) -> bool:
    """Does the single full stop at `dot` (its candidate ending at `end`), before the capitalised (or
    no) `word`, end the sentence that starts at `head`? Only the word right before it can say it
    does not; the words before that are read within `_LOOKBACK` characters, the last one cut after
    its last CJK character."""
    before = text[max(head, dot - _LOOKBACK) : dot]
    words = before.split()
    if not words or before[-1].isspace():
        return True
    if not words[-1].isascii():
        words[-1] = _UP_TO_CJK.sub("", words[-1])
    token = words[-1].lstrip(_OPENERS)
    if not token or len(token) >= _LOOKBACK - 1:
        return True  # no word, or one too long to be an abbreviation
    if not text[end : end + 1].isspace() and not token.isalpha():
        return False  # a stop glued to the next word ends a sentence only after a plain word
    if len(token) > 1 and token.isalpha() and not _may_be_abbreviation(token, words, word, rules):
        return True  # the usual case, answered early: a word of letters only that the tables do not hold
    return _abbreviation_ends(_Stop(text, head, dot, word, token, words), rules)


def _abbreviation_ends(stop: _Stop, rules: SentenceRules) -> bool:
    """Does the full stop after a word that may be an abbreviation end the sentence? Not after the
    first part of an abbreviation written in several words ("z. B.", "EE. UU.", "т. д."); else as
    the class of the abbreviation says (`_kind`, `_VERDICTS`)."""
    token, word = stop.token, stop.word
    if len(token) <= 3 and word and _joined_key(token, word) in rules.known:
        return False
    return _VERDICTS[_kind(_longest_key(stop.words, rules), stop, rules)](stop, rules)


def _may_be_abbreviation(token: str, words: list[str], word: str, rules: SentenceRules) -> bool:
    """Can the tables make the full stop after `token` (letters only, two or more) an abbreviation's?
    Only with a suffix, a key that ends with the word lowercased (of one word, or of several after a
    short word: "et al"; a long word must be a key itself), or, for a short word, the first part of
    an abbreviation written in several words ("z. B.")."""
    key = token.lower()
    if rules.suffixes and key.endswith(rules.suffixes):
        return True
    if key in rules.endings and (len(token) <= 3 or key in rules.known or (len(words) > 1 and len(words[-2]) <= 3)):
        return True
    return len(token) <= 3 and bool(word) and _joined_key(token, word) in rules.known


def _joined_key(token: str, word: str) -> str:
    """The key of `token` and the next `word` read as one abbreviation ("z" and "B." give "z.b")."""
    return normalise(f"{token}.{word.rstrip('.')}")


class _Stop(NamedTuple):
    """A full stop after a word that may be an abbreviation: where it is, the sentence's start, the
    word before it (`token`, the last of `words`, without opening quotes or brackets) and the next `word`."""

    text: str
    head: int
    dot: int
    word: str
    token: str
    words: list[str]

    @property
    def previous(self) -> str:
        """The word before `token` ("" if none)."""
        return self.words[-2] if len(self.words) > 1 else ""


def _kind(key: str, stop: _Stop, rules: SentenceRules) -> str:
    """The class that decides the full stop after the abbreviation `key`: the first table of
    `_TABLES` that holds it and whose condition holds here, else what the word looks like (`_shape`)."""
    if key in rules.known:
        for table, condition in _TABLES:
            if key in getattr(rules, table) and condition(stop):
                return table
    return _shape(stop.token, rules)


def _shape(token: str, rules: SentenceRules) -> str:
    """The class of a word before a full stop that no table holds, by its look: a word with a suffix
    of the language or dotted lowercase letters ("Bahnhofstr.", "z.g.a.n.") is closing; an initial
    or dotted capitals ("J.", "U.S.") are initials; a number of one or two digits may be an ordinal
    where the language has them; anything else is a plain word."""
    if _has_suffix(token, rules):
        return "closing"
    dotted = _DOTTED.fullmatch(token) is not None
    if (len(token) == 1 and token.isupper()) or (dotted and not token.islower()):
        return "initials"
    if dotted:
        return "closing"
    if rules.ordinal_words and token.isdigit() and len(token) <= 2:
        return "ordinal"
    return "word"


def _has_suffix(token: str, rules: SentenceRules) -> bool:
    """Does `token` end with one of the language's `suffixes`, after more letters ("Bahnhofstr")?"""
    lowered = token.lower()
    return bool(rules.suffixes) and any(lowered.endswith(s) and len(token) > len(s) for s in rules.suffixes)


def _after_a_number(stop: _Stop) -> bool:
    """Does a number stand before the abbreviation ("5 ft.", "2009 г.")?"""
    return _NUMBER.fullmatch(stop.previous.rstrip(",")) is not None


def _before_a_number(stop: _Stop) -> bool:
    """Does a number follow the abbreviation ("No. 5")?"""
    return any(char.isdigit() for char in stop.word)


def _anywhere(stop: _Stop) -> bool:
    """The condition of the tables whose abbreviations count as such wherever they stand."""
    return True


#: The abbreviation tables of `chunklab.text.sentence_rules`, in the order they are asked, with the
#: condition under which an abbreviation of the table counts as one: a unit only after a number, a
#: "before numbers" word only before one (else, "Was it the pump? No.", it is a plain word).
_TABLES: tuple[tuple[str, Callable[[_Stop], bool]], ...] = (
    ("after_numbers", _after_a_number),
    ("titles", _anywhere),
    ("after_names", _anywhere),
    ("before_numbers", _before_a_number),
    ("closing", _anywhere),
)


def _never(stop: _Stop, rules: SentenceRules) -> bool:
    """Titles and numbered references ("Dr.", "No. 5") never end a sentence."""
    return False


def _always(stop: _Stop, rules: SentenceRules) -> bool:
    """A plain word's full stop ends a sentence."""
    return True


def _name_ends(stop: _Stop, rules: SentenceRules) -> bool:
    """"St." after a capitalised word closes a name ("Mill St."), as a closing abbreviation; before
    one it opens a name ("St. Agnes")."""
    previous = stop.previous
    names = previous[:1].isupper() and not previous.endswith(".") and len(stop.words) > 2
    return names and _closing_ends(stop, rules)


def _initial_ends(stop: _Stop, rules: SentenceRules) -> bool:
    """An initial or dotted capitals ("J. R. Moreau", "U.S.") are ambiguous: only a word that opens
    sentences ends one after them."""
    return stop.word.rstrip(".,;:").lower() in rules.starters and _closing_ends(stop, rules)


def _ordinal_ends(stop: _Stop, rules: SentenceRules) -> bool:
    """A number of one or two digits is an ordinal ("am 3. Mai") after an article or preposition of
    `ordinal_words` or before a month."""
    return not (stop.previous.lower() in rules.ordinal_words or stop.word.rstrip(".,").lower() in rules.months)


def _closing_ends(stop: _Stop, rules: SentenceRules) -> bool:
    """After an abbreviation that may end a sentence: it does before a capitalised word (not one in
    brackets: "6 p.m. (local time)"), unless the words before it are too few to be a sentence (fewer
    than three, or a preposition and at most three more: "The E.U. Commission", "At 5 a.m. Mr. Smith
    left")."""
    text, dot = stop.text, stop.dot
    if not stop.word[:1].isupper() or text[dot + 1 : dot + 8].lstrip()[:1] in ("(", "["):
        return False
    fragment = text[stop.head : dot]
    if len(fragment) > 60:
        return True
    words = fragment.split()
    return not (len(words) < 3 or (len(words) <= 4 and words[0].lstrip(_OPENERS).lower() in rules.prepositions))


#: What the full stop after an abbreviation of each class (`_kind`) means.
_VERDICTS: dict[str, Callable[[_Stop, SentenceRules], bool]] = {
    "after_numbers": _closing_ends,
    "titles": _never,
    "after_names": _name_ends,
    "before_numbers": _never,
    "closing": _closing_ends,
    "initials": _initial_ends,
    "ordinal": _ordinal_ends,
    "word": _always,
}


def _longest_key(words: list[str], rules: SentenceRules) -> str:
    """The abbreviation that ends with the last of `words`: three words, two or one ("и т. д")."""
    for n in (3, 2):
        # The words before the last of such an abbreviation are short ("et", "z.", "EE.", "и т.").
        if len(words) >= n and len(words[-2]) <= 3:
            key = normalise("".join(words[-n:]).lstrip(_OPENERS))
            if key in rules.known:
                return key
    return normalise(words[-1].lstrip(_OPENERS))


def _inline_items(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of the markers of inline list items in ``text[start:stop]`` (see the module docstring)."""
    bullets, labels = [], []
    # Without a bullet, only the ends with a space or tab after them are read (the same ends).
    ends = _ITEM_END if text.find("•", start, stop) >= 0 else _LABEL_END
    for m in ends.finditer(text, start, stop):
        if text[m.end() : m.end() + 1] not in (" ", "\t"):
            continue
        if m.group().startswith("•"):
            bullets.append(m.span())
            continue
        label = _item_label(text, start, stop, m.end())
        if label is not None:
            labels.append(label)
    in_runs = [
        m.span() for i, m in enumerate(labels)
        if (i and _follows(labels[i - 1], m)) or (i + 1 < len(labels) and _follows(m, labels[i + 1]))
    ]
    return sorted(bullets + in_runs)


def _item_label(text: str, start: int, stop: int, end: int) -> re.Match[str] | None:
    """The label that ends at `end` (a match of `_LABEL_WORD`: the whole word before `end`), if it
    may mark an inline list item: before a capitalised word, not a bracket that closes what it
    opened, and a bare number only after the end of a sentence or clause."""
    label = _LABEL_WORD.search(text, max(start, end - _LABEL_CHARS), end)
    if label is None:
        return None
    begin = label.start()
    if not (_NEXT.match(text, end, stop).group("word") or "")[:1].isupper():
        return None  # "(i) the gauge was badly placed, (ii) ...": an enumeration inside a sentence
    near = max(start, begin - _LOOKBACK)
    opened = text.rfind("(", near, begin) > text.rfind(")", near, begin)
    if label.group("label") and text[begin] != "(" and opened:
        return None  # "(Scope 1)": the bracket closes what it opened, it marks no item
    if label.group("number") and _last_char(text, start, begin) not in ("", ".", ":", ";", "!", "?"):
        return None  # "starts at 8. The bar": a number, not a marker
    return label


def _last_char(text: str, start: int, pos: int) -> str:
    """The last character of ``text[start:pos]`` that is not whitespace ("" if none)."""
    while pos > start and text[pos - 1].isspace():
        pos -= 1
    return text[pos - 1] if pos > start else ""


def _follows(first: re.Match[str], second: re.Match[str]) -> bool:
    """Is `second` the next marker after `first` in some numbering (1, 2; a, b; i, ii)?"""
    a, b = _values(first), _values(second)
    return any((kind, n + 1) in b for kind, n in a)


def _values(marker: re.Match[str]) -> set[tuple[str, int]]:
    """What a marker's label may count: a number, a letter's place in the alphabet, a Roman numeral."""
    label = marker.group("label") or marker.group("number")
    if label.isdigit():
        return {("number", int(label))}
    values = {("roman", _ROMAN[label])} if label in _ROMAN else set()
    if len(label) == 1:
        values.add(("letter", ord(label) - ord("a") + 1))
    return values
