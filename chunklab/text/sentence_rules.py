"""What the regex sentence splitter knows about each language: its abbreviations, by class, and a few
word lists. `chunklab.text.regex_sentences` applies them; nothing here is code.

Abbreviations are written as in text, without their final full stop ("z. B", "Ph.D", "т. д"); a
lookup ignores case and spaces, except for single letters, which are looked up as written ("M" is
*Monsieur* in French, "m" is not). Each class decides what a full stop after the word means:

* ``titles``: never the end of a sentence; a name or another word always follows (Dr., z. B., Sr.).
* ``before_numbers``: an abbreviation when a number follows (No. 5, Fig. 3, Nr. 14, каб. 12);
  otherwise an ordinary word ("Was it the pump? No. The battery was flat.").
* ``after_numbers``: a unit after a number (5 ft., 20 мин., 2009 г., 10 h.): it may end a sentence.
* ``closing``: may end a sentence (etc., Ltd., Jr., Oct., a.m., usw., S.p.A.): it does when a
  capitalised word follows, unless what precedes is too short to be a sentence ("At 5 a.m. Mr. Smith
  left" is one sentence: a preposition and two words are not a sentence).
* ``after_names``: ends a name after a capitalised word, opens one otherwise ("Mill St." is a street,
  "St. Agnes" a saint).
* ``suffixes``: word endings that make a word a closing abbreviation (German "Bahnhofstr.").

Initials ("J. R. Moreau", "Plan B.") and dotted capitals ("U.S.", "Ph.D.") are ambiguous in every
language: they end a sentence only before one of the language's ``starters`` (pronouns, articles,
conjunctions, question words: "... in the U.S. Both teams ..."). The splitter handles dotted
lowercase abbreviations it does not know ("z.g.a.n.") as ``closing``.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass

__all__ = ["RULES", "SentenceRules", "normalise"]


def normalise(abbreviation: str) -> str:
    """The lookup key of an abbreviation: lowercased and without spaces, single letters as written."""
    key = abbreviation.replace(" ", "").replace("\u00a0", "")
    return key if len(key) == 1 else key.lower()


def _keys(words: str) -> frozenset[str]:
    """A table column: abbreviations separated by ``|``."""
    return frozenset(normalise(w.strip()) for w in words.split("|") if w.strip())


@dataclass(frozen=True)
class SentenceRules:
    """The abbreviation classes and word lists of one language (see the module docstring)."""

    titles: frozenset[str]
    before_numbers: frozenset[str]
    after_numbers: frozenset[str]
    closing: frozenset[str]
    starters: frozenset[str]
    #: First words of a fronted phrase ("At 5 a.m."): with at most three words after them, what precedes an
    #: abbreviation is not yet a sentence.
    prepositions: frozenset[str]
    after_names: frozenset[str] = frozenset()
    suffixes: tuple[str, ...] = ()
    #: Words before a number that make "3." an ordinal (German "am 3. Mai", "die 2. Verschiebung").
    ordinal_words: frozenset[str] = frozenset()
    #: Month names after a number that make "3." an ordinal.
    months: frozenset[str] = frozenset()
    #: Sentence openers written in lowercase (Dutch "'s Ochtends", "'t Is").
    lowercase_openers: re.Pattern[str] | None = None
    #: What may follow a closing quote or bracket without ending the sentence in Chinese and Japanese
    #: (a speech tag: "“你去吗？”她问。", the quotative particle: "「休みます。」と言った。").
    quote_continuation: re.Pattern[str] | None = None

    @functools.cached_property
    def known(self) -> frozenset[str]:
        """Every abbreviation of the tables (so the first part of "z. B." is known to open one)."""
        return self.titles | self.before_numbers | self.after_numbers | self.closing | self.after_names

    @functools.cached_property
    def endings(self) -> frozenset[str]:
        """Every ending of two characters or more of the keys in `known`: a lowercased word that is
        none of them ends no abbreviation of the tables, of one word or of several."""
        return frozenset(key[i:] for key in self.known for i in range(len(key) - 1))


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


_MONTHS_EN = "jan | feb | mar | apr | jun | jul | aug | sep | sept | oct | nov | dec"
# Titles of other languages that English text keeps with a name ("Sig. Rossi"), and that a text too
# short for the detector to place falls back to English with (none of them is an English word).
_FOREIGN_TITLES = ("mme | mmes | mlle | mlles | hr | hrn | frl | sra | srta | sres | dra | dña | ud | uds | dott"
                   " | dott.ssa | sig | sigg | sig.ra | avv | dhr | mevr | drs | exmo | exma | profa")

ENGLISH = SentenceRules(
    titles=_keys("mr | mrs | ms | mx | messrs | dr | prof | rev | hon | gen | col | capt | lt | sgt | cpl | sen | rep"
                 " | gov | pres | supt | insp | mt | univ | vs | v | approx | ca | c | cf | e.g | i.e | a.k.a"
                 f" | viz | incl | esp | resp | est | {_FOREIGN_TITLES}"),
    before_numbers=_keys("no | nos | nr | fig | figs | p | pp | vol | vols | sec | ch | art | rm | ext | tel | pg"
                         " | ver"),
    after_numbers=_keys("ft | lb | lbs | oz | yd | yds | mi | hr | hrs | min | mins | sec | secs"),
    closing=_keys("etc | et al | ltd | inc | co | corp | llc | plc | bros | jr | sr | esq | ph.d | m.d | b.a | m.a"
                  f" | b.sc | m.sc | d.phil | a.m | p.m | rd | ave | blvd | dept | {_MONTHS_EN}"),
    after_names=_keys("st"),
    starters=_words(
        "i you he she it we they this that these those there here the a an my our your his her its their some "
        "most many all both each every everyone everybody everything nobody nothing none neither but and so yet "
        "then also however still meanwhile later now today tomorrow yesterday after before when while if once "
        "since although though because as in on at by for from with without during who what where why how which "
        "is are was were do does did can could will would should please let thanks yes"
    ),
    prepositions=_words("at by from until till before after around about on in since during for to"),
)

GERMAN = SentenceRules(
    titles=_keys("hr | hrn | fr | frl | dr | prof | dipl | ing | st | z. B | z.B | d. h | d.h | u. a | u.a | bzw"
                 " | ca | ggf | evtl | inkl | zzgl | vgl | sog | u. U | i. d. R | mio | mrd"),
    before_numbers=_keys("nr | abs | art | bd | s | S | tel | fax | kap | abb | tab | ziff"),
    after_numbers=_keys("std | min | sek | jh"),
    closing=_keys("usw | usf | etc | ff | e. V | jan | feb | apr | jun | jul | aug | sep | sept | okt | nov | dez"),
    suffixes=("str",),
    starters=_words(
        "der die das den dem ein eine ich du er sie es wir ihr man dies diese dieser dieses dann danach da dort "
        "hier heute morgen gestern jetzt nun auch aber und oder doch so wer was wie wo wann warum am im in auf "
        "nach vor bei mit für alles nichts niemand jeder viele bitte"
    ),
    prepositions=_words("am um an in im ab bis seit vor nach zum zur bei"),
    ordinal_words=_words("am im zum zur vom beim den dem der die das des ein eine einem einer eines jeden jeder ab"),
    months=_words(
        "januar februar märz april mai juni juli august september oktober november dezember "
        "jan feb mär apr jun jul aug sep sept okt nov dez"
    ),
)

FRENCH = SentenceRules(
    titles=_keys("M | MM | mme | mmes | mlle | mlles | dr | pr | me | st | ste | p. ex | cf | env | av | bd"
                 " | c.-à-d | apr | vs"),
    before_numbers=_keys("p | pp | n | no | vol | chap | art | fig | tél | tel"),
    after_numbers=_keys("h | min | s"),
    closing=_keys("etc | J.-C | cie | janv | févr | avr | juil | sept | oct | nov | déc"),
    starters=_words(
        "le la les un une il elle ils elles on nous vous je ce cette ces mais et puis alors ensuite enfin tout "
        "tous personne rien aujourd’hui demain hier si quand où comment pourquoi qui que merci"
    ),
    prepositions=_words("à au aux en dans de dès depuis vers avant après pour sur"),
)

SPANISH = SentenceRules(
    titles=_keys("sr | sra | srta | sres | dr | dra | D | dña | ud | uds | vd | p. ej | aprox | gral | lic | ing"
                 " | prof | sto | sta | avda | vs"),
    before_numbers=_keys("núm | n | pág | págs | tel | tlf | art | cap | vol | p"),
    after_numbers=_keys("h | min | hs"),
    closing=_keys("etc | EE. UU | S.A | S.L | cía | ene | feb | abr | ago | sept | oct | nov | dic"),
    starters=_words(
        "el la los las un una yo tú él ella nosotros ellos ellas usted ustedes este esta estos estas eso esto "
        "allí aquí ahí pero y luego después entonces también todo todos nadie nada hoy mañana ayer si cuando "
        "donde dónde cómo qué quién por para en gracias"
    ),
    prepositions=_words("a al en de del desde hasta por para con sobre tras ante"),
)

ITALIAN = SentenceRules(
    titles=_keys("sig | sigg | sig.ra | dott | dott.ssa | prof | ing | avv | geom | arch | rag | on | sen | dr"
                 " | ad es | p. es | cfr | ca | vs"),
    before_numbers=_keys("pag | pagg | n | nr | tel | art | cap | vol | fig"),
    after_numbers=_keys("min | h"),
    closing=_keys("ecc | etc | S.p.A | S.r.l | S.n.c | S.a.s | genn | febb | magg | giu | lug | ago | sett | ott"
                  " | nov | dic"),
    starters=_words(
        "il lo la i gli le un una io tu lui lei noi voi loro questo questa quello quella ma e poi dopo allora "
        "anche tutto tutti nessuno niente oggi domani ieri se quando dove come perché chi grazie non è"
    ),
    prepositions=_words("a al alla alle in nel nella da dal di dopo prima entro per su con"),
)

PORTUGUESE = SentenceRules(
    titles=_keys("sr | sra | srta | dr | dra | D | exmo | exma | prof | profa | eng | p. ex | aprox | av | vs"),
    before_numbers=_keys("n | pág | págs | tel | art | cap | vol"),
    after_numbers=_keys("h | min"),
    closing=_keys("etc | lda | S.A | jan | fev | abr | ago | set | out | nov | dez"),
    starters=_words(
        "o a os as um uma eu tu ele ela nós eles elas você isso isto este esta aqui ali mas e depois então "
        "também tudo todos ninguém nada hoje amanhã ontem se quando onde como porque obrigado"
    ),
    prepositions=_words("a ao à às em no na de do da desde até por para com"),
)

DUTCH = SentenceRules(
    titles=_keys("dhr | mevr | mw | mr | dr | drs | ir | ing | prof | bijv | bv | o.a | d.w.z | i.p.v | i.v.m"
                 " | m.b.t | t.a.v | s.v.p | ca | evt | vgl | resp | st"),
    before_numbers=_keys("nr | blz | tel | art | hfdst | fig | p"),
    after_numbers=_keys("min | u"),
    closing=_keys("e.d | enz | etc | B.V | N.V | jan | feb | mrt | apr | jun | jul | aug | sep | sept | okt | nov"
                  " | dec"),
    starters=_words(
        "de het een ik jij je hij zij ze wij we u men dit dat deze die er daar hier maar en dan daarna ook "
        "alles niemand niets vandaag morgen gisteren als wanneer waar hoe waarom wie wat"
    ),
    prepositions=_words("om op in aan bij na voor tot van vanaf"),
    lowercase_openers=re.compile(r"['’][st]\s"),
)

RUSSIAN = SentenceRules(
    titles=_keys("г | ул | пр | просп | пер | т. е | т. к | т. н | в т. ч | напр | см | ср | им | акад | проф | гр"
                 " | пл | обл | р-н"),
    before_numbers=_keys("д | кв | каб | стр | с | тел | рис | табл | гл | п"),
    after_numbers=_keys("г | гг | ч | мин | сек | тыс | млн | млрд"),
    closing=_keys("руб | коп | и т. д | и т. п | и др | т. д | т. п | янв | февр | апр | авг | сент | окт | нояб"
                  " | дек"),
    starters=_words(
        "я ты он она оно мы вы они это этот эта эти тот та там здесь но и а потом затем тогда также всё все "
        "никто ничего сегодня завтра вчера если когда где как почему кто что в на с по для спасибо"
    ),
    prepositions=_words("в на с по до от к у за из о об при через после перед около"),
)

# Chinese and Japanese: the Latin-script parts of such text are mostly English (product names,
# versions, "Ver. 3.3"), so the English tables hold; the CJK terminators need no table.
CHINESE = dataclasses.replace(
    ENGLISH, quote_continuation=re.compile(r"[^\s。！？，、：；“”「」『』]{0,4}[说說问問道答喊叫]了?[。，！]")
)
JAPANESE = dataclasses.replace(ENGLISH, quote_continuation=re.compile(r"と|って"))

#: The rules of every language in `chunklab.text.language.LANGUAGES`, by code.
RULES: dict[str, SentenceRules] = {
    "en": ENGLISH, "de": GERMAN, "fr": FRENCH, "es": SPANISH, "it": ITALIAN, "pt": PORTUGUESE,
    "nl": DUTCH, "ru": RUSSIAN, "zh": CHINESE, "ja": JAPANESE,
}
