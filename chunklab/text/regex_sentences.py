"""The regex sentence splitter: one compiled pattern finds every place a sentence may end, and a few
rules, with the tables of `chunklab.text.sentence_rules`, decide whether it does.

A candidate end is terminal punctuation (``.`` ``!`` ``?`` ``…``, a spaced ``. . .``) with any closing
quotes and brackets after it, before whitespace; or a Chinese/Japanese terminator (``。！？``) with
its closing brackets, whitespace or not; or a full stop glued between two words ("restarted.Then").
It is a sentence end unless

1. the next word starts in lowercase (an abbreviation we do not know, a quotation carried on by "she
   said", an ellipsis inside a sentence), or, after a closing quote in Chinese or Japanese, a speech
   tag or the particle と follows;
2. the punctuation is a single full stop after an abbreviation whose class says it is not: see
   `chunklab.text.sentence_rules` (titles never end a sentence; "No." only before a number; "etc.",
   "Ltd." and "p.m." before a capitalised word; initials and "U.S." only before a word that opens
   sentences);
3. it is the full stop of an ordinal (German "am 3. Mai") or of an inline list marker.

Numbered or bulleted items run together on one line ("1.) Remove the cover 2.) Hold the button",
"• 9. Check • 10. Clean", "Findings: (i) The gauge ... (ii) Its battery ...") start a sentence of
their own at their marker, as if each stood on its own line: a run of at least two markers in
sequence (1, 2 or a, b or i, ii), each before a capitalised word, or any bullet "•". An enumeration
woven into a sentence ("(i) the gauge was badly placed, (ii) its battery ...") is not cut.
"""

from __future__ import annotations

import re

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
        return not (rules.quote_continuation and text[end - 1] in _CJK_CLOSE
                    and rules.quote_continuation.match(text, end, stop))
    opened = following.start("open")
    if following.end("open") == opened:  # no opener or dash: the next character starts the word, if any
        first = word[:1] if word else text[opened : opened + 1] if opened < stop else ""
    else:
        first = _NEXT_CHAR.match(text, end, stop).group(1)
    if first.islower() and not (rules.lowercase_openers and rules.lowercase_openers.match(text, opened)):
        return False
    if text[dot] != "." or text.startswith(("..", ". .", ".\u00a0."), dot):
        return True
    before = text[max(head, dot - _LOOKBACK) : dot]
    words = before.split()
    if not words or before[-1].isspace():
        return True
    if not words[-1].isascii():
        words[-1] = _UP_TO_CJK.sub("", words[-1])
    token = words[-1].lstrip(_OPENERS)
    if not token or len(token) >= _LOOKBACK - 1:
        return True
    if not text[end : end + 1].isspace() and not token.isalpha():
        return False  # a stop glued to the next word ends a sentence only after a plain word
    if len(token) > 1 and token.isalpha():
        # The usual case, answered early: a word of letters only. Only the tables can make its
        # stop an abbreviation's (the checks below): a key that ends with the word lowercased (of
        # one word, or of several: "et al"), a suffix, or for a short word the first part of an
        # abbreviation written in several words ("z. B.").
        key = token.lower()
        if not (rules.suffixes and key.endswith(rules.suffixes)) and (
            key not in rules.endings
            or (len(token) > 3 and key not in rules.known and (len(words) < 2 or len(words[-2]) > 3))
        ) and (len(token) > 3 or not word or normalise(f"{token}.{word.rstrip('.')}") not in rules.known):
            return True
    previous = words[-2] if len(words) > 1 else ""
    # The first part of an abbreviation written in several words ("z. B.", "EE. UU.", "т. д.").
    if len(token) <= 3 and word and normalise(f"{token}.{word.rstrip('.')}") in rules.known:
        return False
    key = _longest_key(words, rules)
    if key in rules.after_numbers and _NUMBER.fullmatch(previous.rstrip(",")):
        return _closing_ends(text, head, dot, word, rules)
    if key in rules.titles:
        return False
    if key in rules.after_names:
        names = previous[:1].isupper() and not previous.endswith(".") and len(words) > 2
        return names and _closing_ends(text, head, dot, word, rules)
    if key in rules.before_numbers and any(char.isdigit() for char in word):
        return False
    if key in rules.closing or any(token.lower().endswith(s) and len(token) > len(s) for s in rules.suffixes):
        return _closing_ends(text, head, dot, word, rules)
    if (len(token) == 1 and token.isupper()) or (_DOTTED.fullmatch(token) and not token.islower()):
        # An initial or dotted capitals: ambiguous, so only a word that opens sentences ends one.
        return word.rstrip(".,;:").lower() in rules.starters and _closing_ends(text, head, dot, word, rules)
    if _DOTTED.fullmatch(token):
        return _closing_ends(text, head, dot, word, rules)
    if rules.ordinal_words and token.isdigit() and len(token) <= 2:
        return not (previous.lower() in rules.ordinal_words or word.rstrip(".,").lower() in rules.months)
    return True


def _longest_key(words: list[str], rules: SentenceRules) -> str:
    """The abbreviation that ends with the last of `words`: three words, two or one ("и т. д")."""
    for n in (3, 2):
        # The words before the last of such an abbreviation are short ("et", "z.", "EE.", "и т.").
        if len(words) >= n and len(words[-2]) <= 3:
            key = normalise("".join(words[-n:]).lstrip(_OPENERS))
            if key in rules.known:
                return key
    return normalise(words[-1].lstrip(_OPENERS))


def _closing_ends(text: str, head: int, dot: int, word: str, rules: SentenceRules) -> bool:
    """After an abbreviation that may end a sentence: it does before a capitalised word (not one in
    brackets: "6 p.m. (local time)"), unless the words before it are too few to be a sentence (fewer
    than three, or a preposition and at most three more: "The E.U. Commission", "At 5 a.m. Mr. Smith
    left")."""
    if not word[:1].isupper() or text[dot + 1 : dot + 8].lstrip()[:1] in ("(", "["):
        return False
    fragment = text[head:dot]
    if len(fragment) > 60:
        return True
    words = fragment.split()
    return not (len(words) < 3 or (len(words) <= 4 and words[0].lstrip(_OPENERS).lower() in rules.prepositions))


def _inline_items(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    """The spans of the markers of inline list items in ``text[start:stop]`` (see the module docstring)."""
    bullets, labels = [], []
    # Without a bullet, only the ends with a space or tab after them are read (the same ends).
    ends = _ITEM_END if text.find("•", start, stop) >= 0 else _LABEL_END
    for m in ends.finditer(text, start, stop):
        end = m.end()
        if text[end : end + 1] not in (" ", "\t"):
            continue
        if m.group().startswith("•"):
            bullets.append(m.span())
            continue
        # The whole word before the end (what follows whitespace), if it is a label.
        label = _LABEL_WORD.search(text, max(start, end - _LABEL_CHARS), end)
        if label is None:
            continue
        begin = label.start()
        if not (_NEXT.match(text, end, stop).group("word") or "")[:1].isupper():
            continue  # "(i) the gauge was badly placed, (ii) ...": an enumeration inside a sentence
        near = max(start, begin - _LOOKBACK)
        opened = text.rfind("(", near, begin) > text.rfind(")", near, begin)
        if label.group("label") and text[begin] != "(" and opened:
            continue  # "(Scope 1)": the bracket closes what it opened, it marks no item
        if label.group("number") and _last_char(text, start, begin) not in ("", ".", ":", ";", "!", "?"):
            continue  # "starts at 8. The bar": a number, not a marker
        labels.append(label)
    in_runs = [
        m.span() for i, m in enumerate(labels)
        if (i and _follows(labels[i - 1], m)) or (i + 1 < len(labels) and _follows(m, labels[i + 1]))
    ]
    return sorted(bullets + in_runs)


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
