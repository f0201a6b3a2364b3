"""A light language detector for the ten languages the sentence splitter has rules for.

`detect_language` looks at the first `SAMPLE` characters only, so it costs the same on a page and on
a book: first the script (Han ideographs and kana for Chinese and Japanese, Cyrillic for Russian),
then, for Latin-script text, frequent function words that only one of the languages uses ("the",
"und", "les", "los", "della", "não", "het"). Without clear evidence it answers ``"en"``. It is
deterministic and needs no model; it is meant to pick sentence rules, not to label a corpus.
"""

from __future__ import annotations

import re
import typing
from typing import Literal

__all__ = ["LANGUAGES", "Language", "SAMPLE", "detect_language"]

Language = Literal["en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja"]
#: The languages chunklab's regex sentence splitter has rules for (ISO 639-1 codes).
LANGUAGES: tuple[str, ...] = typing.get_args(Language)

#: How many characters from the start of a text the detector reads.
SAMPLE = 2000

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3041-\u309f\u30a0-\u30ff]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_WORD = re.compile(r"[a-z\u00c0-\u024f]+")

# Function words frequent in one language and absent, or rare, in the other five Latin-script
# languages (words shared by two of them, such as "de", "la", "que", "en", "e", "il", are left out).
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "the and of to that it with for this are be have has not you they from which will would were "
              "been their there what when he she his her at on or",
        "de": "der und ist nicht mit von zu dem ein eine einen auf für sich auch wird werden wir im zum zur bei "
              "nach aus oder aber noch nur sind bitte dass über vom sie ich",
        "fr": "les des et est une dans pour pas sur au du aux ce cette ces elle nous vous ils sont avec leur été "
              "être très",
        "es": "el los las y es están pero muy más también ya hay sus ellos nosotros usted",
        "it": "gli della delle degli che di è sono nel nella alla alle dei anche questo questa ci più",
        "pt": "os em uma não com ao na às mais pelo pela seu sua isso foi são é também ela já",
        "nl": "het een van niet op dat voor zijn ook naar wordt worden bij aan uit om maar wij u deze nog kunt "
              "hebben heeft",
    }.items()
}
_LANGUAGE_OF_WORD = {word: lang for lang, words in _FUNCTION_WORDS.items() for word in words}
# Letters only one of these languages writes (Spanish ¿ and ¡ count as letters here): each counts as
# one function word.
_LETTERS = {"de": "ßäöü", "fr": "œêëîû", "es": "ñ¿¡", "it": "ìò", "pt": "ãõ"}


def detect_language(text: str) -> Language:
    """The language of `text` (its first `SAMPLE` characters): one of `LANGUAGES`, ``"en"`` if unsure.

    Script first: a text with at least a fifth of its letters CJK (Chinese and Japanese text often
    carries Latin names and versions) is Japanese when kana make up at least a tenth of them, else
    Chinese; mostly Cyrillic is Russian. A Latin-script text is the language with the most of its
    function words and letters of its own ("ß", "ñ", "ã"...) in the sample, if it has at least two
    and more than English has; otherwise English.
    """
    sample = text[:SAMPLE]
    lowered = sample.lower()
    if sample.isascii():  # no CJK, no Cyrillic, none of the letters below: function words decide
        counts = dict.fromkeys(_FUNCTION_WORDS, 0)
    else:
        han, kana = len(_HAN.findall(sample)), len(_KANA.findall(sample))
        cyrillic, latin = len(_CYRILLIC.findall(sample)), len(_LATIN.findall(sample))
        letters = han + kana + cyrillic + latin
        if not letters:
            return "en"
        if (han + kana) * 5 >= letters:
            return "ja" if kana * 10 >= han + kana else "zh"
        if cyrillic >= letters / 2:
            return "ru"
        counts = {lang: sum(map(lowered.count, _LETTERS.get(lang, ""))) for lang in _FUNCTION_WORDS}
    for word in _WORD.findall(lowered):
        lang = _LANGUAGE_OF_WORD.get(word)
        if lang:
            counts[lang] += 1
    best = max(counts, key=lambda lang: (counts[lang], lang == "en"))
    if best != "en" and counts[best] >= 2 and counts[best] > counts["en"]:
        return typing.cast(Language, best)
    return "en"
