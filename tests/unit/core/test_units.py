"""Values with a unit in case files: an input that declares `x-unit:` takes `20s`, `1.5 min`,
`800 ms` (and `80%`, `4 MiB` for the share and size kinds), read as the command line reads
them; a key that takes a plain number is told the number to write."""

from __future__ import annotations

import pytest
from conftest import Workspace, good_trace, run_cli

from validator.units import UNIT_KINDS, read_value


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("duration", "20s", 20000),
        ("duration", "1.5 min", 90000),
        ("duration", "800 ms", 800),
        ("duration", "2h", 7_200_000),
        ("share", "80%", 0.8),
        ("size", "4 MiB", 4 * 1024 * 1024),
        ("size", "1.5 GB", 1_500_000_000),
        ("duration", "20 parsecs", None),
        ("duration", "-5s", None),
        ("share", "0.5", None),
    ],
)
def test_units_read_as_the_command_line_reads_them(kind: str, text: str, value: object) -> None:
    assert read_value(kind, text) == value
    assert kind in UNIT_KINDS


@pytest.mark.parametrize(
    ("limit", "status"), [("1s", "fail"), ("1.5 s", "pass"), ("2 min", "pass")]
)
def test_a_duration_with_a_unit_is_compared_in_milliseconds(
    ws: Workspace, limit: str, status: str
) -> None:
    ws.case(max_duration_ms=limit)  # the trace took 1200 ms
    ws.trace("db-slow", good_trace())
    result = ws.run("--format", "json")
    assert result.code == (0 if status == "pass" else 1), result.out + result.err
    assert ws.case_result()["status"] == status


def test_a_duration_no_unit_reads_is_an_error_naming_the_units(ws: Workspace) -> None:
    ws.case(max_duration_ms="20 parsecs")
    result = run_cli("lint", cwd=ws.root)
    assert result.code == 1
    assert 'max_duration_ms: "20 parsecs" is not a duration' in result.out
    assert "20s, 1.5 min, 800 ms" in result.out


def test_a_plain_number_key_is_told_the_number_to_write(ws: Workspace) -> None:
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "max-wait.yaml").write_text(
        "id: max-wait\ndescription: The run waited at most max_wait_ms.\n"
        "inputs:\n  max_wait_ms: {type: number, default: null}\nwhen_input: max_wait_ms\n"
        "query: $.durationMs\npredicate: compare\nparams:\n  op: le\n"
        "  value: {case: max_wait_ms}\n",
        "utf-8",
    )
    ws.case(max_wait_ms="20s")
    result = run_cli("lint", cwd=ws.root)
    assert result.code == 1
    assert 'max_wait_ms must be a number, found text "20s": write 20000 (20s in milliseconds' in (
        result.out
    )


def test_lint_explain_values_says_what_a_value_was_read_as(ws: Workspace) -> None:
    ws.case(max_duration_ms="1.5 min")
    result = run_cli("lint", "--explain-values", cwd=ws.root)
    assert result.code == 0, result.out
    assert "max_duration_ms: 1.5 min = 90000 milliseconds (read as a duration)" in result.out
    assert result.out.endswith("0 errors, 0 warnings in 1 file\n")
