"""The `chunklab` command line: strategies, chunk (jobs, order, bad files), evaluate."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from chunklab import load_document, load_questions
from chunklab.core import CHUNKERS, ParameterError
from chunklab.formats.readers import read_document
from chunklab.constraints import Param, constraint_for
from chunklab.pipeline.cli import UsageError, main, make_chunker, parse_value
from chunklab.pipeline.export import json_line, read_jsonl
from chunklab.pipeline.files import chunk_file
from chunklab.strategies import FixedSizeChunker

CORPUS = ["manual", "report", "stations", "field_guide"]


@pytest.fixture(scope="module")
def docs_dir(tmp_path_factory) -> Path:
    """A folder of corpus files (markdown, PDF, CSV, HTML) and a nested text file."""
    root = tmp_path_factory.mktemp("docs")
    for name in CORPUS:
        path = load_document(name).path
        shutil.copy(path, root / path.name)
    (root / "sub").mkdir()
    (root / "sub" / "note.txt").write_text("A short note.\r\nSecond line, with CRLF.\r\n", encoding="utf-8")
    return root


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    out = io.StringIO()
    status = main(argv, out=out)
    return status, out.getvalue(), capsys.readouterr().err


def test_strategies_lists_every_parameter_with_default_and_range(capsys):
    status, out, _ = run(["strategies"], capsys)
    assert status == 0
    assert "fixed  (chunklab.strategies.fixed.FixedSizeChunker)" in out
    assert "--param chunk_size=600    int in [1, inf]" in out
    assert "--param unit=chars    one of: chars, words, tokens" in out
    assert "--param snap_to_words=False    bool; only with unit=chars or tokens" in out
    tokenizer = "--param tokenizer=minilm    one of: minilm, cl100k (or an object, from Python)"
    assert f"{tokenizer}; only with unit=tokens" in out
    assert "--param similarity=0.25    float in [-1.0, 1.0]; only with parents=semantic" in out


def test_chunk_writes_the_pipeline_records_in_input_order(docs_dir, tmp_path, capsys):
    target = tmp_path / "chunks.jsonl"
    status, _, err = run(["chunk", str(docs_dir), "--strategy", "fixed", "--param", "chunk_size=300",
                          "--param", "chunk_overlap=30", "--out", str(target), "--jobs", "1"], capsys)
    assert status == 0, err
    chunker = FixedSizeChunker(chunk_size=300, chunk_overlap=30)
    names = sorted(p.name for p in docs_dir.glob("*.*")) + ["sub/note.txt"]
    expected = [json_line(r) for name in names for r in chunk_file(chunker, docs_dir / name, name)]
    assert target.read_text(encoding="utf-8").splitlines() == expected
    assert f"{len(expected)} chunks from {len(names)} documents" in err
    # the records read back as chunks whose offsets hold in the documents as read (a web page: its main text)
    texts = {load_document(n).path.name: read_document(load_document(n).path).text for n in CORPUS}
    assert not texts["field_guide.html"].startswith("<")
    for chunk in read_jsonl(target):
        source = chunk.metadata["source"]
        if source in texts:
            assert texts[source][chunk.start : chunk.end] == chunk.text


def test_pdf_chunks_carry_the_pages_they_touch(docs_dir, tmp_path, capsys):
    report = read_document(docs_dir / "report.pdf")  # as the command reads it: without its running lines
    status, out, _ = run(["chunk", str(docs_dir / "report.pdf"), "--strategy", "fixed", "--param", "chunk_size=700"], capsys)
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    spans = report.metadata["pages"]
    for r in records:
        touched = [n for n, (s, e) in enumerate(spans, 1) if s < r["end"] and r["start"] < e]
        assert r["metadata"]["pages"] == touched and r["metadata"]["page"] == touched[0]
    assert any(len(r["metadata"]["pages"]) == 2 for r in records)
    assert {r["metadata"]["page"] for r in records} == set(range(1, len(spans) + 1))


def test_output_does_not_depend_on_jobs(docs_dir, tmp_path, capsys):
    outputs = []
    for jobs in ("1", "3"):
        target = tmp_path / f"jobs{jobs}.jsonl"
        status, _, err = run(["chunk", str(docs_dir), "--strategy", "fixed", "--out", str(target), "-j", jobs], capsys)
        assert status == 0, err
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") > 100


def test_bad_files_are_reported_and_the_rest_is_kept(docs_dir, tmp_path, capsys):
    mixed = tmp_path / "mixed"
    shutil.copytree(docs_dir, mixed)
    (mixed / "latin1.txt").write_bytes("caf\u00e9".encode("latin-1"))
    (mixed / "broken.pdf").write_bytes(load_document("report").path.read_bytes()[:3000])
    (mixed / "gone.md").symlink_to(mixed / "nowhere.md")
    target = tmp_path / "out.jsonl"
    status, _, err = run(["chunk", str(mixed), str(tmp_path / "missing-folder"), "--strategy", "fixed",
                          "--out", str(target), "--jobs", "2"], capsys)
    assert status == 1
    assert "missing-folder: no such file or folder" in err
    assert "latin1.txt: not UTF-8 text: byte 0xe9 at offset 3" in err
    assert "broken.pdf" in err and "cannot read PDF" in err
    assert "gone.md: no such file" in err
    assert "; 4 failed: " in err.splitlines()[-1]
    sources = {json.loads(line)["metadata"]["source"] for line in target.read_text().splitlines()}
    assert sources == {p.name for p in docs_dir.glob("*.*")} | {"sub/note.txt"}


class CrashingChunker(FixedSizeChunker):
    """Kills its worker process on a text that asks for it (a stand-in for an out-of-memory kill)."""

    name = "crash"

    def spans(self, text):
        if "CRASH" in text:
            os._exit(3)
        return super().spans(text)


def test_a_dead_worker_is_reported_and_written_documents_stay(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(CHUNKERS, "crash", CrashingChunker)
    for name, text in [("a.md", "fine text"), ("b.md", "CRASH here"), ("c.md", "more fine text")]:
        (tmp_path / name).write_text(text)
    target = tmp_path / "out.jsonl"
    status, _, err = run(["chunk", str(tmp_path), "--strategy", "crash", "--out", str(target), "--jobs", "2"], capsys)
    assert status == 1
    assert "b.md: not chunked: a worker process died" in err
    written = {json.loads(line)["metadata"]["source"] for line in target.read_text().splitlines()}
    reported = {name for name in ("a.md", "c.md") if f"{name}: not chunked" in err}
    assert written | reported == {"a.md", "c.md"} and not written & reported


def test_empty_folder_and_stdout(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    status, out, err = run(["chunk", str(tmp_path / "empty"), "--strategy", "fixed"], capsys)
    assert status == 1 and out == ""
    assert "empty: no file in this folder" in err and "0 chunks from 0 documents; 1 failed: " in err
    (tmp_path / "one.md").write_text("# One\n\nSome words here.\n")
    status, out, _ = run(["chunk", str(tmp_path / "one.md"), "--strategy", "fixed"], capsys)
    assert status == 0 and json.loads(out)["text"] == "# One\n\nSome words here."


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--strategy", "nope"], "unknown strategy 'nope'; choose from"),
        (["--strategy", "fixed", "--param", "chunk_size=abc"], "fixed parameter 'chunk_size' must be an integer; got 'abc'"),
        (["--strategy", "fixed", "--param", "colour=red"], "strategy 'fixed' has no parameter 'colour'; it has: chunk_size"),
        (["--strategy", "fixed", "--param", "size"], "--param expects KEY=VALUE"),
        (["--strategy", "fixed", "--param", "unit=lines"], "must be one of chars, words, tokens; got 'lines'"),
        (["--strategy", "fixed", "--param", "chunk_size=100", "--param", "chunk_overlap=100"],
         "parameter 'chunk_overlap' must be smaller"),
        (["--strategy", "fixed", "--param", "chunk_size=0"], "parameter 'chunk_size' must be in [1, inf], got 0"),
        (["--strategy", "fixed", "--strategy", "fixed"], "chunk takes exactly one --strategy"),
    ],
)
def test_usage_errors_exit_2_with_the_chunkers_own_message(tmp_path, capsys, argv, message):
    (tmp_path / "a.md").write_text("text")
    status, out, err = run(["chunk", str(tmp_path / "a.md"), *argv], capsys)
    assert status == 2 and out == ""
    assert message in err


def test_param_before_strategy_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["evaluate", "x.md", "--questions", "q.jsonl", "--param", "chunk_size=3", "--strategy", "fixed"])
    assert info.value.code == 2
    assert "comes before any --strategy" in capsys.readouterr().err


def test_parse_value_understands_every_kind_of_constraint():
    import enum

    class Mode(enum.Enum):
        FAST = "fast"

    def parse(hint, raw):
        return parse_value(constraint_for(hint), raw)

    assert parse(int, "12") == 12 and parse(float, "0.5") == 0.5
    assert parse(bool, "Yes") is True and parse(bool, "off") is False
    assert parse(typing.Literal["a", 3], "3") == 3
    assert parse(tuple[str, ...], " Article , Section,, ") == ("Article", "Section")
    assert parse(int | None, "none") is None and parse(typing.Optional[int], "4") == 4
    assert parse(Mode, "fast") is Mode.FAST and parse(Mode, "FAST") is Mode.FAST
    assert parse(str, "a=b") == "a=b"
    for hint, raw in [(bool, "maybe"), (float, "x"), (Mode, "slow"), (typing.Callable, "f")]:
        with pytest.raises(UsageError):
            parse(hint, raw)
    assert constraint_for(typing.Callable).describe() == "a callable (set it from Python; the command line cannot)"
    assert constraint_for(Mode).describe() == "one of: fast"
    assert constraint_for(typing.Annotated[float | None, Param(low=0, high=1)]).describe() == "float in [0, 1] (or none)"
    assert constraint_for(typing.Annotated[float, Param(low=0)] | None).describe() == "float in [0, inf] (or none)"
    with pytest.raises(TypeError, match="not a number"):
        constraint_for(typing.Annotated[str, Param(low=0)])


def test_make_chunker_uses_the_registry_and_validation():
    assert make_chunker("fixed", ["chunk_size=50", "unit=words", "snap_to_words=true"]) == FixedSizeChunker(
        chunk_size=50, unit="words", snap_to_words=True)
    with pytest.raises(ParameterError):
        make_chunker("fixed", ["chunk_overlap=-1"])


def _own_questions(tmp_path: Path, docs_dir: Path) -> Path:
    """The corpus questions about two documents, rewritten to refer to them by file name."""
    questions = []
    for name in ("manual", "field_guide"):
        file_name = load_document(name).path.name
        questions += [{**q, "doc": file_name} for q in load_questions(name)[:6]]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return path


def test_evaluate_prints_the_budget_view_with_paired_verdicts(docs_dir, tmp_path, capsys):
    from chunklab.evaluation.comparison import compare
    from chunklab.evaluation.verdicts import leaderboard
    from chunklab.formats.readers import read_questions

    questions = _own_questions(tmp_path, docs_dir)
    files = [str(docs_dir / load_document(n).path.name) for n in ("manual", "field_guide")]
    argv = ["evaluate", *files, "--questions", str(questions), "--strategy", "fixed", "--param", "chunk_size=200",
            "--strategy", "fixed", "--param", "chunk_size=800", "--retriever", "bm25", "--budget", "500",
            "--budget", "1000", "--no-progress", "--out", str(tmp_path / "t.csv")]
    status, _, err = run(argv, capsys)
    assert status == 2 and "does not match 'field_guide.html'" in err, "the corpus spans index the page's source"
    status, out, err = run([*argv, "--html-source"], capsys)
    assert status == 0, err
    assert "2 documents, 12 questions; every chunking sends the same characters per question: 500, 1,000" in out
    # The leaderboards are the library's, verdicts included.
    documents = [read_document(Path(f), Path(f).name, html_source=True) for f in files]
    chunkers = {repr(c): c for c in (FixedSizeChunker(chunk_size=200), FixedSizeChunker(chunk_size=800))}
    result = compare(chunkers, documents, read_questions(str(questions), documents), retrievers=("bm25",),
                     budget=[500, 1000], progress=False)
    for budget in (500, 1000):
        board = leaderboard(result, "bm25", budget)
        best = board.loc[board["mark"] == "best", "chunker"].iloc[0]
        assert f"bm25, {budget:,} characters: best {best}" in out
        assert board[["chunker", "answered", "recall", "precision", "iou"]].round(3).to_string() in out
        for rank, row in board[board["mark"] != "best"].iterrows():  # each comparison with the best on its own line
            assert f"{rank}. {row['chunker']}: {row['mark'] or 'measurably worse'}, {row['versus best']}\n" in out
    assert max(map(len, out.splitlines())) <= 160, "the leaderboards fit a terminal"
    assert (tmp_path / "t.csv").read_text().count("\n") == 1 + 2 * 2  # header, 2 chunkings x 2 budgets
    status, _, err = run([*argv[:-3], "--budget", "0", "--html-source"], capsys)
    assert status == 2 and "budget" in err


def test_evaluate_names_the_bad_question_line(docs_dir, tmp_path, capsys):
    questions = _own_questions(tmp_path, docs_dir)
    lines = questions.read_text().splitlines()
    record = json.loads(lines[3])
    record["answers"][0]["start"] += 1
    lines[3] = json.dumps(record)
    questions.write_text("\n".join(lines) + "\n")
    files = [str(docs_dir / load_document(n).path.name) for n in ("manual", "field_guide")]
    status, out, err = run(["evaluate", *files, "--questions", str(questions), "--strategy", "fixed"], capsys)
    assert status == 2 and out == ""
    assert "questions.jsonl:4: answer 1: 'text' does not match 'manual.md'" in err


def test_python_dash_m_runs_the_command_line():
    command = [sys.executable, "-m", "chunklab", "strategies"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "\nfixed  (chunklab.strategies.fixed.FixedSizeChunker)\n" in "\n" + result.stdout
    result = subprocess.run([sys.executable, "-m", "chunklab"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "COMMAND" in result.stderr
    # A reader that stops early (megabytes of chunks into `head`) ends the run quietly.
    corpus = load_document("manual").path.parent
    piped = subprocess.run(f"'{sys.executable}' -m chunklab chunk '{corpus}' --strategy fixed --jobs 1 | head -n 1",
                           shell=True, capture_output=True, text=True, timeout=120)
    assert piped.stdout.count("\n") == 1 and "Traceback" not in piped.stderr, piped.stderr


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("chunklab")
    assert script.exists(), "reinstall with `make install` (pyproject.toml declares the chunklab script)"
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "strategies" in result.stdout


def test_a_folder_of_real_world_files_gives_clean_chunks_and_names_what_it_skipped(tmp_path, capsys):
    """The folder of the issue: a web page with furniture, a Word file, JSON, a notebook, code in
    several languages, a German and a Chinese notice, and two files chunklab cannot read."""
    from test_formats_read import notebook, write_docx
    from test_web import EXPECTED, MARKUP, PAGES, words

    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(PAGES / "news_seed_library.html", folder / "news.html")
    write_docx(folder / "ops.docx")
    (folder / "berths.json").write_text(json.dumps({"berths": [{"id": i, "depth_m": 4 + i} for i in range(30)]}),
                                        encoding="utf-8")
    (folder / "tides.ipynb").write_text(notebook([("markdown", "# Tides"), ("code", "import csv")]), encoding="utf-8")
    (folder / "ring.go").write_text("package ring\n\nfunc Owner() int {\n\treturn 1\n}\n", encoding="utf-8")
    (folder / "ring.rs").write_text("fn owner() -> u32 {\n    1\n}\n", encoding="utf-8")
    (folder / "hinweis.txt").write_text("Die Fähre fährt bis zum 3. Mai nur stündlich. Danach gilt wieder "
                                        "der Sommerfahrplan.\n", encoding="utf-8")
    (folder / "通知.txt").write_text("渡轮五月三日前每小时一班。之后恢复夏季时刻表！\n", encoding="utf-8")
    (folder / "budget.xlsx").write_bytes(b"PK\x03\x04")
    (folder / "photo.png").write_bytes(b"\x89PNG")
    target = tmp_path / "out.jsonl"
    status, out, err = run(["chunk", str(folder), "--strategy", "recursive", "--out", str(target), "--jobs", "2",
                            "--no-progress"], capsys)
    assert status == 0 and "Traceback" not in err
    assert err.splitlines()[-1] == (f"chunklab: {len(read_jsonl(target))} chunks from 8 documents to {target}; 0 failed; "
                                    "not read: 2 files of types chunklab does not read (.png 1, .xlsx 1)")
    chunks = read_jsonl(target)
    by_source = {}
    for chunk in chunks:
        by_source.setdefault(chunk.metadata["source"], []).append(chunk)
    assert sorted(by_source) == sorted(["news.html", "ops.docx", "berths.json", "tides.ipynb", "ring.go", "ring.rs",
                                        "hinweis.txt", "通知.txt"])
    for source, pieces in by_source.items():
        document = read_document(folder / source)
        assert all(document.text[c.start : c.end] == c.text for c in pieces)
        assert not any(MARKUP.search(c.text) for c in pieces), source
        assert words(" ".join(c.text for c in pieces)) == words(document.text), f"{source}: text lost"
    news = words(" ".join(c.text for c in by_source["news.html"]))
    assert all(words(passage) in news for passage in EXPECTED["news_seed_library.html"]["main"])


def test_one_chunk_and_one_document_are_singular(tmp_path, capsys):
    (tmp_path / "one.md").write_text("Short.\n")
    status, out, err = run(["chunk", str(tmp_path / "one.md"), "--strategy", "fixed"], capsys)
    assert status == 0 and out.count("\n") == 1
    assert err.splitlines()[-1] == "chunklab: 1 chunk from 1 document; 0 failed"


def test_chunk_without_a_strategy_uses_the_recommended_default(docs_dir, capsys):
    from chunklab.pipeline.cli import DEFAULT_STRATEGY, build_parser

    assert DEFAULT_STRATEGY == "hybrid" and DEFAULT_STRATEGY in CHUNKERS
    manual = docs_dir / load_document("manual").path.name
    status, out, _ = run(["chunk", str(manual)], capsys)
    assert status == 0
    expected = chunk_file(make_chunker(DEFAULT_STRATEGY), manual, manual.name)
    assert out.splitlines() == [json_line(r) for r in expected]
    status, out, _ = run(["chunk", str(manual), "--param", "chunk_size=300"], capsys)
    configured = chunk_file(make_chunker(DEFAULT_STRATEGY, ["chunk_size=300"]), manual, manual.name)
    assert status == 0 and out.splitlines() == [json_line(r) for r in configured] != [json_line(r) for r in expected]
    chunk_help = build_parser()._subparsers._group_actions[0].choices["chunk"].format_help()
    assert "default: hybrid, the course's recommended strategy" in " ".join(chunk_help.split())


class Terminal(io.StringIO):
    """Standard error as a terminal shows it."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal, flag, shown", [
    (True, [], True), (False, [], False), (False, ["--progress"], True), (True, ["--no-progress"], False),
])
def test_the_progress_bar_is_drawn_only_on_a_terminal(tmp_path, monkeypatch, terminal, flag, shown):
    (tmp_path / "a.md").write_text("Some text to chunk.\n")
    stderr = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    assert main(["chunk", str(tmp_path / "a.md"), "--strategy", "fixed", "--jobs", "1", *flag], out=io.StringIO()) == 0
    assert ("chunk (fixed)" in stderr.getvalue()) is shown, stderr.getvalue()


def test_evaluate_draws_no_bar_into_a_redirected_stderr(docs_dir, tmp_path, monkeypatch):
    questions = _own_questions(tmp_path, docs_dir)
    files = [str(docs_dir / load_document(n).path.name) for n in ("manual", "field_guide")]
    argv = ["evaluate", *files, "--questions", str(questions), "--html-source", "--strategy", "fixed",
            "--retriever", "bm25"]
    for stderr, shown in ((io.StringIO(), False), (Terminal(), True)):
        monkeypatch.setattr(sys, "stderr", stderr)
        assert main(argv, out=io.StringIO()) == 0
        assert ("compare" in stderr.getvalue()) is shown, stderr.getvalue()


def test_a_re_index_says_that_nothing_was_new(tmp_path, capsys):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Tides\n\nThe tide turns twice a day.\n\n## Ferries\n\nThe ferry waits for it.\n")
    (folder / "b.md").write_text("A single line.\n")
    argv = ["index", str(folder), "--store", str(tmp_path / "db"), "--strategy", "fixed", "--param", "chunk_size=30",
            "--jobs", "1"]
    status, out, err = run(argv, capsys)
    total = int(out.split("\t")[1].split()[0])
    assert status == 0 and total > 2
    assert f"chunklab index: {total} new chunks, 0 already indexed" in err
    assert err.splitlines()[-1] == "chunklab: 2 documents found; 0 failed"
    status, out, err = run(argv, capsys)
    assert status == 0 and f"chunklab index: 0 new chunks, {total} already indexed" in err
    (folder / "b.md").write_text("Another single line.\n")
    status, out, err = run(argv, capsys)
    assert f"chunklab index: 1 new chunk, {total - 1} already indexed, 1 removed (no longer produced)" in err
