"""The ``chunklab`` command line: chunk, measure, index and query your own documents.

Run ``chunklab --help`` (or ``python -m chunklab --help``). The commands:

* ``chunklab strategies``: every registered chunker with its parameters, defaults and ranges, and
  when a parameter acts only with certain values of another (``only with unit=tokens``).
* ``chunklab chunk PATH... [--strategy NAME [--param KEY=VALUE]...] [--budget N] [--out chunks.jsonl] [--jobs N]``:
  chunk files and folders (markdown, text, web pages, CSV, PDF, Word, JSON, JSON Lines, notebooks
  and source code: `chunklab.formats.readers`) into JSON Lines, one chunk record per line
  (`chunklab.pipeline.files`), in the order of the inputs whatever ``--jobs`` is. Without
  ``--strategy`` it uses `DEFAULT_STRATEGY` (the hybrid, the course's recommended strategy).
  ``--budget N`` (also on ``index``) says how many characters the reader receives per question;
  the hybrid then derives its chunk size and overlap from it (`chunklab.strategies.budget_rule`).
  Folders are walked as `chunklab.formats.folders.find_documents` does: symlinked folders followed
  once, build artefacts (``_sources``, ``_static``...) and hidden files left out unless
  ``--no-default-excludes``, ``--include`` / ``--exclude`` globs, documents named by their path in
  the folder given. A supported file that cannot be read is reported with its path and the reason as
  the run goes on; each document's records are written as soon as it is done. The closing line
  counts the chunks and documents, names what failed, and counts what was not read and why
  (unsupported types by extension, build artefacts, globs, symlinked folders already walked).
* ``chunklab evaluate PATH... --questions FILE.jsonl --strategy NAME [--param ...]... [--budget N]...``:
  `chunklab.evaluation.comparison.compare` on your own documents and questions: every strategy
  sends the same budget of text per question, and for each retriever and budget the leaderboard
  says which is best and which show no measurable difference from it (paired test), then the
  resampling gate (`chunklab.evaluation.gate`): a chunking is "recommended" only when it is best in
  at least 90 % of resamples of the questions, with the chunkings ruled out and an estimate of how
  many more questions would separate the two leaders.

* ``chunklab index PATH... --store DIR [--strategy NAME [--param ...]]...``: one ChromaDB collection
  per strategy and parameters (`chunklab.pipeline.store`), embedded in batches as documents are
  chunked (bounded memory); it says how many chunks were new and how many were already indexed.
* ``chunklab query --store DIR --collection NAME "question" [--where KEY=VALUE]... [-k K | --budget N]``:
  the top-k chunks of a collection, with metadata filters; with ``--budget N``, hits best first
  until N characters are sent, each sending only the text better hits have not sent
  (`chunklab.pipeline.store.query`).

Web pages are read as their visible main text (`chunklab.formats.web`); ``--html-source`` reads them
as their HTML source instead, markup included (for question spans that index the source).

``--param`` belongs to the ``--strategy`` before it, so ``--strategy fixed --param chunk_size=200
--strategy fixed --param chunk_size=800`` measures two chunkers. Values are parsed by the parameter's
constraint (`chunklab.core.Chunker.constraints`) and checked by the chunker itself (its
`chunklab.core.ParameterError`).

Progress bars are drawn on standard error only when it is a terminal (``--progress`` /
``--no-progress`` to force either way).

Exit status: 0 on success, even when files of an unsupported type or build artefacts were left
unread (they are counted); 1 if a supported file could not be read or chunked, a path does not exist
or a folder is empty (with ``--strict``, also if any file was left unread except by your own
``--exclude`` / ``--include``); 2 for a usage error (an unknown strategy, a bad parameter, a
malformed question file, an unknown collection).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import os
import sys
import textwrap
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TextIO

from ..constraints import Constraint
from ..core import CHUNKERS, Chunker, ParameterError
from ..formats.folders import BUILD_ARTEFACTS, HIDDEN, FoundDocuments, find_documents
from ..formats.readers import DocumentError, read_document, read_questions
from ..text.length import UnitSized
from .export import from_dicts, json_line
from .files import chunk_file

__all__ = ["DEFAULT_STRATEGY", "build_parser", "main", "make_chunker", "parse_value"]

#: The strategy `chunk` and `index` use without ``--strategy``: the hybrid, the course's recommended
#: default (notebook 15 measures it against every other strategy; notebook 16 compares them all).
DEFAULT_STRATEGY = "hybrid"

class UsageError(Exception):
    """A mistake in the command (exit status 2); the message says what to change."""


# -- parameters ------------------------------------------------------------------------------------
def parse_value(constraint: Constraint, raw: str, where: str = "value") -> Any:
    """Parse the command-line string `raw` by the parameter's `constraint` (see
    `chunklab.constraints`: numbers, options, true/false, text, comma-separated lists, ``none``
    where None is allowed); ranges are left to the chunker's own validation. Raises `UsageError`
    naming `where`."""
    try:
        return constraint.parse(raw)
    except ValueError as error:
        raise UsageError(f"{where} {error}") from None


def make_chunker(name: str, assignments: Sequence[str] = ()) -> Chunker:
    """The registered chunker `name` built from ``KEY=VALUE`` strings (types from its signature).

    Raises `UsageError` for an unknown strategy or parameter or an unparsable value, and the
    chunker's own `ParameterError` for a value out of range.
    """
    if name not in CHUNKERS:
        known = ", ".join(sorted(CHUNKERS))
        raise UsageError(f"unknown strategy {name!r}; choose from {known} (see `chunklab strategies`)")
    cls = CHUNKERS[name]
    constraints = cls.constraints()
    params: dict[str, Any] = {}
    for assignment in assignments:
        key, sep, raw = assignment.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--param expects KEY=VALUE, got {assignment!r}")
        if key not in constraints:
            raise UsageError(f"strategy {name!r} has no parameter {key!r}; it has: {', '.join(constraints)}")
        params[key] = parse_value(constraints[key], raw, f"{name} parameter {key!r}")
    return cls(**params)


class _StrategyAction(argparse.Action):
    """``--strategy NAME`` starts a new chunker; ``--param`` adds to the most recent one (to the
    command's default strategy when none came before it)."""

    def __call__(self, parser: Any, namespace: Any, value: Any, option: str | None = None) -> None:
        strategies = list(getattr(namespace, "strategies", None) or [])
        default = getattr(namespace, "default_strategy", None)
        if self.dest == "strategies":
            strategies.append((value, []))
        elif not strategies and default is not None:
            strategies.append((default, [value]))
        elif not strategies:
            parser.error(f"{option} {value} comes before any --strategy; put it after the strategy it configures")
        else:
            strategies[-1][1].append(value)
        namespace.strategies = strategies


def _chunkers(strategies: Sequence[tuple[str, list[str]]] | None) -> list[Chunker]:
    """The chunkers of the ``--strategy`` options, or the `DEFAULT_STRATEGY` when there is none."""
    return [make_chunker(name, params) for name, params in strategies or [(DEFAULT_STRATEGY, [])]]


def _budgeted(chunkers: list[Chunker], budget: int | None) -> list[Chunker]:
    """`chunkers` sized for ``--budget`` (the characters the reader receives per question), which
    only a strategy with a ``budget`` parameter (the hybrid, the default) can take."""
    if budget is None:
        return chunkers
    for chunker in chunkers:
        if "budget" not in chunker.get_params():
            raise UsageError(f"--budget sizes the chunks of a strategy with a budget parameter (hybrid); "
                             f"{chunker.name!r} has none: give its sizes with --param")
    try:
        return [chunker.set_params(budget=budget) for chunker in chunkers]
    except ValueError as error:
        raise UsageError(str(error)) from error


# -- documents -------------------------------------------------------------------------------------
def _default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _chunk_task(
    chunker: Chunker, path: Path, name: str, html_source: bool, use_context: bool = False
) -> tuple[list[dict[str, Any]] | None, str | None]:
    """Worker: one file's records, or None and the reason it was skipped."""
    try:
        return chunk_file(chunker, path, name, html_source, use_context), None
    except DocumentError as error:
        return None, str(error)
    except Exception as error:  # a chunker failing on one document must not stop the others
        return None, f"{path}: the {chunker.name!r} chunker failed on it: {type(error).__name__}: {error}"


def _in_order(function: Callable[..., Any], tasks: Sequence[tuple], jobs: int) -> Iterator[Any]:
    """``function(*task)`` for every task, yielded in task order, computed by up to `jobs` processes."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from (function(*task) for task in tasks)
        return
    import multiprocessing

    # "spawn": workers start clean (no inherited threads or model sessions) on every platform.
    with ProcessPoolExecutor(min(jobs, len(tasks)), mp_context=multiprocessing.get_context("spawn")) as pool:
        waiting = iter(tasks)
        pending = collections.deque(pool.submit(function, *task) for task in itertools.islice(waiting, 4 * jobs))
        while pending:
            result = pending.popleft().result()
            for task in itertools.islice(waiting, 1):
                pending.append(pool.submit(function, *task))
            yield result


def _found(args: argparse.Namespace) -> FoundDocuments:
    """The documents under ``args.paths`` with the ``--include``, ``--exclude`` and
    ``--no-default-excludes`` rules; each problem is reported on stderr."""
    found = find_documents(args.paths, include=args.include, exclude=args.exclude,
                           default_excludes=args.default_excludes)
    for problem in found.problems:
        print(f"chunklab: {problem}", file=sys.stderr)
    return found


def _show_progress(args: argparse.Namespace) -> bool:
    """``--progress`` / ``--no-progress`` if given, else whether standard error is a terminal."""
    return sys.stderr.isatty() if args.progress is None else args.progress


def _chunked_files(
    chunker: Chunker, files: Sequence[tuple[str, Path]], args: argparse.Namespace, failures: list[str],
    action: str = "chunk", use_context: bool = False,
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``(name, records)`` of every document of `files` that could be chunked, in order (``--jobs``
    workers, ``--html-source`` and ``--progress`` from `args`; with `use_context`, each chunk with the
    context it is indexed with: `chunklab.pipeline.files.chunk_document`); what failed is appended to
    `failures` (and reported on stderr) as it happens. The progress bar is labelled `action`."""
    from tqdm.auto import tqdm

    tasks = [(chunker, path, name, args.html_source, use_context) for name, path in files]
    done = 0
    bar = tqdm(total=len(tasks), desc=f"{action} ({chunker.name})", unit="doc", disable=not _show_progress(args))
    with bar:
        try:
            for (_, _, name, _, _), (records, problem) in zip(tasks, _in_order(_chunk_task, tasks, args.jobs)):
                done += 1
                if problem is not None:
                    _report(failures, problem)
                else:
                    yield name, records
                bar.update()
        except BrokenProcessPool as error:
            # A worker was killed (out of memory, a crash in native code): what is written stays written.
            for _, path, _, _, _ in tasks[done:]:
                _report(failures, f"{path}: not chunked: a worker process died ({error})")


def _report(failures: list[str], message: str) -> None:
    """Keep and print a file that could not be chunked (the message starts with its path)."""
    failures.append(message)
    print(f"chunklab: failed: {message}", file=sys.stderr)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 chunk``, ``2 chunks``, ``0 chunks``: a count with its noun in the right number."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def _by_count(counts: collections.Counter[str]) -> str:
    return ", ".join(f"{key} {n}" for key, n in sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def _not_read(found: FoundDocuments) -> list[str]:
    """The summary's clauses for what was left unread on purpose: files of unsupported types by
    extension, build artefacts and hidden files, the ``--exclude`` / ``--include`` globs, linked
    folders already walked."""
    clauses = []
    if found.unsupported:
        clauses.append(f"{counted(found.unsupported.total(), 'file')} of types chunklab does not read "
                       f"({_by_count(found.unsupported)})")
    defaults = collections.Counter({k: n for k, n in found.excluded.items() if k in (*BUILD_ARTEFACTS, HIDDEN)})
    if defaults:
        clauses.append(f"{counted(defaults.total(), 'build artefact or hidden file', 'build artefacts and hidden files')}"
                       f" ({_by_count(defaults)}; --no-default-excludes reads them)")
    for option in ("--exclude", "--include"):
        if found.excluded[option]:
            clauses.append(f"{counted(found.excluded[option], 'file')} left out by {option}")
    if found.repeats:
        clauses.append(f"{counted(len(found.repeats), 'symlinked folder')} already walked ({found.repeats[0]}"
                       + (", ..." if len(found.repeats) > 1 else "") + ")")
    return clauses


def _summary(head: str, found: FoundDocuments, failures: Sequence[str]) -> str:
    """The closing line: `head`, the paths that failed (the first ten), and what was left unread and why."""
    failed = list(dict.fromkeys(_named([*map(str, found.problems), *failures])))
    parts = [head, f"{len(failed)} failed" + (": " + ", ".join(failed[:10]) if failed else "")
             + (", ..." if len(failed) > 10 else "")]
    not_read = _not_read(found)
    if not_read:
        parts.append("not read: " + ", ".join(not_read))
    return "chunklab: " + "; ".join(parts)


def _status(found: FoundDocuments, failures: Sequence[str], strict: bool) -> int:
    """1 if a path or a supported file failed, or with `strict` if anything was not read but by the
    user's own ``--exclude`` / ``--include``; else 0."""
    if found.problems or failures:
        return 1
    skipped = found.unsupported or found.repeats or any(k in (*BUILD_ARTEFACTS, HIDDEN) for k in found.excluded)
    return 1 if strict and skipped else 0


# -- commands --------------------------------------------------------------------------------------
def _cmd_strategies(args: argparse.Namespace, out: TextIO) -> int:
    for name in sorted(CHUNKERS):
        cls = CHUNKERS[name]
        summary = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        print(f"{name}  ({cls.__module__}.{cls.__name__})", file=out)
        print(f"    {' '.join(summary.split())}", file=out)
        for param, constraint in cls.constraints().items():
            allowed = constraint.describe()
            condition = cls.active_condition(param)  # e.g. "only with unit=tokens"
            allowed += f"; {condition}" if condition else ""
            default = cls.param_specs()[param].default
            print(f"    --param {param}={constraint.show(default)}    {allowed}", file=out)
        rules = rules_between(cls)
        if rules:
            print(f"    rules: {rules}", file=out)
    return 0


def rules_between(cls: type[Chunker]) -> str:
    """The rules that relate several parameters of `cls`, beyond each parameter's own bounds, in
    words: those every sized chunker shares (`chunklab.text.length.UnitSized`: a minimum below the
    size, token spans for a chunker that cuts at tokens), then the first paragraph of the docstring
    of its own `check`; empty when there are none."""
    rules = []
    if issubclass(cls, UnitSized):
        if "min_chunk_size" in cls.param_specs():
            rules.append("min_chunk_size < chunk_size")
        if cls.cuts_at_tokens:
            rules.append("with unit=tokens, the tokenizer must give token spans")
    if cls.check is not Chunker.check:
        rules.append(" ".join((cls.check.__doc__ or "").strip().split("\n\n")[0].replace("``", "").split()))
    return "; ".join(rules)


def _cmd_chunk(args: argparse.Namespace, out: TextIO) -> int:
    if args.strategies is not None and len(args.strategies) != 1:
        raise UsageError("chunk takes exactly one --strategy (use `index` or `evaluate` for several)")
    (chunker,) = _budgeted(_chunkers(args.strategies), args.budget)
    found = _found(args)
    failures: list[str] = []
    written = documents = 0
    target = out if args.out == "-" else open(args.out, "w", encoding="utf-8")
    try:
        for _, records in _chunked_files(chunker, found.files, args, failures):
            target.writelines(json_line(record) + "\n" for record in records)
            target.flush()
            written += len(records)
            documents += 1
    finally:
        if target is not out:
            target.close()
    where = "" if args.out == "-" else f" to {args.out}"
    head = f"{counted(written, 'chunk')} from {counted(documents, 'document')}{where}"
    print(_summary(head, found, failures), file=sys.stderr)
    return _status(found, failures, args.strict)


def _named(problems: Sequence[str]) -> list[str]:
    """The file or folder each problem is about (every message starts with its path and a colon)."""
    return [problem.partition(": ")[0] for problem in problems]


def _cmd_evaluate(args: argparse.Namespace, out: TextIO) -> int:
    from ..evaluation.comparison import compare, summarize
    from ..evaluation.verdicts import leaderboard

    chunkers = {repr(c): c for c in _chunkers(args.strategies)}
    found = _found(args)
    documents, unread = [], []
    for name, path in found.files:
        try:
            documents.append(read_document(path, name, html_source=args.html_source))
        except DocumentError as error:
            unread.append(error)
            print(f"chunklab: {error}", file=sys.stderr)
    if found.problems or unread:
        print("chunklab: evaluate needs every document the questions refer to; fix the files above", file=sys.stderr)
        return 1
    try:
        questions = read_questions(args.questions, documents)
    except DocumentError as error:
        raise UsageError(str(error)) from error
    retrievers = [_retriever(name) for name in args.retrievers or ("bm25", "dense")]
    try:
        budgets = {"budget": args.budgets} if args.budgets else {}
        result = compare(chunkers, documents, questions, retrievers=retrievers, **budgets,
                         progress=_show_progress(args), use_context=args.use_context)
    except ValueError as error:  # a budget that is not a positive integer
        raise UsageError(str(error)) from error
    if args.out:
        summarize(result).to_csv(args.out, index=False)
    measured: list[int] = sorted(result.rows["budget"].unique())
    print(f"{counted(len(documents), 'document')}, {counted(len(questions), 'question')}; every chunking sends the same "
          f"{result.unit_label()} per question: {', '.join(f'{b:,}' for b in measured)}", file=out)
    for retriever in result.rows["retriever"].unique():
        for budget in measured:
            board = leaderboard(result, retriever, budget)
            print(f"\n{retriever}, {budget:,} {result.unit_label()}: {_verdict(board)}", file=out)
            # "recommended: ..." only when the resampling gate passes; wrapped to fit a terminal
            print(textwrap.fill(str(board.attrs["gate"]), width=100), file=out)
            print(_board_text(board), file=out)
    return 0


def _board_text(board: Any) -> str:
    """A `chunklab.evaluation.verdicts.leaderboard` narrow enough for a terminal: the means, one row per
    chunking (`aliases` and `context` only when some row has one), then each chunking's comparison with
    the best on a line of its own (difference, interval and McNemar's p, as the `versus best` column
    words them). `leaderboard` in Python has every column."""
    shown = [c for c in ("chunker", "aliases", "context", "answered", "recall", "precision", "iou")
             if c not in ("aliases", "context") or board[c].astype(bool).any()]
    lines = [board[shown].round(3).to_string()]
    for rank, row in board.iterrows():
        if row["mark"] != "best":
            lines.append(f"{rank}. {row['chunker']}: {row['mark'] or 'measurably worse'}, {row['versus best']}")
    return "\n".join(lines)


def _verdict(board: Any) -> str:
    """The paired verdict of a `chunklab.evaluation.verdicts.leaderboard` in words: the best, the
    chunkings with no measurable difference from it, and how many are measurably worse."""
    from ..evaluation.verdicts import NO_DIFFERENCE

    best = board.loc[board["mark"] == "best", "chunker"].tolist()
    undecided = board.loc[board["mark"] == NO_DIFFERENCE, "chunker"].tolist()
    worse = int((board["mark"] == "").sum())
    words = f"best {', '.join(best)}"
    if undecided:
        words += f"; no measurable difference from it: {', '.join(undecided)}"
    return words + f"; measurably worse: {worse}"


def _retriever(name: str) -> Any:
    """A retriever by its short name: one of `RETRIEVERS`, or ``chroma`` (dense retrieval served by
    ChromaDB, from the pipeline's store, imported only when asked for)."""
    if name == "chroma":
        from .store import ChromaRetriever

        return ChromaRetriever()
    return name


def _cmd_index(args: argparse.Namespace, out: TextIO) -> int:
    from . import store

    chunkers = _budgeted(_chunkers(args.strategies), args.budget)
    found = _found(args)
    client = None  # the store is created only when there is something to put in it
    failures: list[str] = []
    for chunker in chunkers:
        chunks = (chunk for _, records in _chunked_files(chunker, found.files, args, failures, action="index",
                                                         use_context=args.use_context)
                  for chunk in from_dicts(records))
        first = next(chunks, None)
        if first is None:
            print(f"chunklab index: no chunks to index for {chunker!r}", file=sys.stderr)
            continue
        client = client or store.open_store(args.store)
        done = store.index_stream(client, chunker, itertools.chain([first], chunks), use_context=args.use_context)
        print(f"{done.collection.name}\t{counted(done.collection.count(), 'chunk')}\t{chunker!r}", file=out)
        removed = f", {done.removed} removed (no longer produced)" if done.removed else ""
        print(f"chunklab index: {counted(done.new, 'new chunk')}, {done.kept} already indexed{removed}",
              file=sys.stderr)
    print(_summary(counted(len(found.files), "document") + " found", found, failures), file=sys.stderr)
    return _status(found, failures, args.strict)


def _cmd_query(args: argparse.Namespace, out: TextIO) -> int:
    from . import store

    try:
        hits = store.query(store.open_store(args.store, create=False), args.collection, args.question, k=args.k,
                           where=args.where, budget=args.budget)
    except (FileNotFoundError, ValueError) as error:
        raise UsageError(str(error)) from error
    for rank, hit in enumerate(hits, 1):
        if args.json:
            print(json_line(hit.record()), file=out)
            continue
        chunk = hit.chunk
        print(f"{rank}. {hit.score:.3f}  {chunk.metadata.get('source', '?')} [{chunk.start}, {chunk.end})", file=out)
        print(f"   {' '.join(hit.sent_text.split())[:args.width]}", file=out)
    if not hits:
        print("chunklab query: no chunk matches" + (" the filter" if args.where else ""), file=sys.stderr)
    return 0


# -- the parser ------------------------------------------------------------------------------------
_EXAMPLES = """examples:
  chunklab strategies
  chunklab chunk docs/ --out chunks.jsonl                  (the hybrid, the recommended default)
  chunklab chunk docs/ --strategy fixed --param chunk_size=400 --param chunk_overlap=40 --out chunks.jsonl
  chunklab chunk site/ --include '*.html' --exclude 'genindex*' --out chunks.jsonl
  chunklab evaluate docs/ --questions questions.jsonl --strategy fixed --param chunk_size=300 \\
      --strategy fixed --param chunk_size=1200
  chunklab index docs/ --store chroma-db --strategy fixed --param chunk_size=400
  chunklab query --store chroma-db --collection fixed-6953daa7 --where source=report.pdf "What changed in 2025?"
"""

def build_parser() -> argparse.ArgumentParser:
    """The ``chunklab`` argument parser (one sub-command per job)."""
    parser = argparse.ArgumentParser(
        prog="chunklab", description="Chunk, measure, index and query your own documents with chunklab's strategies.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=_EXAMPLES,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    strategies = commands.add_parser("strategies", help="list every chunking strategy and its parameters")
    strategies.set_defaults(run=_cmd_strategies)

    def documents(sub: argparse.ArgumentParser, several: bool, default: bool) -> None:
        sub.add_argument("paths", nargs="+", metavar="PATH",
                         help="files or folders (.md .txt .html .csv .pdf .docx .json .jsonl .ipynb, source code); "
                              "folders are walked recursively, symlinked folders included")
        strategy = "a registered strategy" + (" (repeat for several)" if several else "")
        if default:
            strategy += f" (default: {DEFAULT_STRATEGY}, the course's recommended strategy)"
            sub.set_defaults(default_strategy=DEFAULT_STRATEGY)
        sub.add_argument("--strategy", dest="strategies", action=_StrategyAction, required=not default,
                         metavar="NAME", help=strategy)
        sub.add_argument("--param", dest="params", action=_StrategyAction, metavar="KEY=VALUE",
                         help="a parameter of the --strategy before it" + (", or of the default one" if default else "")
                              + " (repeatable)")
        sub.add_argument("--include", action="append", default=[], metavar="GLOB",
                         help="in folders, read only files whose path inside the folder or name matches GLOB "
                              "(repeatable; '*' also matches '/')")
        sub.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                         help="in folders, leave out files and folders whose path or name matches GLOB (repeatable)")
        sub.add_argument("--no-default-excludes", dest="default_excludes", action="store_false",
                         help=f"also read hidden files and folders and build artefacts ({', '.join(BUILD_ARTEFACTS)}),"
                              " which are left out by default")
        sub.add_argument("--html-source", action="store_true",
                         help="read web pages as their HTML source, markup included (default: their main text)")
        sub.add_argument("--progress", dest="progress", action="store_true", default=None,
                         help="always show the progress bar (default: only when standard error is a terminal)")
        sub.add_argument("--no-progress", dest="progress", action="store_false", help="never show it")

    def strict(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--strict", action="store_true",
                         help="exit 1 if any file was not read (unsupported type, build artefact, hidden, linked "
                              "folder already walked), not only when one failed; --exclude/--include still apply")

    def jobs(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--jobs", "-j", type=int, default=_default_jobs(),
                         help="worker processes (default: all cores, here %(default)s); the output is the same")

    chunk = commands.add_parser("chunk", help="chunk files into JSON Lines, one chunk per line")
    documents(chunk, several=False, default=True)
    chunk.add_argument("--out", "-o", default="-", metavar="FILE", help="output file (default: standard output)")
    chunk.add_argument("--budget", type=int, metavar="N", help="characters the reader receives per question: the hybrid derives its chunk size and overlap from it (chunklab.strategies.budget_rule)")
    jobs(chunk)
    strict(chunk)
    chunk.set_defaults(run=_cmd_chunk)

    evaluate = commands.add_parser("evaluate", help="measure strategies with your own questions")
    documents(evaluate, several=True, default=False)
    evaluate.add_argument("--questions", required=True, metavar="FILE.jsonl",
                          help="questions in the shape of data/questions_dev.jsonl, about these documents")
    evaluate.add_argument("--retriever", dest="retrievers", action="append", metavar="NAME",
                          help="bm25, dense, bm25_rerank, hybrid or chroma (repeatable; default: bm25 and dense)")
    evaluate.add_argument("--budget", dest="budgets", type=int, action="append", metavar="N",
                          help="characters sent per question (repeatable; default: compare's, "
                               "doubling from 250 to 4,000)")
    evaluate.add_argument("--use-context", action="store_true",
                          help="index each chunk with a context before its text: its chunker's own, else the "
                               "document's title and section breadcrumb (default: the text alone)")
    evaluate.add_argument("--out", "-o", metavar="FILE.csv", help="also save the full table as CSV")
    evaluate.set_defaults(run=_cmd_evaluate)

    index = commands.add_parser("index", help="put each strategy's chunks into its own ChromaDB collection")
    documents(index, several=True, default=True)
    index.add_argument("--store", required=True, metavar="DIR", help="the ChromaDB folder (created if missing)")
    index.add_argument("--use-context", action="store_true",
                       help="embed each chunk with a context before its text, by the rule of evaluate "
                            "--use-context: its chunker's own, else the document's title and section breadcrumb, "
                            "then kept in its metadata as context (default: the text alone)")
    index.add_argument("--budget", type=int, metavar="N", help="characters the reader receives per question: the hybrid derives its chunk size and overlap from it (chunklab.strategies.budget_rule)")
    jobs(index)
    strict(index)
    index.set_defaults(run=_cmd_index)

    query = commands.add_parser("query", help="the chunks of a collection closest to a question")
    query.add_argument("question")
    query.add_argument("--store", required=True, metavar="DIR", help="the ChromaDB folder `chunklab index` wrote")
    query.add_argument("--collection", required=True, metavar="NAME", help="a name printed by `chunklab index`")
    query.add_argument("--where", action="append", default=[], metavar="KEY=VALUE",
                       help="metadata filter, e.g. source=guide.md, start>=1000, entities=Ada Brook (a list "
                            "field: contains); repeatable, all must hold")
    query.add_argument("-k", type=int, default=5, help="chunks to return (default %(default)s)")
    query.add_argument("--budget", type=int, metavar="N",
                       help="instead of -k: send hits best first until N characters are sent, each hit only the "
                            "text better hits have not sent (overlapping chunks never pay twice)")
    query.add_argument("--json", action="store_true", help="print each hit as a JSON line")
    query.add_argument("--width", type=int, default=160, help=argparse.SUPPRESS)
    query.set_defaults(run=_cmd_query)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the command line with `argv` (default: ``sys.argv[1:]``); returns the exit status.

    Results go to `out` (default: standard output), diagnostics and progress to standard error. With
    more than one job, documents are chunked in spawned worker processes: a script that calls `main`
    must do so under ``if __name__ == "__main__":`` (as for any use of `multiprocessing`).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "jobs", 1) < 1:
        parser.error("--jobs must be at least 1")
    try:
        return args.run(args, out or sys.stdout)
    except (UsageError, ParameterError) as error:
        print(f"chunklab {args.command}: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`chunklab strategies | head`): stop quietly, as the Python docs advise.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
