"""The library as a newcomer installs it: a wheel in a fresh virtual environment, outside the repo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((REPO / "data" / "corpus.json").read_text(encoding="utf-8"))
#: The course corpus that `list_documents()` names: the manifest without the real-documents dev collection.
MANIFEST_SIZE = sum("collection" not in entry for entry in MANIFEST.values())
DEV_REAL_SIZE = len(MANIFEST) - MANIFEST_SIZE

SCRIPT = textwrap.dedent(
    """
    import pathlib, chunklab
    from chunklab.strategies import FixedSizeChunker
    assert "site-packages" in chunklab.__file__, chunklab.__file__
    text = "The weir was built in 1911. Salmon were counted by hand. " * 20
    chunks = FixedSizeChunker(chunk_size=100, chunk_overlap=20)(text)
    assert chunks and all(text[c.start:c.end] == c.text for c in chunks)
    names = chunklab.list_documents()
    assert "manual" in names and len(names) == MANIFEST_SIZE, names
    assert len(chunklab.list_documents("dev_real")) == DEV_REAL_SIZE
    assert chunklab.load_document("python_json").metadata["licence_path"].is_file()
    doc = chunklab.load_document("manual")
    for q in chunklab.load_questions("manual"):
        for a in q["answers"]:
            assert doc.text[a["start"]:a["end"]] == a["text"]
    print("ok", len(chunks), len(names), chunklab.formats.corpus.data_dir())
    """
).replace("MANIFEST_SIZE", str(MANIFEST_SIZE)).replace("DEV_REAL_SIZE", str(DEV_REAL_SIZE))


def test_wheel_installs_and_works_outside_the_repository(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(REPO)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    # The distribution is chunklab-course (pyproject.toml: "chunklab" on PyPI is another project); its import name is chunklab.
    (wheel,) = wheels.glob("chunklab_course-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # without PYTHONPATH: a clone on it (its build left chunklab_course.egg-info there) would look installed to pip
    clean = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True,
                             text=True, cwd=tmp_path, env=clean)
    assert install.returncode == 0, install.stderr[-2000:]
    run = subprocess.run([str(python), "-c", SCRIPT], capture_output=True, text=True, cwd=tmp_path,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("ok") and str(venv) in run.stdout

    # The console script works with the core dependencies alone; a PDF then needs the pdf extra.
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nThe weir was built in 1911. Salmon were counted by hand. " * 10, encoding="utf-8")
    command = [str(venv / "bin" / "chunklab"), "chunk", str(note), str(REPO / "data" / "documents" / "report.pdf"),
               "--strategy", "fixed", "--param", "chunk_size=200", "--jobs", "1"]
    script = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path,
                            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert script.returncode == 1, script.stderr[-2000:]
    assert "report.pdf: reading a PDF needs pypdfium2 (pip install -e '.[pdf]' in a chunklab clone)" in script.stderr
    text = note.read_text(encoding="utf-8")
    records = [json.loads(line) for line in script.stdout.splitlines()]
    assert records and all(text[r["start"] : r["end"]] == r["text"] for r in records)
