"""The core model: the `Chunk` record, the `Chunker` base class and the registry.

Every strategy in `chunklab.strategies` subclasses `Chunker`. A subclass declares its parameters as
typed keyword-only `__init__` arguments with defaults (scikit-learn style), each declared once by its
type hint (with, in an ``Annotated``, a `chunklab.constraints.Param`: its interval, its slider, when
it acts), stores each one under the same name, and implements `spans(text)`, which yields exact
character spans.
The base class turns spans into `Chunk` objects and attaches the standard metadata, so offsets are
never re-derived by searching the text.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import inspect
import operator
import sys
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from .caches import RESOURCE, cached
from .constraints import Constraint, Number, Param, constraint_for, param_in

__all__ = [
    "CHUNKERS",
    "Chunk",
    "ChunkSpan",
    "Chunker",
    "ParameterError",
    "Span",
    "Step",
    "StepError",
    "apply_steps",
    "as_spans",
    "content_hash",
    "numbered",
    "register",
]

class ParameterError(ValueError, TypeError):
    """A chunker parameter has the wrong type or is out of range; the message names it and the range.

    It is both a `ValueError` and a `TypeError`, so either ``except`` clause catches it.
    """


#: A half-open character span ``(start, end)`` of a text: ``text[start:end]``.
Span = tuple[int, int]
#: What `Chunker.spans` yields: a `Span`, or ``(start, end, extra_metadata)``.
ChunkSpan = Span | tuple[int, int, Mapping[str, Any]]


class StepError(ValueError):
    """A step after chunking changed what only a chunker may change: a chunk's text, offsets or index,
    or the number of chunks."""


def content_hash(text: str) -> str:
    """A short, stable fingerprint of a chunk's text (first 16 hex digits of its SHA-256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _made_fast(cls: type[Chunk]) -> type[Chunk]:
    """Class decorator of `Chunk`, applied after `dataclass` has made its slots: adds
    ``Chunk.from_slice(text, start, end, index, metadata)``, for a `text` known to be
    ``source[start:end]`` with ``0 <= start <= end <= len(source)`` (or the fields of a chunk made
    already, with other metadata: what a step returns): a bare object whose slots are filled by
    their own setters. The frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__`` and runs `__post_init__`'s check: 0.4 µs more a chunk, a quarter of
    `FixedSizeChunker`'s whole call on the corpus (bench: ``benchmarks/bench_chunks.py``). The
    arguments are the fields in order, as for ``Chunk(...)``; a new field is added here (the
    unpacking below fails until it is)."""
    make = object.__new__
    set_text, set_start, set_end, set_index, set_metadata = (
        cls.__dict__[f.name].__set__ for f in dataclasses.fields(cls)
    )

    def from_slice(text: str, start: int, end: int, index: int, metadata: Mapping[str, Any]) -> Chunk:
        chunk = make(cls)
        set_text(chunk, text)
        set_start(chunk, start)
        set_end(chunk, end)
        set_index(chunk, index)
        set_metadata(chunk, metadata)
        return chunk

    cls.from_slice = staticmethod(from_slice)  # type: ignore[assignment]
    return cls


@_made_fast
@dataclass(frozen=True, slots=True)
class Chunk:
    """One chunk of a source text.

    ``source[start:end] == text`` always holds; `__post_init__` checks that the length agrees and
    `Chunker` builds chunks only by slicing the source (through `from_slice`, see `_made_fast`).
    Anything derived from the chunk (a rendered table, a context header) belongs in `metadata` under
    its own key, never in `text`.
    """

    text: str
    start: int
    end: int
    index: int = 0
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: A chunk of a slice known to be exact, made without the checks (see `_made_fast`).
    from_slice: ClassVar[Callable[[str, int, int, int, Mapping[str, Any]], Chunk]]

    def __post_init__(self) -> None:
        if not (0 <= self.start <= self.end):
            raise ValueError(f"chunk offsets must satisfy 0 <= start <= end, got [{self.start}, {self.end})")
        if self.end - self.start != len(self.text):
            raise ValueError(
                f"chunk text has {len(self.text)} characters but its span [{self.start}, {self.end}) "
                f"covers {self.end - self.start}"
            )

    def __len__(self) -> int:
        return len(self.text)

    @property
    def content_hash(self) -> str:
        """A short, stable fingerprint of the chunk's text (`content_hash`), computed when read; not
        part of `metadata` (exports add it: `chunklab.pipeline.export.exported_metadata`)."""
        return content_hash(self.text)

    def exported_metadata(self) -> dict[str, Any]:
        """A copy of `metadata` with ``content_hash`` added: what the exports write (records and JSON
        lines, LangChain documents, LlamaIndex nodes)."""
        return {**self.metadata, "content_hash": content_hash(self.text)}

    def overlaps(self, other: Chunk) -> int:
        """Number of source characters this chunk shares with `other`."""
        return max(0, min(self.end, other.end) - max(self.start, other.start))


#: ``step(document, chunks) -> chunks``: the same chunks, metadata added (`apply_steps`).
Step = Callable[[str, Sequence[Chunk]], Iterable[Chunk]]

#: Every registered chunker class by its short name; filled by `register`.
CHUNKERS: dict[str, type[Chunker]] = {}


def register(cls: type[Chunker]) -> type[Chunker]:
    """Class decorator: add a `Chunker` subclass to `CHUNKERS` under its `name`."""
    if not getattr(cls, "name", ""):
        raise TypeError(f"{cls.__name__} needs a non-empty class attribute 'name' to be registered")
    if cls.name in CHUNKERS and CHUNKERS[cls.name] is not cls:
        raise TypeError(f"chunker name {cls.name!r} is already taken by {CHUNKERS[cls.name].__name__}")
    CHUNKERS[cls.name] = cls
    return cls


class Chunker:
    """Base class of every chunking strategy.

    Subclasses:

    * take their parameters as typed keyword-only arguments of `__init__` (``def __init__(self, *,
      ...)``), each with a default, store them under the same attribute names and end `__init__`
      with ``self.validate()``;
    * declare each parameter once, in its type hint: the type, and in an ``Annotated`` a
      `chunklab.constraints.Param` for the rest (a number's interval, its slider in `explore`,
      ranges that follow a choice, when it acts, whether it is a size counted in the unit, its
      part in how sizes are counted): ``chunk_size: Annotated[int, Param(low=1, slider=(20, 2000,
      10), counted_in_unit=True)] = 600``. `declarations` and `constraints` read them, and
      validation, the command line and `explore` read those. A class that declares a parameter
      anywhere else (a ``bounds`` or ``widget_hints`` class attribute, a `Param` on a class
      attribute) or names in a `Param` a parameter it does not have is refused when it is made;
    * may name the control a learner should move first (`main_control`) and options for drawing
      its chunks (`view_options`), which are about the class, not one parameter;
      `validate` checks every value against its constraint, then calls `check` for rules that tie
      parameters together (e.g. overlap < size); a call validates again when a parameter was
      changed since the last validation (an attribute set directly, not through `set_params`);
    * implement `spans`, yielding ``(start, end)`` or ``(start, end, metadata)`` in source order;
    * may report a size limit with `size_limit` and how they measure size with `measure`; the property
      tests hold every chunk to that contract.

    * may name steps to run over its chunks after chunking in `after_chunking` (metadata only, see
      `apply_steps`); a subclass never overrides `__call__`, which is the one template: check the
      text, re-validate, make the chunks of `spans` (`numbered`), run the steps.

    Calling a chunker on a string returns ``list[Chunk]`` (empty for empty or whitespace-only text;
    a non-string raises `TypeError`) with metadata ``chunk_index``, ``total_chunks``,
    ``char_count``, ``source`` (when given) and, for a chunker whose ``unit`` is ``"tokens"``,
    ``token_count`` (its `measure`, counted during the call), plus whatever the strategy and its
    steps add. A chunk's ``content_hash`` is `Chunk.content_hash`, which the exports write
    (`Chunk.exported_metadata`).
    """

    #: Short registry name, e.g. ``"fixed"``.
    name: ClassVar[str] = ""
    #: Options for `chunklab.viz.chunks.render_html` when `explore` draws this chunker's chunks, e.g.
    #: ``{"colour_by": "modality"}`` to colour chunks by a metadata value.
    view_options: ClassVar[dict[str, Any]] = {}
    #: The parameter whose slider shows the strategy at work: `explore` puts it first, and it must
    #: move the chunk boundaries from the explorer's opening state (`chunklab.viz.start_check`).
    #: A class attribute, not a `chunklab.constraints.Param` flag: it picks one parameter among
    #: all (a flag could be set on two), and a subclass changes it without declaring the
    #: parameters again. When it names no slider of the class, `explore` takes the first slider.
    main_control: ClassVar[str] = "chunk_size"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a parameter declared anywhere but its ``__init__`` argument's hint, and a
        declaration that names a parameter the class does not have (see `declarations`)."""
        super().__init_subclass__(**kwargs)
        _refuse_declarations_elsewhere(cls)
        try:
            _declarations(cls)
        except NameError:
            pass  # a hint naming what its module defines further down: checked on first use instead

    # -- parameters -------------------------------------------------------------------------------
    @classmethod
    def param_specs(cls) -> dict[str, inspect.Parameter]:
        """The constructor's parameters (name -> `inspect.Parameter`, annotations resolved)."""
        return dict(_parameters(cls))

    @classmethod
    def declarations(cls) -> dict[str, Param]:
        """Every parameter's `chunklab.constraints.Param`, from its type hint (``Param()`` for one
        that declares nothing beyond its type): what `explore` and the command line read for a
        slider, when a parameter acts and how sizes are counted."""
        return dict(_declarations(cls))

    @classmethod
    def constraints(cls) -> dict[str, Constraint]:
        """Every parameter's `chunklab.constraints.Constraint`, from its type hint (the interval
        from its `chunklab.constraints.Param`): what `validate` checks, the command line parses and
        describes, and `explore` offers."""
        return dict(_constraints(cls))

    @classmethod
    def is_active(cls, name: str, params: Mapping[str, Any]) -> bool:
        """Does parameter `name` change the chunks when the parameters are `params` (its
        ``Param(active_when=...)``)?"""
        return all(params.get(decider) in values for decider, values in _conditions(cls, name).items())

    @classmethod
    def active_condition(cls, name: str) -> str:
        """When `name` acts, in words (``"only with unit=tokens"``); empty when it always does."""
        conditions = _conditions(cls, name)
        if not conditions:
            return ""
        return "only with " + " and ".join(
            f"{decider}={' or '.join(map(str, values))}" for decider, values in conditions.items()
        )

    @classmethod
    def size_measure(cls, params: Mapping[str, Any]) -> tuple[str, Any]:
        """How sizes are counted with the parameter values `params`: the unit (the value of the
        parameter declared ``Param(size_measure="unit")``; ``"chars"`` for a chunker without one)
        and, when it is ``"tokens"``, the tokenizer (of the one declared
        ``size_measure="tokenizer"``). `explore` rescales the sliders declared
        ``counted_in_unit`` when this changes."""
        unit_name, tokenizer_name = _size_parameters(cls)
        unit = params.get(unit_name, "chars") if unit_name is not None else "chars"
        return unit, params.get(tokenizer_name) if unit == "tokens" and tokenizer_name is not None else None

    def get_params(self, deep: bool = False) -> dict[str, Any]:
        """Current parameter values, by constructor argument name.

        With ``deep=True`` (as in scikit-learn), the parameters of parameter values that have
        parameters of their own (a `Chunker`, or any object with a ``get_params`` method such as the
        hybrid's `ExtractiveContext`) follow as ``"<name>__<parameter>"``."""
        params = {name: getattr(self, name) for name in _parameters(type(self))}
        if not deep:
            return params
        out = dict(params)
        for name, value in params.items():
            if hasattr(value, "get_params") and not isinstance(value, type):
                out.update({f"{name}__{key}": inner for key, inner in _params_of(value, deep=True).items()})
        return out

    def set_params(self, **params: Any) -> Self:
        """Change parameters (re-validated; on an error nothing changes) and return the chunker.

        ``"<name>__<parameter>"`` changes a parameter of a nested object (see `get_params`): the
        object is replaced by a copy with that parameter changed (``set_params`` on a copy, or
        ``dataclasses.replace`` for a frozen dataclass), so an object shared with another chunker
        is never changed behind its back."""
        specs = self.param_specs()
        direct = {k: v for k, v in params.items() if "__" not in k}
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            if "__" in key:
                outer, inner = key.split("__", 1)
                nested.setdefault(outer, {})[inner] = value
        unknown = (set(direct) | set(nested)) - set(specs)
        if unknown:
            raise ParameterError(
                f"{type(self).__name__} has no parameter(s) {sorted(unknown)}; valid: {sorted(specs)}"
            )
        for outer, changes in nested.items():
            holder = direct.get(outer, getattr(self, outer))
            if not hasattr(holder, "get_params"):
                raise ParameterError(
                    f"{type(self).__name__}: parameter {outer!r} ({type(holder).__name__}) has no parameters of its own, "
                    f"so {sorted(f'{outer}__{k}' for k in changes)} cannot be set"
                )
            direct[outer] = _with_params(holder, changes)
        old = self.get_params()
        for key, value in direct.items():
            setattr(self, key, value)
        try:
            self.validate()
        except ParameterError:
            for key, value in old.items():
                setattr(self, key, value)
            raise
        self._validated = _values_of(type(self))(self)
        return self

    def clone(self, **params: Any) -> Self:
        """A new chunker of the same class with these parameters changed (nested names allowed)."""
        return type(self)(**self.get_params()).set_params(**params)

    def __eq__(self, other: object) -> bool:
        """Two chunkers are equal when they are of the same class with the same parameters."""
        if type(other) is not type(self):
            return NotImplemented
        return self.get_params() == other.get_params()

    def __hash__(self) -> int:
        """The hash of the class alone: stable when `set_params` changes the chunker (a chunker in a
        set or a dict key stays findable), and equal for equal chunkers, as `__eq__` requires."""
        return hash((type(self).__module__, type(self).__qualname__))

    def __repr__(self) -> str:
        defaults = {n: p.default for n, p in self.param_specs().items()}
        changed = [f"{k}={v!r}" for k, v in self.get_params().items() if v != defaults.get(k)]
        return f"{type(self).__name__}({', '.join(changed)})"

    # -- validation -------------------------------------------------------------------------------
    def validate(self) -> None:
        """Check every parameter against its constraint, then `check`; raise `ParameterError`
        naming the parameter and what it must be."""
        for name, constraint in _constraints(type(self)).items():
            value = getattr(self, name)
            problem = constraint.problem(value)
            if problem is not None:
                raise ParameterError(f"{type(self).__name__}: parameter {name!r} {problem}, got {value!r}")
        self.check()

    def _revalidated(self) -> None:
        """`validate` if a parameter was set since the last validation that passed here (an
        attribute set directly): the call costs a tuple of the values and one comparison, in which
        a value that is still the same object is not compared any further."""
        values = _values_of(type(self))(self)
        try:
            changed = values != self.__dict__.get("_validated")
        except (ValueError, TypeError):  # a new value whose ``==`` cannot answer (an array): it changed
            changed = True
        if changed:
            self.validate()
            self._validated = values

    def check(self) -> None:
        """Hook for rules that relate several parameters; raise `ParameterError` naming them."""

    def require_smaller(self, lower: str, upper: str) -> None:
        """For `check`: raise `ParameterError` unless parameter `lower` is smaller than `upper`
        (e.g. an overlap and its window, which must leave the window room to move forward)."""
        low, high = getattr(self, lower), getattr(self, upper)
        if low >= high:
            raise ParameterError(
                f"{type(self).__name__}: parameter {lower!r} must be smaller than {upper!r} "
                f"(allowed: 0 <= {lower} <= {high - 1}), got {lower}={low}"
            )

    # -- chunking ---------------------------------------------------------------------------------
    def spans(self, text: str) -> Iterable[ChunkSpan]:
        """Yield the chunk spans of `text` in source order. Subclasses implement this."""
        raise NotImplementedError

    def size_limit(self) -> int | None:
        """The largest chunk size this chunker promises, in `measure` units (None: no promise)."""
        return None

    def measure(self, text: str) -> int:
        """The size of a chunk's text in this chunker's unit (characters by default)."""
        return len(text)

    def after_chunking(self) -> Sequence[Step]:
        """The steps `__call__` runs over the chunks (``step(document, chunks) -> chunks``, metadata
        only: `apply_steps`); none by default. `chunklab.strategies.steps` has the steps."""
        return ()

    def __call__(self, text: str, source: str | None = None) -> list[Chunk]:
        """Chunk `text`; `source` (e.g. a document name) is copied into each chunk's metadata.

        The one template of every chunker: refuse a non-string, re-validate if a parameter changed,
        make the chunks of `spans` (`numbered`), then run `after_chunking`'s steps."""
        if not isinstance(text, str):
            raise TypeError(f"{type(self).__name__} expects a str, got {type(text).__name__}")
        self._revalidated()
        unit_name = _size_parameters(type(self))[0]
        counts_tokens = unit_name is not None and getattr(self, unit_name) == "tokens"
        chunks = numbered(text, self.spans(text), source, self.measure if counts_tokens else None)
        steps = self.after_chunking()
        return apply_steps(text, chunks, steps) if steps else chunks

    def split_text(self, text: str) -> list[str]:
        """Just the chunk texts, for code that expects a list of strings."""
        return [text[span[0] : span[1]] for span in self.spans(text)]


def numbered(
    text: str, spans: Iterable[ChunkSpan], source: str | None = None, measure: Callable[[str], int] | None = None
) -> list[Chunk]:
    """The chunks of `text` at `spans` (in order), numbered from 0: `Chunker.__call__`'s chunks, and
    the one place chunks get ``chunk_index`` and ``total_chunks``. Metadata: ``source`` (when
    given), ``chunk_index``, ``total_chunks``, ``char_count``, then a span's own metadata and, with
    `measure`, ``token_count`` unless the span has one. Chunks made by other calls are numbered
    again by passing them through `as_spans`."""
    raw = list(spans)
    total, length = len(raw), len(text)
    from_slice = Chunk.from_slice
    chunks: list[Chunk] = []
    add = chunks.append
    # Each span is let go as soon as its chunk is made (taken from the end of the reversed
    # list): the chunks are tracked objects, ten thousand of them set off a full collection,
    # and that collection then walks the chunks made but not the spans already used.
    raw.reverse()
    for index in range(total):
        span = raw.pop()
        start, end = span[0], span[1]
        piece = text[start:end]
        metadata: dict[str, Any]
        if source is None:
            metadata = {"chunk_index": index, "total_chunks": total, "char_count": len(piece)}
        else:
            metadata = {"source": source, "chunk_index": index, "total_chunks": total, "char_count": len(piece)}
        if len(span) == 3:
            metadata.update(span[2])
        if measure is not None and "token_count" not in metadata:
            metadata["token_count"] = measure(piece)
        if 0 <= start <= end <= length:  # the text is the slice: what `Chunk.__post_init__` checks holds
            add(from_slice(piece, start, end, index, metadata))
        else:
            add(Chunk(piece, start, end, index, metadata))  # raises: the span is outside the text
    return chunks


#: The metadata `numbered` writes from a chunk's place in its list, which `as_spans` leaves out.
_NUMBERING = frozenset({"chunk_index", "total_chunks"})


def as_spans(chunks: Iterable[Chunk], shift: int = 0) -> list[tuple[int, int, dict[str, Any]]]:
    """Chunks made by another call as spans with their metadata (less their numbering), moved by
    `shift` characters: for a chunker made of other chunkers (its `spans`), or for chunks of parts
    of a text put together (`numbered` numbers them again)."""
    return [
        (c.start + shift, c.end + shift, {k: v for k, v in c.metadata.items() if k not in _NUMBERING}) for c in chunks
    ]


def apply_steps(document: str, chunks: Sequence[Chunk], steps: Iterable[Step]) -> list[Chunk]:
    """`chunks` of `document` through every step in turn. Raises `StepError` when a step returns
    other chunks than it was given (a different count, text, span or index): steps add metadata."""
    out = list(chunks)
    for step in steps:
        after = list(step(document, out))
        if len(after) != len(out):
            raise StepError(f"step {step!r} returned {len(after)} chunks for {len(out)}")
        for before, chunk in zip(out, after):
            if chunk is before:
                continue
            moved = (chunk.start, chunk.end, chunk.index) != (before.start, before.end, before.index)
            if moved or chunk.text != before.text:
                raise StepError(
                    f"step {step!r} changed chunk {before.index} [{before.start}, {before.end}) into "
                    f"chunk {chunk.index} [{chunk.start}, {chunk.end}): a step may change metadata only"
                )
        out = after
    return out


def _params_of(value: Any, deep: bool) -> dict[str, Any]:
    """``value.get_params(deep=...)``, for objects whose ``get_params`` takes no `deep`, without it."""
    try:
        return value.get_params(deep=deep)
    except TypeError:
        return value.get_params()


def _with_params(holder: Any, params: dict[str, Any]) -> Any:
    """A copy of `holder` with `params` changed: through ``set_params`` on a copy when it has one
    (nested names pass on), else ``dataclasses.replace`` (a frozen dataclass)."""
    if hasattr(holder, "set_params"):
        return copy.copy(holder).set_params(**params) if not isinstance(holder, Chunker) else holder.clone(**params)
    if dataclasses.is_dataclass(holder) and not isinstance(holder, type):
        try:
            return dataclasses.replace(holder, **params)
        except TypeError as error:
            raise ParameterError(f"{type(holder).__name__}: {error}") from error
    raise ParameterError(f"{type(holder).__name__} has get_params but no way to change its parameters")


@cached(RESOURCE)
def _parameters(cls: type[Chunker]) -> dict[str, inspect.Parameter]:
    """`Chunker.param_specs`, worked out once per class (signature and resolved type hints)."""
    signature = inspect.signature(cls.__init__)
    hints = typing.get_type_hints(cls.__init__, include_extras=True)
    return {
        name: p.replace(annotation=hints.get(name, p.annotation))
        for name, p in signature.parameters.items()
        if name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }


@cached(RESOURCE)
def _constraints(cls: type[Chunker]) -> dict[str, Constraint]:
    """`Chunker.constraints`, worked out once per class."""
    return {name: constraint_for(p.annotation) for name, p in _parameters(cls).items()}


#: The class attributes a parameter was once declared by; a class that still has one is refused.
_OLD_DECLARATIONS = ("bounds", "widget_hints", "widget_hints_by", "active_when", "measured_in_unit")


def _refuse_declarations_elsewhere(cls: type[Chunker]) -> None:
    """Raise `TypeError` when `cls` (or a mixin among its bases) declares a parameter in a class
    attribute: an attribute named as the old declarations were, or an annotation holding a `Param`
    (a `Param` belongs in the hint of an ``__init__`` argument, where it is read)."""
    for owner in cls.__mro__:
        if owner is object or (owner is not cls and issubclass(owner, Chunker)):
            continue  # a Chunker base was checked when it was made
        old = [name for name in _OLD_DECLARATIONS if name in vars(owner)]
        if old:
            raise TypeError(
                f"{cls.__name__}: class attribute(s) {old} of {owner.__name__} declare parameters the old way; "
                "declare each parameter in its __init__ argument's type hint, Annotated[..., Param(...)] "
                "(chunklab.constraints.Param)"
            )
        module = vars(sys.modules.get(owner.__module__, sys))
        for name, hint in vars(owner).get("__annotations__", {}).items():
            if isinstance(hint, str):
                try:
                    hint = eval(hint, module, dict(vars(owner)))  # the class's own annotation, in its module
                except Exception:  # a hint only a type checker can read: it holds no Param we could use
                    continue
            if param_in(hint) is not None:
                raise TypeError(
                    f"{cls.__name__}: class attribute {name!r} of {owner.__name__} holds a Param, which declares "
                    "nothing there; put it in the type hint of the __init__ argument it declares"
                )


@cached(RESOURCE)
def _declarations(cls: type[Chunker]) -> dict[str, Param]:
    """`Chunker.declarations`, worked out once per class, after checking that what each `Param`
    says fits the class: the parameters it names exist, a slider is a number's, one parameter at
    most holds each part of the size measure, and `main_control`, when the class sets it, is a
    parameter."""
    parameters = _parameters(cls)
    hints = typing.get_type_hints(cls.__init__, include_extras=True)
    for name, p in inspect.signature(cls.__init__).parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and param_in(hints.get(name)) is not None:
            raise TypeError(f"{cls.__name__}: the Param on *{name} declares nothing; declare each parameter by name")
    declared = {name: param_in(p.annotation) or Param() for name, p in parameters.items()}
    constraints = _constraints(cls)
    where = cls.__name__
    for name, param in declared.items():
        unknown = sorted(param.deciders() - set(declared))
        if unknown:
            raise TypeError(f"{where}: the Param of {name!r} names {unknown}, which are not parameters; "
                            f"parameters: {sorted(declared)}")
        numeric = isinstance(constraints[name], Number)
        for field_name, given in (("slider", param.slider is not None), ("slider_by", param.slider_by is not None),
                                  ("counted_in_unit", param.counted_in_unit)):
            if given and not numeric:
                raise TypeError(f"{where}: the Param of {name!r} gives {field_name}, but {name!r} is not a number")
    for part in ("unit", "tokenizer"):
        holders = [name for name, param in declared.items() if param.size_measure == part]
        if len(holders) > 1:
            raise TypeError(f"{where}: parameters {holders} are all declared size_measure={part!r}; one at most is")
    sized = [name for name, param in declared.items() if param.counted_in_unit]
    if sized and not any(param.size_measure == "unit" for param in declared.values()):
        raise TypeError(f"{where}: {sized} are declared counted_in_unit, but no parameter is declared "
                        "size_measure='unit'")
    main = vars(cls).get("main_control")
    if main is not None and main not in declared:
        raise TypeError(f"{where}: main_control {main!r} is not a parameter; parameters: {sorted(declared)}")
    return declared


def _conditions(cls: type[Chunker], name: str) -> Mapping[str, tuple[Any, ...]]:
    """The ``active_when`` of parameter `name` (empty for a name that is not a parameter)."""
    param = _declarations(cls).get(name)
    return param.active_when if param is not None else {}


@cached(RESOURCE)
def _size_parameters(cls: type[Chunker]) -> tuple[str | None, str | None]:
    """The names of the parameters declared ``size_measure="unit"`` and ``"tokenizer"`` (None
    for a part no parameter holds)."""
    declared = _declarations(cls)
    unit = next((name for name, param in declared.items() if param.size_measure == "unit"), None)
    tokenizer = next((name for name, param in declared.items() if param.size_measure == "tokenizer"), None)
    return unit, tokenizer


@cached(RESOURCE)
def _values_of(cls: type[Chunker]) -> Callable[[Chunker], tuple[Any, ...]]:
    """A function of a `cls` chunker giving the tuple of its parameter values, for
    `Chunker._revalidated`."""
    names = tuple(_parameters(cls))
    if len(names) > 1:
        return operator.attrgetter(*names)
    return lambda chunker: tuple(getattr(chunker, name) for name in names)
