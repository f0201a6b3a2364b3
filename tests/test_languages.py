"""Sentences in ten languages: the language detector, the regex splitter's rules per language, which
methods accept which language, pySBD's spans, and words in text without spaces."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunklab.strategies import FixedSizeChunker
from chunklab.text.language import _FUNCTION_WORDS, LANGUAGES, detect_language
from chunklab.text.length import span_measure
from chunklab.text.sentence_rules import RULES
from chunklab.text.sentences import METHOD_LANGUAGES, SENTENCE_METHODS, sentence_spans
from chunklab.text.words import count_words, inside_word, word_spans

#: One short text per language, written for these tests (not from the gold sets).
SAMPLES = {
    "en": "The ferry was late again this morning. Nobody on the pier seemed surprised by it.",
    "de": "Der Zug hatte heute wieder Verspätung. Niemand auf dem Bahnsteig war darüber überrascht.",
    "fr": "Le bac avait encore du retard ce matin. Personne sur le quai ne semblait surpris.",
    "es": "El ferry volvió a llegar tarde esta mañana. Nadie en el muelle parecía sorprendido.",
    "it": "Il traghetto era di nuovo in ritardo stamattina. Nessuno sul molo sembrava sorpreso della cosa.",
    "pt": "O barco voltou a chegar atrasado esta manhã. Ninguém no cais parecia surpreendido com isso.",
    "nl": "De veerboot was vanochtend weer te laat. Niemand op de pier leek daar verbaasd over te zijn.",
    "ru": "Паром сегодня утром снова опоздал. Никто на причале этому не удивился.",
    "zh": "今天早上渡轮又晚点了。码头上没有人感到意外。",
    "ja": "今朝もフェリーが遅れた。桟橋の誰も驚いていなかった。",
}


def texts(text: str, spans: list[tuple[int, int]]) -> list[str]:
    return [text[s:e] for s, e in spans]


@pytest.mark.parametrize("language", LANGUAGES)
def test_detector_finds_each_language(language: str) -> None:
    assert detect_language(SAMPLES[language]) == language


def test_detector_defaults_to_english_and_reads_only_the_start() -> None:
    assert detect_language("") == detect_language("12 345 -- ?") == detect_language("Dr. Lee left.") == "en"
    assert detect_language(" ".join([SAMPLES["de"]] * 30 + [SAMPLES["fr"]] * 300)) == "de"
    assert detect_language("Harbor Cache 3.4.2 のバージョンをインストールしてください。") == "ja"


def test_function_words_belong_to_one_language_and_every_language_has_rules() -> None:
    seen: dict[str, str] = {}
    for language, words in _FUNCTION_WORDS.items():
        for word in words:
            assert seen.setdefault(word, language) == language, f"{word!r}: {seen[word]} and {language}"
    assert set(RULES) == set(LANGUAGES) == set(METHOD_LANGUAGES["regex"])


@pytest.mark.parametrize(
    "text, language, expected",
    [
        ("这是第一句。这是第二句！这是第三句？", "zh", ["这是第一句。", "这是第二句！", "这是第三句？"]),
        ("“你去吗？”她问。“当然去！”大家都笑了。", "zh", ["“你去吗？”她问。", "“当然去！”", "大家都笑了。"]),
        ("彼は「行きます。」と言った。「本当？」誰も信じなかった。", "ja",
         ["彼は「行きます。」と言った。", "「本当？」", "誰も信じなかった。"]),
        ("Die Frist läuft bis zum 3. Mai. Danach ist es zu spät.", "de",
         ["Die Frist läuft bis zum 3. Mai.", "Danach ist es zu spät."]),
        ("Wir brauchen Kabel, Dübel usw. Alles andere ist da. Siehe z. B. Seite 4.", "de",
         ["Wir brauchen Kabel, Dübel usw.", "Alles andere ist da.", "Siehe z. B. Seite 4."]),
        ("Le train part à 10 h. Très bien ! « Et le retour ? » a-t-elle demandé.", "fr",
         ["Le train part à 10 h.", "Très bien !", "« Et le retour ? » a-t-elle demandé."]),
        ("¿Vienes mañana? ¡Claro! Llegamos a EE. UU. Allí nos esperan.", "es",
         ["¿Vienes mañana?", "¡Claro!", "Llegamos a EE. UU.", "Allí nos esperan."]),
        ("Het is mooi weer. 's Middags gaan we zwemmen.", "nl", ["Het is mooi weer.", "'s Middags gaan we zwemmen."]),
        ("Офис в г. Казани открыт с 2015 г. Сейчас там десять человек, и т. д.", "ru",
         ["Офис в г. Казани открыт с 2015 г.", "Сейчас там десять человек, и т. д."]),
    ],
)
def test_regex_rules_per_language(text: str, language: str, expected: list[str]) -> None:
    assert texts(text, sentence_spans(text, language=language)) == expected
    assert sentence_spans(text) == sentence_spans(text, language=language), "detected as given"


def test_english_rules_for_abbreviations_times_and_inline_items() -> None:
    text = (
        "At 5 a.m. Mr. Smith went to the bank. He left at 6 P.M. Mr. Smith then went home. I live in the E.U. "
        'How about you? She turned to him, "This is great." she said. To reset it: 1.) Unplug it 2.) Wait'
    )
    assert texts(text, sentence_spans(text)) == [
        "At 5 a.m. Mr. Smith went to the bank.", "He left at 6 P.M.", "Mr. Smith then went home.",
        "I live in the E.U.", "How about you?", 'She turned to him, "This is great." she said.', "To reset it:",
        "1.) Unplug it", "2.) Wait",
    ]


@pytest.mark.parametrize("method", ["punkt", "spacy", "spacy_model"])
def test_english_only_methods_refuse_other_languages_and_read_auto_as_english(method: str) -> None:
    with pytest.raises(ValueError, match="regex"):
        sentence_spans(SAMPLES["de"], method, language="de")
    assert METHOD_LANGUAGES[method] == ("en",)
    assert sentence_spans(SAMPLES["de"], method) == sentence_spans(SAMPLES["de"], method, language="en")


def test_pysbd_languages_and_exact_spans() -> None:
    from chunklab.models.resources import pysbd_segmenter

    with pytest.raises(ValueError, match="pysbd"):
        sentence_spans(SAMPLES["pt"], "pysbd", language="pt")
    # Detected Portuguese, which pySBD has no rules for: its English rules.
    assert sentence_spans(SAMPLES["pt"], "pysbd") == sentence_spans(SAMPLES["pt"], "pysbd", language="en")
    for language in METHOD_LANGUAGES["pysbd"]:
        text = SAMPLES[language] + "\n" + SAMPLES[language]
        spans = pysbd_segmenter(language).segment(text)
        assert all(text[s.start : s.end] == s.sent for s in spans), "pySBD's character spans are exact"
        found = sentence_spans(text, "pysbd", language=language)
        assert len(found) == 4, (language, texts(text, found))
    with pytest.raises(ValueError, match="language"):
        sentence_spans("x", language="xx")  # type: ignore[arg-type]


@pytest.mark.parametrize("method", SENTENCE_METHODS)
def test_every_method_on_every_language_returns_exact_trimmed_spans(method: str) -> None:
    for language, text in SAMPLES.items():
        if language not in METHOD_LANGUAGES[method]:
            continue
        spans = sentence_spans(text, method, language=language)
        assert spans == sorted(spans) and all(text[s:e] == text[s:e].strip() != "" for s, e in spans)


_PIECES = st.sampled_from(["今", "天", "は", "カ", "。", "，", "Harbor", "3.4", "（", "ab", " ", "\n", "—", "東京"])


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_cjk_characters_are_words_and_word_spans_stay_exact(text: str) -> None:
    spans = word_spans(text)
    assert spans == sorted(spans) and len(spans) == count_words(text)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))
    covered = {i for s, e in spans for i in range(s, e)}
    assert covered == {i for i, char in enumerate(text) if not char.isspace()}
    for s, e in spans:
        piece = text[s:e]
        assert not any(c.isspace() for c in piece)
        assert len(piece) == 1 or not any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in piece)
        assert not inside_word(text, s) and not inside_word(text, e)
    words = span_measure(text, count_words)
    for start in range(len(text) + 1):
        for end in range(start, len(text) + 1, 3):
            assert words(start, end) == count_words(text[start:end])


@given(st.lists(st.sampled_from(["今", "天", "は", "カ", "。", "Harbor", "3.4", "（", "ab"]), min_size=1, max_size=40)
       .map("".join), st.integers(4, 15))
def test_snap_to_words_cuts_cjk_text_between_characters_never_inside_latin_words(text: str, size: int) -> None:
    """Text without spaces (a window that starts on whitespace is another matter: it may still cut the
    next word, CJK or not)."""
    for chunk in FixedSizeChunker(chunk_size=size, snap_to_words=True)(text):
        assert text[chunk.start : chunk.end] == chunk.text and len(chunk.text) <= size
        too_long = any(e - s > size for s, e in word_spans(text) if chunk.start < e and s < chunk.end)
        assert too_long or not (inside_word(text, chunk.start) or inside_word(text, chunk.end))
