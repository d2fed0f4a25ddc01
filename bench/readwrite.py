"""Per-call cost of reading a trace and of writing report.json's parts: the orjson fast path
against the strict reader and json, in one process, alternating, CPU time, medians.

    python bench/readwrite.py [--n 50] [--rounds 9]

Traces: bench/corpus.py's (~20 KB each). Rows: the case rows of a run over them, repeated to
2,000. The strict path is timed with orjson switched off (`fastjson._orjson = None`), so both
paths read the same bytes in the same process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import case_yaml, make_cases, make_trace  # noqa: E402

from validator import fastjson  # noqa: E402
from validator.cli import main as cli  # noqa: E402
from validator.traces import parse_document  # noqa: E402


def _cpu(fn: Callable[[], object], times: int) -> float:
    start = time.process_time()
    for _ in range(times):
        fn()
    return (time.process_time() - start) / times


def _strict(fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        saved, fastjson._orjson = fastjson._orjson, None
        try:
            return fn()
        finally:
            fastjson._orjson = saved

    return run


def _rows(traces: Path, cases: Path) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        cli(["run", "--cases", str(cases), "--fixtures", str(traces), "--out", tmp, "-q"])
        return json.loads((Path(tmp) / "report.json").read_text("utf-8"))["cases"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    if not fastjson.available():
        raise SystemExit("orjson is not installed: nothing to compare")
    import orjson

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "cases").mkdir()
        (root / "traces").mkdir()
        datas = []
        for case in make_cases(args.n, 7):
            (root / "cases" / f"{case.id}.yaml").write_text(case_yaml(case), "utf-8")
            trace, _ = make_trace(case, 0, 7)
            data = json.dumps(trace, ensure_ascii=False).encode("utf-8")
            (root / "traces" / f"{case.id}.json").write_bytes(data)
            datas.append(data)
        rows = _rows(root / "traces", root / "cases")
    rows = (rows * (2000 // len(rows) + 1))[:2000]
    head = {"summary": {"total": 2000, "pass_rate": 0.78, "avg_duration_ms": 33806.32}}
    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
    timed: dict[str, Callable[[], object]] = {
        "parse_document, fast path": lambda: [parse_document(d) for d in datas],
        "parse_document, strict path": _strict(lambda: [parse_document(d) for d in datas]),
        "json.loads": lambda: [json.loads(d) for d in datas],
        "orjson.loads": lambda: [orjson.loads(d) for d in datas],
        "2,000 rows, json (used)": lambda: [encoder.encode(r) for r in rows],
        "2,000 rows, orjson alone": lambda: [orjson.dumps(r) for r in rows],
        "head, orjson (used)": lambda: fastjson.dumps_indented(head),
        "head, json indent=2": _strict(lambda: fastjson.dumps_indented(head)),
    }
    figures: dict[str, list[float]] = {name: [] for name in timed}
    for _ in range(args.rounds):
        for name, fn in timed.items():
            figures[name].append(_cpu(fn, 3))
    size = sum(map(len, datas)) // len(datas)
    print(f"{len(datas)} traces of ~{size // 1000} KB; CPU medians of {args.rounds} rounds")
    for name, values in figures.items():
        per = statistics.median(values)
        if "rows" in name or "head" in name:
            print(f"{name:30s} {per * 1e3:8.2f} ms")
        else:
            print(f"{name:30s} {per / len(datas) * 1e6:8.1f} us per trace")
    fast = statistics.median(figures["parse_document, fast path"])
    strict = statistics.median(figures["parse_document, strict path"])
    print(f"strict / fast: x{strict / fast:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
