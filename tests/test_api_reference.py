"""The API reference covers what the guides tell readers to use (docs/build_site.py, without Sphinx):
every name the README, CONTRIBUTING, the side pages and the notebooks import from chunklab, or write out
as ``chunklab.module.name``, has an entry, under the path they use or naming it; every chunker's rules
between parameters are shown beside its bounds."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_site", REPO / "docs" / "build_site.py")
build_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_site)

#: The course's exercise helpers are part of the notebooks, not of the library the reference documents.
NOT_LIBRARY = "chunklab.exercises"


@pytest.fixture(scope="module")
def reference() -> tuple[dict[str, str], dict[str, str]]:
    return build_site.api_pages()


def _documented(pages: dict[str, str]) -> set[str]:
    """Every target a page documents: its directives' names, and the members of modules documented whole."""
    text = "\n".join(pages.values())
    targets = set(re.findall(r"^\.\. (?:auto\w+|py:module):: (\S+)", text, re.M))
    targets |= {f"{module}.{name}" for name, module in re.findall(r"^\.\. py:data:: (\S+)\n   :module: (\S+)", text, re.M)}
    for module in re.findall(r"^\.\. automodule:: (\S+)\n   :members:", text, re.M):
        targets |= {f"{module}.{name}" for name, _ in inspect.getmembers(importlib.import_module(module))}
    return targets


def test_every_name_a_guide_uses_has_an_entry(reference) -> None:
    pages, links = reference
    documented = _documented(pages)
    used = [(module, name) for module, names in build_site.guide_names().items() for name in names
            if not module.startswith(NOT_LIBRARY)]
    assert len(used) > 100, "the guides' imports were found"
    missing = [f"{module}.{name}" for module, name in used
               if links.get(f"{module}.{name}", links.get(name) if module == "chunklab" else None) not in documented]
    assert not missing, f"names the guides use without an entry in the API reference: {missing}"


def test_the_names_readers_were_told_to_use_are_documented(reference) -> None:
    pages, links = reference
    documented = _documented(pages)
    for path in ("chunklab.integrations.references.reference_chunkers", "chunklab.integrations.references.is_reference",
                 "chunklab.integrations.wrapped.LangChainChunker", "chunklab.integrations.wrapped.LlamaIndexChunker",
                 "chunklab.strategies.steps.ContextStep", "chunklab.strategies.steps.Pipeline",
                 "chunklab.pipeline.store.index_documents", "chunklab.pipeline.store.ChromaRetriever",
                 "chunklab.pipeline.dask.chunk_files", "chunklab.evaluation.annotate.check_excerpt",
                 "chunklab.evaluation.annotate.make_question", "chunklab.evaluation.annotate.save_questions",
                 "chunklab.evaluation.paired.holm"):
        assert links.get(path) in documented, path


def test_a_name_used_under_another_path_says_so_in_its_entry(reference) -> None:
    pages, links = reference
    assert links["chunklab.formats.readers.read_document"] == "chunklab.formats.read_document"
    entry = pages["formats"].split(".. autofunction:: chunklab.formats.read_document")[1].split("\n.. ")[0]
    assert "Also imported as ``chunklab.formats.readers.read_document``" in entry


def test_a_constant_is_not_described_by_its_type(reference) -> None:
    pages, _ = reference
    assert ".. autodata::" not in "\n".join(pages.values()), "autodata shows dict's docstring for a registry"
    assert ".. py:data:: RETRIEVERS\n   :module: chunklab.evaluation\n" in pages["evaluation"]


def test_rules_between_parameters_are_shown_beside_the_bounds(reference) -> None:
    pages, _ = reference
    listing = build_site.strategies_listing()
    assert listing["fixed"][3] == ('with unit=tokens, the tokenizer must give token spans; chunk_overlap < chunk_size '
                                   '(each window moves forward); with unit="tokens", chunk_size >= 4.')
    assert listing["paragraph"][3] == "min_chunk_size < chunk_size"
    entry = pages["strategies"].split(".. autoclass:: chunklab.strategies.FixedSizeChunker")[1].split("\n.. ")[0]
    assert "Rules between parameters" in entry and "chunk_size >= 4" in entry
    from chunklab import CHUNKERS
    from chunklab.core import Chunker

    for name, cls in CHUNKERS.items():  # every rule a chunker checks is said in words
        if cls.check is not Chunker.check or "min_chunk_size" in cls.param_specs():
            assert listing[name][3], name
