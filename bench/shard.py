"""What sharding costs: one run against N shard runs (one after the other) plus the merge.

    python bench/shard.py [--n 1000] [--shards 4] [--shape cases|runs] [--formats json,md]

On the corpus of bench/corpus.py: the unsharded run's time, each shard's, the merge's, the
size of report.json and of each report.shard.json, and whether the merged report set is the
unsharded one byte for byte (SOURCE_DATE_EPOCH pins generated_at). Sequential shards show
the overhead a CI matrix pays in total; on N machines the wall time is the slowest shard's
plus the merge's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import write_corpus

PY = sys.executable


def timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([PY, "-m", "validator", *args], cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {done.returncode}\n{done.stderr}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--shape", choices=("cases", "runs"), default="cases")
    parser.add_argument("--formats", default="json,md")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    os.environ["SOURCE_DATE_EPOCH"] = "1767225600"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cases, fixtures, traces = write_corpus(root, args.shape, args.n, args.seed)
        common = ["run", "--cases", str(cases), "--fixtures", str(fixtures), "--jobs", "1", "-q"]
        common += ["--format", args.formats]
        whole = timed([*common, "--out", "whole"], root)
        parts = [
            timed([*common, "--out", f"s{i}", "--shard", f"{i}/{args.shards}"], root)
            for i in range(1, args.shards + 1)
        ]
        folders = [f"s{i}" for i in range(1, args.shards + 1)]
        merge = timed(["merge", *folders, "--out", "merged", "-q"], root)
        names = [p.name for p in (root / "whole").iterdir()]
        same = all(
            (root / "whole" / n).read_bytes() == (root / "merged" / n).read_bytes() for n in names
        )
        report = (root / "whole" / "report.json").stat().st_size
        sidecars = [(root / f / "report.shard.json").stat().st_size for f in folders]
    print(
        f"corpus: shape {args.shape}, {args.n} cases' worth, {traces} traces; formats {args.formats}"
    )
    print(f"unsharded run --jobs 1: {whole:.2f} s; report.json {report / 1e6:.2f} MB")
    print(
        f"{args.shards} shards, --jobs 1 each: {' '.join(f'{t:.2f}' for t in parts)} s"
        f" (sum {sum(parts):.2f} s, slowest {max(parts):.2f} s); merge {merge:.2f} s"
    )
    print(f"report.shard.json: {' '.join(f'{s / 1e6:.2f}' for s in sidecars)} MB")
    print(f"merged reports byte-identical to the unsharded run: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
