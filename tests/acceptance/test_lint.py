"""`python -m validator lint`: every mistake at its line and column, in three formats.

The bad files live in `tests/lint/` (see its README): each `NAME.yaml` is linted on its own and
must report exactly what `NAME.expected` lists. The tests below cover what one file cannot
show: cross-file rules, fixtures, formats, exit codes, usage errors, and `run` refusing the
same files with the same messages.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import GOOD_CASE, REPO, TESTS, Workspace, good_trace, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

LINT_DATA = TESTS / "lint"
BAD_FILES = sorted(p for kind in ("cases", "specs") for p in (LINT_DATA / kind).glob("*.y*ml"))
LINE = re.compile(
    r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): .+ \[(?P<code>[a-z0-9-]+)\]$"
)
COUNT = re.compile(r"^\d+ errors?, \d+ warnings? in \d+ files?$")


def expected_problems(path: Path) -> list[tuple[int, int, str, str, str]]:
    """`LINE:COL SEVERITY CODE [message fragment]` lines of NAME.expected."""
    out = []
    for raw in path.with_suffix(".expected").read_text("utf-8").splitlines():
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        where, severity, code, *rest = raw.split(maxsplit=3)
        line, col = where.split(":")
        out.append((int(line), int(col), severity, code, rest[0] if rest else ""))
    return out


def lint_json(*args: str, cwd: Path) -> tuple[int, dict]:
    result = run_cli("lint", "--format", "json", *args, cwd=cwd)
    assert "Traceback" not in result.err and "internal error" not in result.err, result.err
    return result.code, json.loads(result.out)


def text_lines(out: str) -> list[str]:
    return out.rstrip("\n").split("\n")


# --------------------------------------------------------------------------------------------
# The data-driven bad files


def test_every_bad_file_has_its_expectations() -> None:
    assert BAD_FILES, "tests/lint/ holds the bad files"
    missing = [p.name for p in BAD_FILES if not p.with_suffix(".expected").is_file()]
    assert not missing, (
        f"write a NAME.expected next to each file (see tests/lint/README.md): {missing}"
    )
    orphans = [
        p.name
        for p in LINT_DATA.glob("*/*.expected")
        if not any(p.with_suffix(s).is_file() for s in (".yaml", ".yml"))
        and not p.with_suffix("").is_dir()  # a whole suite (tests/acceptance/test_lint_suites.py)
    ]
    assert not orphans, f".expected files without their YAML file: {orphans}"


@pytest.mark.parametrize("path", BAD_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bad_file(path: Path, tmp_path: Path) -> None:
    expected = expected_problems(path)
    code, doc = lint_json(str(path), cwd=tmp_path)  # an empty folder: only the standard specs
    problems = doc["problems"]
    found = sorted((p["line"], p["column"], p["severity"], p["code"]) for p in problems)
    assert found == sorted(e[:4] for e in expected), "\n".join(
        f"{p['line']}:{p['column']} {p['severity']} {p['code']}  ({p['message']})" for p in problems
    )
    assert {p["file"] for p in problems} <= {str(path)}
    for line, col, severity, code_, fragment in expected:
        messages = [
            p["message"]
            for p in problems
            if (p["line"], p["column"], p["severity"], p["code"]) == (line, col, severity, code_)
        ]
        assert any(fragment in m for m in messages), f"{line}:{col} {code_}: {messages}"
    has_error = any(e[2] == "error" for e in expected)
    assert code == (1 if has_error else 0)
    assert doc["counts"] == {
        "errors": sum(e[2] == "error" for e in expected),
        "warnings": sum(e[2] == "warning" for e in expected),
        "files": 1,
    }


@pytest.mark.parametrize("kind", ["cases", "specs"])
def test_valid_file_reports_nothing(kind: str, tmp_path: Path) -> None:
    result = run_cli("lint", str(LINT_DATA / kind / "valid.yaml"), cwd=tmp_path)
    assert result.code == 0
    assert result.out == "0 errors, 0 warnings in 1 file\n"


def test_shipped_cases_and_specs_are_clean() -> None:
    result = run_cli("lint", cwd=REPO)
    assert result.code == 0, result.out
    assert re.fullmatch(r"0 errors, 0 warnings in \d+ files\n", result.out), result.out
    strict = run_cli("lint", "--strict", "cases", "specs", cwd=REPO)
    assert strict.code == 0, strict.out


# --------------------------------------------------------------------------------------------
# Output formats


def _mixed(ws: Workspace) -> None:
    """One case with an error and a warning, one spec with a bad JSONPath."""
    ws.case(
        "id: db-slow\n"
        "question: Why is the order API slow?\n"
        "root_cause_keywords: [slow query, missing index]\n"
        "required_tools: [mysql_slow_log]\n"
        "min_keyword_coverage: 5\n"
        "allowed_verdicts: [PASS]\n"
        "forbidden_verdicts: [PASS]\n",
        name="db-slow",
    )
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "answer-present.yaml").write_text(
        "id: answer-present\ndescription: d\nquery: $.finalAnswer[\npredicate: exists\n", "utf-8"
    )


def test_text_format_is_one_problem_a_line_then_a_count(ws: Workspace) -> None:
    _mixed(ws)
    result = run_cli("lint", cwd=ws.root)
    assert result.code == 1
    lines = text_lines(result.out)
    assert lines[-1] == "2 errors, 1 warning in 2 files"
    assert lines[:-1] == [
        "cases/db-slow.yaml:5:23: error: min_keyword_coverage 5 is more than the 2"
        " root_cause_keywords entries: write at most 2, or add keywords [coverage-too-high]",
        "cases/db-slow.yaml:7:22: warning: verdict 'PASS' is both allowed and forbidden;"
        " forbidden wins, so remove it from one of the two lists [verdict-conflict]",
        "specs/answer-present.yaml:3:8: error: query: JSONPath does not compile at character"
        " 15: unexpected end of expression: is a ']' or ')' missing? [bad-jsonpath]",
        "      $.finalAnswer[",
        "                    ^",  # under the end: the ']' is missing there
    ]


def test_only_patterns_with_a_caret_add_continuation_lines(tmp_path: Path) -> None:
    result = run_cli("lint", *(str(p) for p in BAD_FILES), cwd=tmp_path)
    lines = text_lines(result.out)
    assert COUNT.match(lines[-1]), lines[-1]
    previous = ""
    for line in lines[:-1]:
        if line.startswith("    "):
            assert previous.endswith(("[bad-jsonpath]", "[bad-regex]")), line
            continue
        assert LINE.match(line), line
        previous = line


def test_caret_points_at_the_failing_character(tmp_path: Path) -> None:
    result = run_cli("lint", str(LINT_DATA / "specs" / "bad-jsonpath.yaml"), cwd=tmp_path)
    lines = text_lines(result.out)
    expr, caret = lines[1], lines[2]
    assert expr.strip() == "$.toolInvocations[*.toolName"
    assert expr[caret.index("^")] == ".", "the caret is under the '.' after '*'"


def test_json_format(ws: Workspace) -> None:
    _mixed(ws)
    code, doc = lint_json(cwd=ws.root)
    assert code == 1
    assert set(doc) == {"problems", "counts"}
    assert doc["counts"] == {"errors": 2, "warnings": 1, "files": 2}
    first = doc["problems"][0]
    assert first == {
        "file": "cases/db-slow.yaml",
        "line": 5,
        "column": 23,
        "severity": "error",
        "code": "coverage-too-high",
        "message": "min_keyword_coverage 5 is more than the 2 root_cause_keywords entries:"
        " write at most 2, or add keywords",
    }
    assert [p["code"] for p in doc["problems"]] == [
        "coverage-too-high",
        "verdict-conflict",
        "bad-jsonpath",
    ]


def test_github_format(ws: Workspace) -> None:
    _mixed(ws)
    result = run_cli("lint", "--format", "github", cwd=ws.root)
    assert result.code == 1
    lines = text_lines(result.out)
    assert lines[0] == (
        "::error file=cases/db-slow.yaml,line=5,col=23,title=coverage-too-high::"
        "min_keyword_coverage 5 is more than the 2 root_cause_keywords entries:"
        " write at most 2, or add keywords"
    )
    assert lines[1].startswith(
        "::warning file=cases/db-slow.yaml,line=7,col=22,title=verdict-conflict::verdict 'PASS'"
    )
    # The JSONPath and its caret stay in the one annotation, as escaped newlines.
    assert lines[2].startswith(
        "::error file=specs/answer-present.yaml,line=3,col=8,title=bad-jsonpath::"
    )
    assert lines[2].endswith("%0A  $.finalAnswer[%0A                ^")
    assert lines[3] == "2 errors, 1 warning in 2 files"


def test_github_format_escapes_percent_and_separators(ws: Workspace) -> None:
    ws.case(forbidden_keywords=["100% full", "100% full"], name="a,b")
    result = run_cli("lint", "--format", "github", cwd=ws.root)
    assert "file=cases/a%2Cb.yaml," in result.out
    assert "'100%25 full' twice" in result.out


# --------------------------------------------------------------------------------------------
# Exit codes and usage errors


def test_warnings_exit_0_unless_strict(ws: Workspace) -> None:
    ws.case(forbidden_verdicts=["PASS"])
    assert run_cli("lint", cwd=ws.root).code == 0
    strict = run_cli("lint", "--strict", cwd=ws.root)
    assert strict.code == 1
    assert "0 errors, 1 warning in 1 file" in strict.out


def test_clean_files_exit_0(ws: Workspace) -> None:
    ws.case()
    result = run_cli("lint", "--strict", cwd=ws.root)
    assert (result.code, result.out) == (0, "0 errors, 0 warnings in 1 file\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere.yaml"], "nowhere.yaml: no such file or folder"),
        (["cases/none-*.yaml"], "no such file or folder"),  # a shell glob that matched nothing
        (["empty"], "empty: no *.yaml or *.yml file in this folder"),
        (["--specs", "no-specs"], "spec folder no-specs does not exist"),
        (["--fixtures", "no-fixtures"], "fixtures no-fixtures does not exist"),
        (["--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_usage_errors_exit_2(ws: Workspace, args: list[str], message: str) -> None:
    ws.case()
    (ws.root / "empty").mkdir()
    result = run_cli("lint", *args, cwd=ws.root)
    assert result.code == 2
    assert message in result.err
    assert result.out == ""


def test_no_default_folder_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("lint", cwd=tmp_path)
    assert result.code == 2
    assert "nothing to lint" in result.err


def test_a_missing_default_folder_is_skipped(ws: Workspace) -> None:
    ws.case()
    assert not (ws.root / "specs").exists()
    assert run_cli("lint", cwd=ws.root).code == 0
    only_specs = ws.root / "only-specs"
    (only_specs / "specs").mkdir(parents=True)
    (only_specs / "specs" / "x.yaml").write_text(
        "id: x\ndescription: d\nquery: $.a\npredicate: exists\n", "utf-8"
    )
    result = run_cli("lint", cwd=only_specs)
    assert (result.code, result.out) == (0, "0 errors, 0 warnings in 1 file\n")


def test_a_folder_named_explicitly_must_exist_even_if_it_is_a_default_name(ws: Workspace) -> None:
    ws.case()
    result = run_cli("lint", "cases", "specs", cwd=ws.root)
    assert result.code == 2
    assert "specs: no such file or folder" in result.err


# --------------------------------------------------------------------------------------------
# Cross-file rules


def test_duplicate_case_id_names_both_files(ws: Workspace) -> None:
    ws.case(name="db-slow")
    ws.case(name="later")
    result = run_cli("lint", cwd=ws.root)
    assert result.code == 1
    assert (
        "cases/later.yaml:2:9: error: case id 'db-slow' is used by both cases/db-slow.yaml"
        " (line 2) and cases/later.yaml: give each case its own id [duplicate-case-id]"
    ) in result.out


def test_duplicate_id_is_found_even_when_a_file_has_other_errors(ws: Workspace) -> None:
    ws.case(name="db-slow")
    ws.case(name="other", question="")
    _code, doc = lint_json(cwd=ws.root)
    assert {p["code"] for p in doc["problems"] if p["file"] == "cases/other.yaml"} >= {
        "duplicate-case-id",
        "empty-value",
    }


def test_checks_resolve_against_the_standard_specs_and_the_specs_folders(ws: Workspace) -> None:
    ws.case(checks=["verdict-present", "answer-present"])
    mine = ws.root / "my-specs"
    mine.mkdir()
    (mine / "answer-present.yaml").write_text(
        "id: answer-present\ndescription: d\nquery: $.finalAnswer\npredicate: exists\n", "utf-8"
    )
    without = run_cli("lint", "cases", cwd=ws.root)
    assert without.code == 1
    assert "checks names 'answer-present', which is no known spec" in without.out
    assert "--specs" in without.out
    with_specs = run_cli("lint", "cases", "--specs", "my-specs", cwd=ws.root)
    assert (with_specs.code, with_specs.out) == (0, "0 errors, 0 warnings in 2 files\n")
    # `run` resolves exactly the same way.
    ws.trace("db-slow", good_trace())
    assert ws.run().code == 2
    assert ws.run("--specs", str(mine)).code == 0


def test_a_local_specs_folder_is_used_like_run_does(ws: Workspace) -> None:
    ws.case(checks=["answer-present"])
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "answer-present.yaml").write_text(
        "id: answer-present\ndescription: d\nquery: $.finalAnswer\npredicate: exists\n", "utf-8"
    )
    assert run_cli("lint", "cases", cwd=ws.root).code == 0


def test_a_broken_spec_does_not_make_its_cases_fail_too(ws: Workspace) -> None:
    ws.case(checks=["answer-present"])
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "answer-present.yaml").write_text(
        "id: answer-present\ndescription: d\nquery: $.finalAnswer\npredicate: exist\n", "utf-8"
    )
    code, doc = lint_json(cwd=ws.root)
    assert code == 1
    assert [p["code"] for p in doc["problems"]] == ["unknown-predicate"]


def test_duplicate_spec_id_in_one_folder(ws: Workspace) -> None:
    ws.case()
    (ws.root / "specs").mkdir()
    for name in ("a", "b"):
        (ws.root / "specs" / f"{name}.yaml").write_text(
            "id: same\ndescription: d\nquery: $.finalAnswer\npredicate: exists\n", "utf-8"
        )
    result = run_cli("lint", cwd=ws.root)
    assert (
        "specs/b.yaml:1:5: error: spec id 'same' is used by both specs/a.yaml (line 1) and"
        " specs/b.yaml: give each spec its own id [duplicate-spec-id]"
    ) in result.out


# --------------------------------------------------------------------------------------------
# Fixtures


def test_fixtures_case_without_trace_and_trace_without_case(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="redis-memory"))
    ws.case(dict(GOOD_CASE, id="many-runs"))
    ws.trace("db-slow", good_trace())
    ws.trace("many-runs", good_trace("many-runs"), name="many-runs/run-1.json")
    ws.trace("redis-memroy", good_trace("redis-memroy"))
    (ws.fixtures / "notes.txt").write_text("not a trace", "utf-8")
    code, doc = lint_json("--fixtures", "fixtures", cwd=ws.root)
    assert code == 0, "these are warnings"
    problems = [(p["file"], p["line"], p["column"], p["code"]) for p in doc["problems"]]
    assert problems == [
        ("cases/redis-memory.yaml", 2, 9, "no-fixture"),
        ("fixtures/redis-memroy.json", 1, 1, "orphan-fixture"),
    ]
    orphan = doc["problems"][1]["message"]
    assert "did you mean 'redis-memory'?" in orphan
    assert "fixtures/redis-memory.json" in doc["problems"][0]["message"]
    assert run_cli("lint", "--strict", "--fixtures", "fixtures", cwd=ws.root).code == 1


def test_fixtures_are_not_checked_without_the_option(ws: Workspace) -> None:
    ws.case()
    assert run_cli("lint", "--strict", cwd=ws.root).code == 0


def test_fixture_folder_without_json_and_ambiguous_fixture(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="two-ways"))
    (ws.fixtures / "db-slow").mkdir()
    ws.trace("two-ways", good_trace("two-ways"))
    ws.trace("two-ways", good_trace("two-ways"), name="two-ways/run-1.json")
    _code, doc = lint_json("--fixtures", "fixtures", cwd=ws.root)
    by_code = {p["code"]: p["message"] for p in doc["problems"]}
    assert "fixtures/db-slow/ holds no *.json file" in by_code["no-fixture"]
    assert "keep one" in by_code["ambiguous-fixture"]


def test_jsonl_fixtures(ws: Workspace) -> None:
    ws.case()
    ws.case(dict(GOOD_CASE, id="redis-memory"))
    lines = [json.dumps(good_trace()), "", json.dumps(good_trace("db-slw")), "{not json"]
    (ws.root / "export.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    _code, doc = lint_json("--fixtures", "export.jsonl", cwd=ws.root)
    problems = [(p["file"], p["line"], p["column"], p["code"]) for p in doc["problems"]]
    # The entry that is not JSON is an error at its line and column (run cannot tell which
    # case it belongs to).
    assert problems == [
        ("cases/redis-memory.yaml", 2, 9, "no-fixture"),
        ("export.jsonl", 3, 1, "orphan-fixture"),
        ("export.jsonl", 4, 2, "trace-json"),
    ]
    assert "did you mean 'db-slow'?" in doc["problems"][1]["message"]
    assert "a key must be a string in double quotes" in doc["problems"][2]["message"]
    assert _code == 1


def test_fixture_check_counts_cases_that_have_other_errors(ws: Workspace) -> None:
    ws.case(question="")
    ws.trace("db-slow", good_trace())
    _code, doc = lint_json("--fixtures", "fixtures", cwd=ws.root)
    assert [p["code"] for p in doc["problems"]] == ["empty-value"]


# --------------------------------------------------------------------------------------------
# Telling spec files from case files


SPEC_TEXT = "id: answer-present\ndescription: d\nquery: $.finalAnswer\npredicate: exists\n"


def test_content_decides_outside_cases_and_specs_folders(tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "answer-present.yaml").write_text(SPEC_TEXT, "utf-8")
    case = dict(GOOD_CASE, id="db-slow")
    (folder / "db-slow.yaml").write_text(json.dumps(case), "utf-8")
    result = run_cli("lint", "mixed", cwd=tmp_path)
    assert (result.code, result.out) == (0, "0 errors, 0 warnings in 2 files\n")


def test_a_specs_folder_makes_a_spec_whatever_its_content(tmp_path: Path) -> None:
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "oops.yaml").write_text(json.dumps(GOOD_CASE), "utf-8")
    code, doc = lint_json("specs", cwd=tmp_path)
    assert code == 1
    assert "unknown key 'question'" in " ".join(p["message"] for p in doc["problems"])


def test_a_specs_option_folder_makes_a_spec(tmp_path: Path) -> None:
    mine = tmp_path / "checks"
    mine.mkdir()
    (mine / "no-markers.yaml").write_text("id: no-markers\ndescription: d\n", "utf-8")
    code, doc = lint_json("checks", "--specs", "checks", cwd=tmp_path)
    assert code == 1
    assert [p["code"] for p in doc["problems"]] == ["spec-shape"]
    _code, doc = lint_json("checks", cwd=tmp_path)  # by content: a case missing its keys
    assert {p["code"] for p in doc["problems"]} == {"missing-key"}


def test_a_spec_in_a_sub_folder_of_a_spec_folder_is_checked_and_flagged(tmp_path: Path) -> None:
    (tmp_path / "specs" / "more").mkdir(parents=True)
    (tmp_path / "specs" / "more" / "answer-present.yaml").write_text(SPEC_TEXT, "utf-8")
    code, doc = lint_json(cwd=tmp_path)
    assert code == 0
    assert [(p["file"], p["code"]) for p in doc["problems"]] == [
        ("specs/more/answer-present.yaml", "spec-not-loaded")
    ]


def test_a_cases_folder_makes_a_case_like_run_reads_it(ws: Workspace) -> None:
    (ws.cases / "answer-present.yaml").write_text(SPEC_TEXT, "utf-8")
    _code, doc = lint_json(cwd=ws.root)
    assert "unknown-key" in {p["code"] for p in doc["problems"]}


# --------------------------------------------------------------------------------------------
# `run` applies the same checks


def test_run_refuses_what_lint_reports_with_the_same_messages(ws: Workspace) -> None:
    ws.case(required_tool=["x"], checks=["verdict-alowed"], forbidden_verdicts=["PASS"])
    ws.trace("db-slow", good_trace())
    lint = run_cli("lint", cwd=ws.root)
    run = ws.run()
    assert run.code == 2
    assert not ws.out.exists(), "nothing is evaluated"
    lint_lines = set(text_lines(lint.out)[:-1])
    *problems, last = text_lines(run.err)
    assert lint_lines == set(problems)
    assert last == "no report was written (and the folder reports holds none from an earlier run)"
    assert any("[unknown-check]" in line for line in lint_lines)
    assert any(": warning: " in line for line in lint_lines)


def test_run_prints_warnings_and_goes_on(ws: Workspace) -> None:
    ws.case(forbidden_verdicts=["REJECT", "REJECT"])
    ws.trace("db-slow", good_trace())
    run = ws.run()
    assert run.code == 0
    assert re.search(
        r"^cases/db-slow.yaml:\d+:5: warning: forbidden_verdicts lists 'REJECT' twice"
        r" \(first at line \d+, column 5\): remove the repeat \[duplicate-entry\]$",
        run.err,
        re.MULTILINE,
    ), run.err
    assert (ws.out / "report.json").exists()


# --------------------------------------------------------------------------------------------
# Never a traceback

_KEYS = st.sampled_from(
    [
        *GOOD_CASE,
        "min_keyword_coverage",
        "forbidden_verdicts",
        "checks",
        "degraded_markers",
        "query",
        "predicate",
        "params",
        "clauses",
        "when",
        "unless",
        "fields",
        "skip_reason",
        "description",
        "case",
        "trace",
        "default",
        "keywords",
        "min",
    ]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(-1, 3, allow_nan=False),
    st.sampled_from(["", "PASS", "$.finalAnswer", "$.a[", "exists", "in", "contains-min", "x"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.dictionaries(_KEYS, _VALUES, max_size=8), as_spec=st.booleans())
def test_any_mapping_gives_problems_never_a_crash(
    tmp_path: Path, data: dict, as_spec: bool
) -> None:
    folder = tmp_path / ("specs" if as_spec else "cases")
    folder.mkdir(exist_ok=True)
    (folder / "x.yaml").write_text(json.dumps(data), "utf-8")
    result = run_cli("lint", "--format", "json", str(folder / "x.yaml"), cwd=tmp_path)
    assert result.code in (0, 1), result.err
    json.loads(result.out)


# --------------------------------------------------------------------------------------------
# The verifier's verdicts come from the trace-fields spec


def _trace_fields(folder: Path, verdicts: str | None) -> None:
    folder.mkdir(exist_ok=True)
    text = (REPO / "specs" / "trace-fields.yaml").read_text("utf-8")
    text = text[: text.index("\nverdicts:")] + "\n"  # the shipped fields, without its list
    if verdicts is not None:
        text += f"verdicts: {verdicts}\n"
    (folder / "trace-fields.yaml").write_text(text, "utf-8")


def _verdict_problems(ws: Workspace, *args: str) -> list[tuple[str, str]]:
    """(severity, message) of each unknown-verdict problem; no other error is expected."""
    code, doc = lint_json("cases", *args, cwd=ws.root)
    found = [
        (p["severity"], p["message"]) for p in doc["problems"] if p["code"] == "unknown-verdict"
    ]
    others = [
        p for p in doc["problems"] if p["severity"] == "error" and p["code"] != "unknown-verdict"
    ]
    assert not others, others
    assert code == (1 if any(s == "error" for s, _ in found) else 0)
    return found


def test_verdict_spelling_uses_the_verdicts_the_trace_fields_spec_lists(ws: Workspace) -> None:
    ws.case(allowed_verdicts=["REJECTED"], forbidden_verdicts=["approved"])
    # The standard list (PASS, REVISE, REJECT): REJECTED looks like a misspelt REJECT, and
    # approved is no verdict the verifier gives: both are errors (lint exits 1).
    shipped = _verdict_problems(ws)
    assert [s for s, _ in shipped] == ["error", "error"], shipped
    assert "did you mean 'REJECT'?" in shipped[0][1]
    assert "forbidden_verdicts lists 'approved', which the verifier never gives" in shipped[1][1]
    assert "so it forbids nothing" in shipped[1][1]
    # A team whose verifier says APPROVED / REJECTED lists them; only `approved` is wrong.
    _trace_fields(ws.root / "team-specs", "[APPROVED, REJECTED]")
    team = _verdict_problems(ws, "--specs", "team-specs")
    assert len(team) == 1, team
    assert team[0][0] == "error"
    assert "forbidden_verdicts lists 'approved' (did you mean 'APPROVED'?)" in team[0][1]
    assert "the verifier gives APPROVED or REJECTED" in team[0][1]
    # Without a list, nothing is known about the vocabulary: no verdict problems.
    _trace_fields(ws.root / "team-specs", None)
    assert _verdict_problems(ws, "--specs", "team-specs") == []


def test_verdicts_belong_in_the_trace_fields_spec(ws: Workspace) -> None:
    ws.case()
    specs = ws.root / "specs"
    specs.mkdir()
    (specs / "answer-present.yaml").write_text(
        "id: answer-present\ndescription: d\nquery: $.finalAnswer\npredicate: exists\n"
        "verdicts: [PASS]\n",
        "utf-8",
    )
    code, doc = lint_json(cwd=ws.root)
    assert code == 1
    [problem] = doc["problems"]
    assert (problem["line"], problem["column"], problem["code"]) == (5, 1, "spec-shape")
    assert "belongs in the spec 'trace-fields'" in problem["message"]


def test_every_problem_code_the_bad_files_produce_is_documented_in_the_docs() -> None:
    page = (REPO / "docs" / "lint-codes.md").read_text("utf-8")
    documented = set(re.findall(r"^\| `([a-z0-9-]+)`", page, flags=re.M))
    codes = {code for path in BAD_FILES for _, _, _, code, _ in expected_problems(path)}
    assert codes, "no .expected file names a code"
    missing = sorted(codes - documented)
    assert not missing, f"lint codes without a row in docs/lint-codes.md's table: {missing}"
