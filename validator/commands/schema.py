"""`schema WHICH`: print a JSON Schema (a case file's, a spec file's, a trace's,
report.json's, the suite config's), for editors and other tools."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..loading.schema import SCHEMA_NAMES, load_schema
from . import EXIT_OK, options


def build_parser(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Print the JSON Schema of a case file, a spec file, a trace, report.json or the suite"
        " config (validator.yaml). A case's keys come from the specs in use (their 'inputs'),"
        " so `schema case` reads the spec folders as run does."
    )
    options.config_option(parser)
    parser.add_argument("which", choices=SCHEMA_NAMES)
    options.path_option(
        parser,
        "--specs",
        "spec folder whose inputs a case may use, as given to run; repeatable"
        " (default: specs/ when it exists)",
    )


def main(args: argparse.Namespace) -> int:
    if args.which == "case":
        from ..api import case_schema

        schema = case_schema([Path(s) for s in args.specs] if args.specs else None)
    else:
        schema = load_schema(args.which)
    print(json.dumps(schema, indent=2, ensure_ascii=False))
    return EXIT_OK
