"""Language-model steps for the hybrid chunker, behind plain callables.

Three steps of `chunklab.strategies.hybrid.HybridChunker` are functions a model can take over
(the first and the last also run after any chunker, as `chunklab.strategies.steps.ContextStep`
and `chunklab.strategies.steps.PropositionStep`):

* **contextual retrieval**: ``contextualize(document, chunk) -> str``, a sentence that situates a
  chunk in its document, indexed before it (`LLMContext`). The idea and its measured effect are
  Anthropic's ("Introducing Contextual Retrieval", September 2024); the prompt here is our own.
* **agentic chunking**: ``sectioner(text, fmt) -> sections``, the model reads the numbered blocks
  of a document and says where a new topic starts (`LLMSectioner`);
* **propositions**: ``propositions(document, chunk) -> list[str]``, short self-contained
  statements (Chen et al., "Dense X Retrieval: What Retrieval Granularity Should We Use?", 2023)
  (`LLMPropositions`).

Each takes a `generate` function, ``prompt -> completion``. Two adapters build one:

* `OpenAICompatible`: any server that speaks the OpenAI chat-completions protocol (a hosted API,
  or a local llama.cpp / vLLM / Ollama server), through plain HTTP with `urllib`;
* `TransformersGenerator`: a local `transformers` pipeline, from a model already on disk.

Nothing runs at import, nothing is downloaded, and the course's tests never call a model: they
pass a stand-in `generate`. Offsets stay exact whatever a model answers: a sectioner's answer is a
block *number*, turned into that block's start offset, and context or propositions are metadata.
Answers are cached in memory per ``(generate, prompt)``, so re-chunking (a slider move) asks again
only for chunks that changed. All classes are frozen dataclasses: they pickle, and chunkers
holding them compare by value.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, cast

from ..caches import PER_PIECE, RESOURCE, cached
from ..core import Chunk
from ..formats.blocks import Format, breadcrumb_text
from .sections import Section, cached_blocks
from .steps import ExtractiveContext

__all__ = ["LLMContext", "LLMPropositions", "LLMSectioner", "OpenAICompatible", "TransformersGenerator"]

#: ``generate(prompt) -> completion``.
Generate = Callable[[str], str]


@cached(PER_PIECE)
def _ask(generate: Generate, prompt: str) -> str:
    """`generate` on `prompt`, remembered (the adapters are frozen dataclasses, so hashable)."""
    answer = generate(prompt)
    if not isinstance(answer, str):
        raise TypeError(f"a generate function must return a str, got {type(answer).__name__}")
    return answer.strip()


@dataclass(frozen=True)
class OpenAICompatible:
    """``generate`` for a server speaking the OpenAI chat-completions protocol, over `urllib`.

    ``OpenAICompatible("http://localhost:8080/v1", "qwen2.5-7b-instruct")`` talks to a local
    llama.cpp server; a hosted API needs its base URL, a model name and a key in the environment
    variable `api_key_env` (read at call time, never stored). One request per prompt, answered
    deterministically as far as the server allows (``temperature=0``).
    """

    base_url: str
    model: str
    api_key_env: str = "OPENAI_API_KEY"
    max_tokens: int = 300
    timeout: float = 60.0

    def request(self, prompt: str) -> urllib.request.Request:
        """The HTTP request for `prompt` (built, not sent)."""
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0,
            "max_tokens": self.max_tokens,
        }
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(self.api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        url = self.base_url.rstrip("/") + "/chat/completions"
        return urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST")

    def __call__(self, prompt: str) -> str:
        """Send `prompt`; the first choice's message text."""
        try:
            with urllib.request.urlopen(self.request(prompt), timeout=self.timeout) as response:
                reply = json.load(response)
        except (urllib.error.URLError, TimeoutError) as error:
            raise RuntimeError(f"no answer from {self.base_url}: {error}") from error
        try:
            return reply["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as error:
            raise RuntimeError(f"unexpected reply from {self.base_url}: {str(reply)[:200]}") from error


@dataclass(frozen=True)
class TransformersGenerator:
    """``generate`` from a local `transformers` text-generation pipeline.

    `model` is a folder (or a name already in the local Hugging Face cache) of an instruction-tuned
    causal language model; it is loaded on the first call, with ``local_files_only`` so nothing is
    fetched. Needs PyTorch, which the course does not install: a small model such as a 0.5B
    instruct model runs on a laptop's CPU at a few tokens per second.
    """

    model: str
    max_new_tokens: int = 200

    def __call__(self, prompt: str) -> str:
        """The model's continuation of `prompt` (the prompt itself left out)."""
        output = _pipeline(self.model)(
            prompt, max_new_tokens=self.max_new_tokens, do_sample=False, return_full_text=False
        )
        return output[0]["generated_text"]


@cached(RESOURCE)
def _pipeline(model: str) -> Any:
    from ..models.resources import import_transformers

    transformers = import_transformers()
    return transformers.pipeline("text-generation", model=model, model_kwargs={"local_files_only": True})


@dataclass(frozen=True)
class LLMContext:
    """``contextualize`` by a model: a short text that situates the chunk in its document.

    The model sees the document (or, when it is longer than `window` characters, the `window`
    characters around the chunk), the chunk, and the chunk's breadcrumb; its answer is put after
    the extractive header (`ExtractiveContext`) unless `keep_header` is False.
    """

    generate: Generate
    window: int = 12_000
    keep_header: bool = True

    def prompt(self, document: str, chunk: Chunk) -> str:
        """The prompt for `chunk` of `document`."""
        half = max(0, (self.window - len(chunk.text)) // 2)
        start, end = max(0, chunk.start - half), min(len(document), chunk.end + half)
        excerpt = document[start:end]
        where = chunk.metadata.get("section") or "(no section title)"
        return (
            "Here is a document (or the part of it around a passage):\n<document>\n"
            f"{excerpt}\n</document>\n\nThe passage below comes from the section \"{where}\":\n<passage>\n"
            f"{chunk.text}\n</passage>\n\nWrite one or two sentences that say what this passage is about "
            "and where it sits in the document, naming the things it refers to without naming them "
            "itself, so that a search engine can find the passage. Answer with those sentences only."
        )

    def __call__(self, document: str, chunk: Chunk) -> str:
        """The extractive header (if kept) and the model's situating sentences."""
        header = ExtractiveContext()(document, chunk) if self.keep_header else ""
        written = _ask(self.generate, self.prompt(document, chunk))
        return "\n".join(part for part in (header, written) if part)


_NUMBERED = re.compile(r"^\s*\[?(\d+)\]?\s*[:.)\-–]\s*(.*\S)?\s*$", re.MULTILINE)


@dataclass(frozen=True)
class LLMSectioner:
    """A ``sectioner`` by a model (agentic chunking): it reads numbered blocks, says where topics start.

    The document's blocks (`chunklab.formats.blocks`: paragraphs, headings, lists, tables, code) are shown
    numbered, each cut to `preview` characters, at most `window` per prompt. The model answers with
    lines ``<number>: <title>`` for the blocks that open a new section; each becomes a `Section` at
    that block's start, titled by the model (one level: the trail is the title alone). Numbers that
    name no block are ignored. A CSV file has no sections.
    """

    generate: Generate
    window: int = 60
    preview: int = 200

    def prompts(self, text: str, fmt: str) -> list[tuple[int, str]]:
        """``(first block number, prompt)`` for each window of blocks."""
        if fmt == "csv":
            return []
        blocks = cached_blocks(text, cast(Format, fmt))
        out = []
        for first in range(0, len(blocks), self.window):
            lines = []
            for i, block in enumerate(blocks[first : first + self.window], first):
                preview = " ".join(text[block.start : block.end].split())
                lines.append(f"[{i}] {preview[: self.preview]}")
            out.append((first, (
                "Below are the numbered blocks of a document, each cut short. Decide where a new topic "
                "begins, as a careful editor would, so that each section is about one thing. Answer "
                "with one line per block that starts a section, in the form `<number>: <short title>`, "
                "and nothing else.\n\n" + "\n".join(lines)
            )))
        return out

    def __call__(self, text: str, fmt: str) -> tuple[Section, ...]:
        """The sections the model marks, in order."""
        if fmt == "csv":
            return ()
        blocks = cached_blocks(text, cast(Format, fmt))
        sections: dict[int, Section] = {}
        for _, prompt in self.prompts(text, fmt):
            for match in _NUMBERED.finditer(_ask(self.generate, prompt)):
                number = int(match[1])
                if number < len(blocks):
                    title = (match[2] or "").strip()
                    sections[blocks[number].start] = Section(blocks[number].start, (title,) if title else ())
        return tuple(sections[start] for start in sorted(sections))


_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+(.*\S)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class LLMPropositions:
    """``propositions`` by a model: the chunk rewritten as short statements that stand on their own
    (pronouns resolved, the subject named), one per line of its answer."""

    generate: Generate

    def prompt(self, document: str, chunk: Chunk) -> str:
        """The prompt for `chunk` (the document's title and the chunk's breadcrumb name the subject)."""
        where = breadcrumb_text([part for part in (chunk.metadata.get("title", ""), chunk.metadata.get("section", "")) if part])
        return (
            f"The passage below is from \"{where or 'a document'}\". Rewrite it as a list of short, "
            "simple statements, each true on its own: name the subject instead of writing it, this "
            "or they, and keep every number and name exactly. One statement per line, each starting "
            f"with \"- \".\n\n<passage>\n{chunk.text}\n</passage>"
        )

    def __call__(self, document: str, chunk: Chunk) -> list[str]:
        """The statements of the model's answer (its ``- `` or numbered lines)."""
        return [m[1] for m in _ITEM.finditer(_ask(self.generate, self.prompt(document, chunk)))]

