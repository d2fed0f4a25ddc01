"""`python -m validator init [DIR]`: a starter suite that passes `lint` and `run` as written.

It writes `validator.yaml` (each key with a comment saying what it does), one case and the
trace that case expects, so a team starts from something that works and changes it. Files
that already exist are never overwritten: if any would be, nothing is written.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..inputs import display_path
from ..problems import UsageError
from . import EXIT_OK, initfrom
from .options import program

CONFIG = """\
# The suite config of trace-validator: `python -m validator run` and `lint` read it when they
# start in this folder (or pass --config FILE). Command-line flags override these keys.
# Relative paths are relative to this file's folder.
# Editor help: `python -m validator schema config > config.schema.json`, then point the
# YAML extension at it (# yaml-language-server: $schema=config.schema.json).

# The case files: a folder (searched recursively), or one case file.
cases: cases

# The saved traces: a folder, or one file (a .jsonl export, say).
fixtures: fixtures

# Your own spec folders: they add checks, or replace a standard one with the same id.
specs: []

# The standard spec packs to load: diagnosis is the standard set; [] loads none.
packs: [diagnosis]

# The checks a case without its own `checks:` applies (default: every `default: true` spec).
# checks: [evidence-coverage, verdict-present, verdict-allowed, keyword-coverage]

# How traces are found, read and matched to their cases.
traces:
  # Which files under fixtures/ are traces: globs matched against a file's path there, or
  # its name. Any other file is listed in the report as not used.
  pattern: ["*.json", "*.jsonl"]
  # Files and folders there that are not traces: counted as ignored, never read.
  # ignore: [README.md, "notes/**"]
  # json (one trace a file), jsonl (one a line) or otlp-json (an OpenTelemetry export, one
  # trace per traceId). Default: by suffix (.jsonl and .ndjson are JSON Lines).
  # format: json
  # A JSONPath: each value it matches is one trace ($[*] for a file holding a list of them).
  # split: $.simulations[*]
  # Where a trace names its case: a JSONPath ($.task_id) or a template ({file_stem}-{$.id}).
  # Default: the file's name, fixtures/<case-id>.json or fixtures/<case-id>/*.json.
  # case_id: $.caseId
  # true: traces that match no case are listed but do not fail the run.
  allow_unmatched: false

# The tools your agent has: lint then reports a case's tool name that is not one of them
# (required_tools: [mysql_slowlog] -> did you mean mysql_slow_log?). A glob declares every
# tool it matches.
# tools: [mysql_slow_log, mysql_explain, log_search, metrics_query]

# Your deployed agent, for `python -m validator capture` (and `run --capture`): one request
# per case and run, each trace saved where run finds it. Secrets come from the environment.
# target:
#   url: https://diag-agent.internal/v1/diagnose
#   headers: {Authorization: "Bearer ${DIAG_API_TOKEN}"}
#   body: {question: "{question}", session: "eval-{case_id}-{run}"}
#   trace: $.trace
"""

CASE = """\
# One case: the question the agent was asked and what its trace must show.
# `python -m validator schema case` prints every key this file may have.
id: example
question: Why did the order API slow down at 14:00 today?
description: A deploy added a filter on orders.customer_ref, a column without an index.
tags: [example]
root_cause_keywords:
  - [slow query, 慢查询]          # a list of synonyms: any one counts
  - [missing index, no index]
  - customer_ref
min_keyword_coverage: 2          # at least 2 of the 3 entries
required_tools: [mysql_slow_log, mysql_explain]
allowed_verdicts: [PASS]
forbidden_keywords: [drop table]
"""

TRACE: dict[str, Any] = {
    "caseId": "example",
    "question": "Why did the order API slow down at 14:00 today?",
    "toolInvocations": [
        {
            "toolName": "mysql_slow_log",
            "arguments": {"since": "13:45"},
            "status": "success",
            "durationMs": 340,
            "output": "Query_time: 3.91 SELECT * FROM orders WHERE customer_ref = 'C-88213'",
        },
        {
            "toolName": "mysql_explain",
            "arguments": {"sql": "SELECT * FROM orders WHERE customer_ref = ?"},
            "status": "success",
            "durationMs": 95,
            "output": "type: ALL, key: NULL, rows: 2481932",
        },
    ],
    "executorAnswer": "A slow query on orders: customer_ref has no index since the deploy.",
    "selfEvaluation": {
        "verifier_evaluation": {
            "verdict": "PASS",
            "reason": "EXPLAIN and the slow log support it.",
            "trace_summaries": [{"tool": "mysql_explain", "summary": "full scan, key NULL"}],
        }
    },
    "finalAnswer": "A **slow query** on `orders`: the new filter on customer_ref has a"
    " missing index, so MySQL scans the whole table.",
    "durationMs": 8423,
}

FILES = {
    "validator.yaml": CONFIG,
    "cases/example.yaml": CASE,
    "fixtures/example.json": json.dumps(TRACE, indent=2, ensure_ascii=False) + "\n",
}


def main(args: argparse.Namespace) -> int:
    """Write the starter suite into DIR. Raises UsageError when a file exists already."""
    if getattr(args, "source", None) is not None:
        return initfrom.write(args.source, Path(args.dir))
    root = Path(args.dir)
    if root.exists() and not root.is_dir():
        raise UsageError(f"{args.dir} exists and is not a folder")
    taken = [name for name in FILES if (root / name).exists() or (root / name).is_symlink()]
    if taken:
        shown = ", ".join(display_path(root / name) for name in taken)
        raise UsageError(
            f"not overwriting {shown}: nothing was written",
            f"run init in an empty folder ({program()} init DIR), or remove them",
        )
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:  # "x": never replace a file
            handle.write(text)
    where = display_path(root)
    for name in FILES:
        print(f"wrote {display_path(root / name)}")
    go = "" if where == "." else f"cd {where} && "
    print(f"next: {go}{program()} lint && {program()} run")
    return EXIT_OK


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Write a starter suite into DIR: validator.yaml (a comment per key),"
        " cases/example.yaml and fixtures/example.json, which pass `lint` and `run`."
        " Existing files are never overwritten."
    )
    parser.add_argument("dir", nargs="?", default=".", metavar="DIR", help="(default: .)")
    parser.add_argument(
        "--from",
        dest="source",
        metavar="PATH",
        help="make the suite from saved traces (a file or a folder): validator.yaml for their"
        " shape and one agent-pack case per trace (the first 20), which `run` passes",
    )
