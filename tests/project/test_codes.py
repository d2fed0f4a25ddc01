"""Problem codes are named objects: call sites write `codes.MISSING_KEY`, never the string.

A typo in a constant's name is a mypy error before any run; a typo in a string would be a
problem with an unregistered code at run time. So no module outside the validator/codes/
package may write a code as a string literal.
"""

from __future__ import annotations

import ast
import json
import pickle

from conftest import REPO

from validator import codes
from validator.problems import Problem

PACKAGE = REPO / "validator"

# Strings that equal a code's name but mean something else where they are written.
NOT_CODES = {
    ("cli.py", "schema"),  # the `schema` command
    ("report/extras.py", "unreadable"),  # a key of the page's side channel
    ("report/html_trace.py", "unreadable"),
}


def test_no_code_is_written_as_a_string_outside_the_codes_module() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if where.startswith("codes/"):
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in codes.CODES
                and (where, node.value) not in NOT_CODES
            ):
                found.append(f"validator/{where}:{node.lineno}: {node.value!r}")
    assert not found, "write codes.NAME instead of the string:\n" + "\n".join(found)


def test_each_code_is_a_named_constant_of_the_codes_module() -> None:
    for name, code in codes.CODES.items():
        constant = name.upper().replace("-", "_")
        assert getattr(codes, constant) is code
        assert code == name and code.code == name


def test_a_code_reads_as_its_string_in_reports_and_crosses_processes_as_itself() -> None:
    problem = Problem("case.yaml", 3, 1, "error", codes.MISSING_KEY, "no question")
    assert json.loads(json.dumps(problem.as_dict()))["code"] == "missing-key"
    assert problem.format().endswith("[missing-key]")
    assert pickle.loads(pickle.dumps(codes.MISSING_KEY)) is codes.MISSING_KEY
    assert pickle.loads(pickle.dumps(problem)) == problem
