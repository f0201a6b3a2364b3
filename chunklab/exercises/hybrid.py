"""Notebook 15 (hybrid chunking): a sectioner of your own, what the context header buys and for
whom, and a stand-in model for agentic sectioning."""

from __future__ import annotations

import re

from ..formats.corpus import load_document
from ..strategies.hybrid import HybridChunker, Section, structure_sections
from ..strategies.llm import LLMSectioner
from . import ExerciseFailed, exercise, pick

_TICKET = re.compile(r"^=== (Ticket \S+)", re.MULTILINE)


def solution_ticket_sections(text, fmt):
    parts = list(structure_sections(text, fmt))
    tickets = []
    for m in re.finditer(r"^=== (Ticket \S+)", text, re.MULTILINE):
        enclosing = [s for s in parts if s.start <= m.start()]
        tickets.append(Section(m.start(), (*(enclosing[-1].trail if enclosing else ()), m[1])))
    return sorted(parts + tickets, key=lambda s: s.start)


def _tickets_without_trail(text, fmt):
    return sorted([*structure_sections(text, fmt), *(Section(m.start(), (m[1],)) for m in _TICKET.finditer(text))],
                  key=lambda s: s.start)


def _tickets_only(text, fmt):
    """A wrong answer: the ticket sections, with the part's title, and none of the structure's."""
    part = "PART 2: SUPPORT CHAT TRANSCRIPTS"
    return [Section(m.start(), (part, m[1])) for m in _TICKET.finditer(text)]


@exercise("15.1", "a sectioner that sees the tickets", "implement", solution=solution_ticket_sections,
          wrong=(lambda: structure_sections, lambda: _tickets_without_trail, lambda: _tickets_only))
def check_ticket_sections(sectioner) -> str:
    """Chunk the support transcript with `sectioner`: no chunk may hold two tickets, every chunk of the
    second part sits in its ticket's section, under the part's title, and every section the structure
    finds is kept."""
    support = load_document("support")
    chunks = HybridChunker(sectioner=sectioner)(support.text)
    if not all(support.text[c.start : c.end] == c.text for c in chunks):
        raise ExerciseFailed("a chunk's text no longer matches its offsets: return Section objects, do not edit the text")
    mixed = [c for c in chunks if c.text.count("=== Ticket") > 1]
    if mixed:
        raise ExerciseFailed(f"{len(mixed)} chunks still hold two tickets, e.g. one starting {mixed[0].text[:60]!r}. "
                             "Hint: a Section must start exactly where each '=== Ticket' line starts.")
    first = support.text.index("=== Ticket")
    expected = {f"PART 2: SUPPORT CHAT TRANSCRIPTS > {m[1]}" for m in _TICKET.finditer(support.text)}
    found = {c.metadata["section"] for c in chunks if c.start >= first}
    if found != expected:
        example = sorted(found - expected)[:1]
        raise ExerciseFailed(f"the ticket chunks sit in sections like {example}, expected e.g. "
                             f"{sorted(expected)[0]!r}. Hint: a ticket's trail is the trail of the part it "
                             "sits in, followed by 'Ticket <number>'.")
    kept = {c.metadata["section"] for c in chunks}
    lost = [" > ".join(s.trail) for s in structure_sections(support.text, "text")
            if s.trail and " > ".join(s.trail) not in kept]
    if lost:
        raise ExerciseFailed(f"{len(lost)} sections the structure finds are gone, e.g. {lost[0]!r}. Hint: add the "
                             "ticket sections to those structure_sections(text, fmt) returns, do not replace them.")
    return f"{len(expected)} tickets, one section each, and no chunk holds two of them."


#: Exercise 2's explanations of why table questions gain most when the hybrid's context is indexed.
CONTEXT_CHOICES = {
    "A": "Indexed with its context a chunk is longer, so each table chunk that is sent brings more text to the "
         "reader within the same budget of characters per question.",
    "B": "A table chunk holds rows of numbers; the context adds the table's header row, whose column names are the "
         "words a table question uses.",
    "C": "The document title in every chunk's context lets the retriever find the right document, which matters "
         "most for tables.",
}


def solution_context_choice() -> str:
    return "B"


@exercise("15.2", "why do table questions gain most from the context?", "explain", solution=solution_context_choice,
          wrong=(lambda: "A", lambda: "C", lambda: "the header"))
def check_context_choice(choice) -> str:
    """One of `CONTEXT_CHOICES` (any case, spaces ignored)."""
    pick(choice, CONTEXT_CHOICES, {
        "A": "the budget counts the characters of the chunks themselves: the context is indexed, never sent. "
             "Hint: what does a row like '| 128 | 55.7 |' lack?",
        "C": "the title is the same on every chunk of a document, table or not, so it cannot favour tables. "
             "Hint: which line of the context only table chunks get?",
    }, right="B")
    return "the header row is the only part of the context that speaks the table's language."


def solution_model(prompt):
    return "\n".join(f"{m[1]}: FAQ" for m in re.finditer(r"^\[(\d+)\] Q:", prompt, re.MULTILINE))


def _every_block(prompt):
    return "\n".join(f"{m[1]}: FAQ" for m in re.finditer(r"^\[(\d+)\]", prompt, re.MULTILINE))


def _counted_from_one(prompt):
    return "\n".join(f"{int(m[1]) + 1}: FAQ" for m in re.finditer(r"^\[(\d+)\] Q:", prompt, re.MULTILINE))


@exercise("15.3", "a stand-in model for agentic sectioning", "implement", solution=solution_model,
          wrong=(lambda: _every_block, lambda: _counted_from_one, lambda: lambda prompt: "no sections",
                 lambda: lambda prompt: solution_model(prompt).split("\n")))
def check_model(model) -> str:
    """`LLMSectioner(model)` must start one section at every FAQ question of the support document,
    exactly where the question's line starts."""
    support = load_document("support")

    def replying(prompt: str) -> str:
        reply = model(prompt)
        if not isinstance(reply, str):
            raise ExerciseFailed(f"your model returns a {type(reply).__name__}; a model returns its reply as one "
                                 "str. Hint: join the '<number>: FAQ' lines with a line break.")
        return reply

    sections = LLMSectioner(replying)(support.text, "text")
    expected = [m.start() for m in re.finditer(r"^Q:", support.text, re.MULTILINE)]
    found = [s.start for s in sections]
    if found != expected:
        extra, missing = sorted(set(found) - set(expected)), sorted(set(expected) - set(found))
        raise ExerciseFailed(f"{len(found)} sections, expected {len(expected)} ({len(missing)} questions without one, "
                             f"{len(extra)} sections elsewhere). Hint: answer one '<number>: FAQ' line for each "
                             "block line of the prompt whose text starts with 'Q:', and nothing else.")
    return f"{len(found)} FAQ sections, each at the offset where its question starts."
