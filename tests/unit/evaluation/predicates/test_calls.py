"""`call-matches` (which calls ran with which arguments), `matches` (a regular expression)
and `whole_words` on the keyword predicates: edge cases, lint errors, real traces."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from conftest import Workspace, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.evaluation.interpreter import run_predicate
from validator.evaluation.predicates import TraceContext

CTX = TraceContext({})
DATA = os.environ.get("TRACE_DATA")


def calls(values: list[Any], **args: Any) -> tuple[bool, str]:
    outcome = run_predicate("call-matches", values, args, CTX)
    return outcome.passed, outcome.message


def call(name: Any = "shell", arguments: Any = None, **more: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, **more}


RM = {"command": {"contains": "rm -rf"}}


# --------------------------------------------------------------------------------------------
# Quantifiers, names, zero calls


@pytest.mark.parametrize(
    ("quantifier", "passed"),
    [("any", False), ("all", False), ("none", True), ({"min": 0}, True), ({"min": 1}, False)],
)
def test_zero_calls(quantifier: Any, passed: bool) -> None:
    assert calls([], name="shell", quantifier=quantifier)[0] is passed
    assert calls([[]], name="shell", quantifier=quantifier)[0] is passed  # one empty list


def test_repeated_names_count_each_call() -> None:
    three = [call(arguments={"n": i}) for i in range(3)]
    assert calls(three, name="shell", quantifier={"min": 3, "max": 3})[0]
    assert not calls(three, name="shell", quantifier={"max": 2})[0]
    passed, message = calls(three, name="shell", quantifier={"min": 4})
    assert not passed
    assert '3 of 3 calls named "shell" match; expected at least 4; matching: call 0' in message
    assert calls(three, name="shell", args={"n": 1}, quantifier={"min": 1, "max": 1})[0]
    assert calls(three, name="shell", args={"n": {"ge": 1}}, quantifier={"min": 2, "max": 2})[0]


@pytest.mark.parametrize(
    ("low", "high", "passed"),
    [(2, 2, True), (2, None, True), (3, None, False), (0, 1, False), (0, 2, True), (1, 2, True)],
)
def test_quantifier_bounds_are_inclusive(low: int, high: int | None, passed: bool) -> None:
    two = [call(), call(), call("ls")]
    quantifier = {"min": low} if high is None else {"min": low, "max": high}
    assert calls(two, name="shell", quantifier=quantifier)[0] is passed


def test_all_means_every_call_named_name() -> None:
    shells = [call(arguments={"cwd": "/tmp"}), call("ls"), call(arguments={"cwd": "/tmp"})]
    tmp = {"cwd": "/tmp"}
    assert calls(shells, name="shell", args=tmp, quantifier="all")[0]  # ls is not about shell
    passed, message = calls(
        [*shells, call(arguments={"cwd": "/"})], name="shell", args=tmp, quantifier="all"
    )
    assert not passed
    assert 'call 3 (shell) does not match: argument \'cwd\' is "/", not "/tmp"' in message
    assert not calls(shells, args=tmp, quantifier="all")[0]  # without name: every call
    passed, message = calls([call("ls")], name="shell", quantifier="all")
    assert not passed and 'no call is named "shell" (found: ["ls"])' in message


def test_names_are_case_sensitive_globs() -> None:
    mixed = [call("mysql_explain"), call("MySQL_log")]
    assert calls(mixed, name="mysql_*", quantifier={"min": 1, "max": 1})[0]
    assert calls(mixed, name="*_log")[0]
    assert not calls(mixed, name="mysql")[0]


def test_a_call_without_a_name_cannot_be_judged_by_name() -> None:
    nameless = [{"arguments": {}}, call("ls")]
    passed, message = calls(nameless, name="shell", quantifier="none")
    assert not passed
    assert "cannot tell whether call 0 matches: it has no name" in message
    assert calls(nameless, name="ls")[0]  # another call decides it
    assert calls(nameless)[0]  # without `name`, every call counts


def test_items_that_are_not_calls_never_make_it_pass() -> None:
    passed, message = calls(["shell"], name="shell", quantifier="none")
    assert not passed and "not a call object" in message and "$.view.tool_calls[*]" in message
    assert calls([None, call()], name="shell", quantifier={"min": 1, "max": 1})[0]  # null: no call


# --------------------------------------------------------------------------------------------
# Argument matchers


@pytest.mark.parametrize(
    ("arguments", "matcher", "passed"),
    [
        ({"n": 1}, 1, True),
        ({"n": 1}, "1", False),  # typed: the number 1 is not the text "1"
        ({"n": "1"}, 1, False),
        ({"n": 1.0}, 1, True),  # one number
        ({"n": True}, 1, False),
        ({"n": [1, "a"]}, [1, "a"], True),  # a literal list is compared whole, typed
        ({"n": [1, "a"]}, ["1", "a"], False),
        ({"n": None}, None, True),  # a literal null needs the argument, holding null
        ({}, None, False),
        ({"n": "b"}, {"in": ["a", "b"]}, True),
        ({"n": 2}, {"in": ["2"]}, False),  # in is typed
        ({"n": None}, {"in": [None]}, True),
        ({"n": 5}, {"gt": 1, "le": 5}, True),  # bounds combine
        ({"n": 6}, {"gt": 1, "le": 5}, False),
        ({"n": "/tmp/x"}, {"regex": "/tmp/.*", "contains": "TMP"}, True),  # all must hold
        ({"n": "a/tmp/x"}, {"regex": "/tmp/.*"}, False),  # regex matches the whole value
        ({"n": "Run ＲＭ -RF now"}, {"contains": "rm -rf"}, True),  # normalized text
        ({"n": "x"}, {"json-schema": {"type": "string", "maxLength": 1}}, True),
        ({"n": "xy"}, {"json-schema": {"type": "string", "maxLength": 1}}, False),
        ({"n": None}, {"json-schema": {"type": "null"}}, True),
        ({"n": None}, {"regex": ".*"}, False),  # null is no value: nothing to match
    ],
)
def test_matchers(arguments: dict[str, Any], matcher: Any, passed: bool) -> None:
    assert calls([call(arguments=arguments)], args={"n": matcher})[0] is passed


@pytest.mark.parametrize(
    ("arguments", "absent", "passed"),
    [
        ({}, True, True),
        ({"n": None}, True, True),  # null is no value
        ({"n": 0}, True, False),
        ({"n": ""}, True, False),
        ({}, False, False),
        ({"n": None}, False, False),
        ({"n": False}, False, True),
    ],
)
def test_absent_means_missing_or_null(
    arguments: dict[str, Any], absent: bool, passed: bool
) -> None:
    assert calls([call(arguments=arguments)], args={"n": {"absent": absent}})[0] is passed


def test_a_missing_argument_matches_only_absent() -> None:
    passed, message = calls([call(arguments={})], args={"n": {"regex": ".*"}})
    assert not passed and "argument 'n' is missing" in message


def test_nested_arguments_by_dotted_path() -> None:
    nested = call(arguments={"options": {"force": True, "paths": ["/a", "/b"]}})
    assert calls([nested], args={"options.force": True})[0]
    assert calls([nested], args={"options.paths.1": "/b"})[0]  # a step of digits indexes
    assert not calls([nested], args={"options.paths.2": "/b"})[0]
    assert calls([nested], args={"options.mode": {"absent": True}})[0]
    assert calls([nested], args={"options.force.x": {"absent": True}})[0]  # leads nowhere


def test_json_text_arguments_are_parsed_and_bad_text_cannot_be_judged() -> None:
    assert calls([call(arguments='{"command": "rm -rf /"}')], args=RM)[0]
    broken = [call(arguments='{"command": "rm -rf /"')]
    passed, message = calls(broken, args=RM, quantifier="none")
    assert not passed and "cannot tell whether call 0 (shell) matches" in message
    assert "the arguments are not JSON" in message
    # without argument matchers, the arguments do not matter
    assert calls(broken, name="shell")[0]


@pytest.mark.parametrize("arguments", [[1, 2], "[1, 2]", 7, "text"])
def test_arguments_that_are_not_an_object_cannot_be_judged(arguments: Any) -> None:
    passed, message = calls([call(arguments=arguments)], args=RM, quantifier="none")
    assert not passed and "cannot tell" in message


def test_no_arguments_recorded_is_a_call_without_arguments() -> None:
    assert calls([call(arguments=None)], args={"x": {"absent": True}}, mode="exact")[0]
    assert calls([{"name": "shell"}], mode="exact")[0]


def test_a_value_of_the_wrong_type_decides_nothing() -> None:
    typed = [call(arguments={"command": ["rm", "-rf", "/"]})]
    passed, message = calls(typed, name="shell", args=RM, quantifier="none")
    assert not passed
    assert "argument 'command' is a list" in message and "not text to search" in message
    number = [call(arguments={"size": "10"})]
    assert not calls(number, args={"size": {"gt": 5}}, quantifier="none")[0]
    # another call that matches decides `any` whatever the unsure one would give
    assert calls([*typed, call(arguments={"command": "rm -rf ~"})], args=RM)[0]
    # a definite miss of another argument decides the call
    assert calls(typed, args={**RM, "user": "root"}, quantifier="none")[0]


def test_exact_mode_fails_on_arguments_no_matcher_lists() -> None:
    two = call(arguments={"path": "/tmp", "force": True})
    assert calls([two], args={"path": "/tmp"})[0]
    passed, message = calls([two], args={"path": "/tmp"}, mode="exact")
    assert not passed and 'argument "force" is not listed (mode exact)' in message
    assert calls([two], args={"path": "/tmp", "force": {"in": [True]}}, mode="exact")[0]
    # a null argument is no value: not an extra one
    assert calls(
        [call(arguments={"path": "/tmp", "x": None})], args={"path": "/tmp"}, mode="exact"
    )[0]
    # inside an object a path goes through, too
    nested = call(arguments={"options": {"force": True, "recursive": True}})
    assert not calls([nested], args={"options.force": True}, mode="exact")[0]
    assert calls([nested], args={"options": {"json-schema": {"type": "object"}}}, mode="exact")[0]


def test_a_schema_that_refers_to_itself_endlessly_cannot_judge_a_call() -> None:
    endless = {"x": {"json-schema": {"$ref": "#"}}}
    passed, message = calls([call(arguments={"x": 1})], args=endless, quantifier="none")
    assert not passed and "refers to itself endlessly" in message


def test_a_regex_that_backtracks_in_re_runs_in_linear_time() -> None:
    # Python's `re` takes about 2**40 steps for this; RE2 answers at once.
    value = "a" * 40 + "!"
    assert not calls([call(arguments={"s": value})], args={"s": {"regex": "(a+)+"}})[0]
    assert not run_predicate("matches", [value], {"regex": "(a+)+"}, CTX).passed
    schema = {"json-schema": {"type": "string", "pattern": "^(a+)+$"}}
    assert not calls([call(arguments={"s": value})], args={"s": schema})[0]


def test_matches_reads_raw_text_and_every_match() -> None:
    assert run_predicate(
        "matches", ["line one\nyear 2025"], {"regex": r"(?s).*\d{4}.*"}, CTX
    ).passed
    assert not run_predicate(
        "matches", ["line one\nyear 2025"], {"regex": r".*\d{4}.*"}, CTX
    ).passed
    assert not run_predicate("matches", ["**2025**"], {"regex": r"\d+"}, CTX).passed  # raw
    assert run_predicate("matches", [None, "7"], {"regex": r"\d"}, CTX).passed
    failed = run_predicate("matches", [{"a": 1}], {"regex": ".*"}, CTX)
    assert not failed.passed and "found an object" in failed.message


MATCHER = st.one_of(
    st.integers(),
    st.text(max_size=3),
    st.none(),
    st.sampled_from(
        [
            {"contains": "a"},
            {"regex": "a.*"},
            {"gt": 1},
            {"in": [1, "a", None]},
            {"absent": True},
            {"json-schema": {"type": "string"}},
        ]
    ),
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(JSON | st.fixed_dictionaries({"name": JSON, "arguments": JSON}), max_size=4),
    matchers=st.dictionaries(st.sampled_from(["a", "b", "a.b", "0"]), MATCHER, max_size=3),
    quantifier=st.sampled_from(["any", "all", "none", {"min": 1, "max": 2}]),
    mode=st.sampled_from(["partial", "exact"]),
)
def test_call_matches_never_raises_and_unsure_calls_never_decide_a_pass(
    items: list[Any], matchers: dict[str, Any], quantifier: Any, mode: str
) -> None:
    args = {"args": matchers, "quantifier": quantifier, "mode": mode}
    outcome = run_predicate("call-matches", items, args, CTX)
    assert isinstance(outcome.passed, bool) and isinstance(outcome.message, str)
    if outcome.passed and outcome.details and outcome.details["unsure"]:
        # passing with unsure calls is only right when no outcome of theirs changes it
        assert quantifier == "any" or (isinstance(quantifier, dict) and outcome.details["matched"])


# --------------------------------------------------------------------------------------------
# whole_words


@pytest.mark.parametrize(
    ("text", "keyword", "whole"),
    [
        ("use the IVF_FLAT index", "FLAT", False),
        ("use the FLAT index", "FLAT", True),
        ("in 2024", "4", False),
        ("4 GB", "4", True),
        ("第4章", "4", True),  # next to a CJK character: a whole word
        ("MySQL连接池耗尽", "MySQL", True),
        ("MySQLd", "MySQL", False),
        ("ＩＶＦ＿ＦＬＡＴ", "FLAT", False),  # full-width letters fold to IVF_FLAT
        ("ＦＬＡＴ index", "flat", True),
        ("the **FLAT** index", "FLAT", True),  # Markdown rendered first
        ("连接池耗尽", "连接", True),  # a keyword with non-ASCII characters: substring
        ("c++11 flags", "c++", True),  # only ends that are word characters need a boundary
        ("the dropdown", "drop", False),
    ],
)
def test_whole_words(text: str, keyword: str, whole: bool) -> None:
    args = {"keywords": [keyword], "whole_words": True}
    assert run_predicate("contains-min", [text], args, CTX).passed is whole
    assert run_predicate("contains-none", [text], args, CTX).passed is not whole
    # off (the default): a substring test, as before
    assert run_predicate("contains-min", [text], {"keywords": [keyword]}, CTX).passed


WORD = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def whole_word_by_hand(text: str, keyword: str) -> bool:
    """The rule, position by position: an end of the keyword that is a word character must
    not touch another word character; a keyword that is not ASCII is a substring."""
    if not keyword or not keyword.isascii():
        return keyword in text
    for at in range(len(text) - len(keyword) + 1):
        if text[at : at + len(keyword)] != keyword:
            continue
        end = at + len(keyword)
        if keyword[0] in WORD and at > 0 and text[at - 1] in WORD:
            continue
        if keyword[-1] in WORD and end < len(text) and text[end] in WORD:
            continue
        return True
    return False


@settings(max_examples=500, deadline=None)
@given(
    text=st.text(alphabet="ab_ .+连4\n", max_size=14),
    keyword=st.text(alphabet="ab_ .+连4\n", max_size=4),
)
def test_occurs_as_word_is_the_rule(text: str, keyword: str) -> None:
    from validator.evaluation.text import occurs_as_word, words_in

    assert occurs_as_word(text, keyword) is whole_word_by_hand(text, keyword)
    assert (keyword in words_in(text, [keyword, "zz"])) is whole_word_by_hand(text, keyword)


def test_whole_words_with_many_keywords_uses_the_one_pass_search() -> None:
    keywords = [f"kw{i}" for i in range(1500)] + ["FLAT", "连接池"]
    text = "IVF_FLAT " + "filler text " * 1000 + " kw7 连接池耗尽 kw12x"
    args = {"keywords": keywords, "min": 1, "whole_words": True}
    outcome = run_predicate("contains-min", [text], args, CTX)
    assert outcome.passed and outcome.details is not None
    assert sorted(outcome.details["matched"]) == ["kw7", "连接池"]


# --------------------------------------------------------------------------------------------
# Lint: located errors, with a caret under the bad character of a pattern


def write_spec(ws: Workspace, params: str, predicate: str = "call-matches") -> None:
    (ws.root / "specs").mkdir(exist_ok=True)
    (ws.root / "specs" / "calls.yaml").write_text(
        f"id: calls\ndescription: d\nquery: $.view.tool_calls[*]\npredicate: {predicate}\n"
        f"params:\n{params}",
        "utf-8",
    )


def test_a_bad_regex_is_a_located_lint_error_with_a_caret(ws: Workspace) -> None:
    write_spec(ws, "  args:\n    command: {regex: 'rm (-rf'}\n")
    result = run_cli("lint", "specs", cwd=ws.root)
    assert result.code == 1, result.out
    lines = result.out.splitlines()
    head = next(i for i, line in enumerate(lines) if "[bad-regex]" in line)
    assert lines[head].startswith(
        "specs/calls.yaml:7:22: error: parameter 'args' of 'call-matches'"
    )
    assert (
        "at 'command': 'regex' is not a usable regular expression (at character 4)" in lines[head]
    )
    assert lines[head + 1].strip() == "rm (-rf"
    assert lines[head + 2].index("^") - lines[head + 1].index("r") == 3


def test_a_regex_the_linear_time_engine_cannot_run_is_refused(ws: Workspace) -> None:
    write_spec(ws, "  regex: '(\\w+) \\1'\n", predicate="matches")
    result = run_cli("lint", "specs", cwd=ws.root)
    assert "specs/calls.yaml:6:10: error: parameter 'regex' of 'matches'" in result.out
    assert "backreferences" in result.out and "[bad-regex]" in result.out


@pytest.mark.parametrize(
    ("params", "where", "fragment"),
    [
        ("  args: {command: {contians: rm}}\n", "6:20", "did you mean 'contains'?"),
        ("  args: {options: {force: true}}\n", "6:20", "write its path: 'options.force'"),
        ("  args: {command: {}}\n", "6:19", "an empty matcher"),
        ("  args: {size: {gt: '5'}}\n", "6:21", "'gt' takes a number, found text \"5\""),
        ("  args: {x: {absent: true, in: [1]}}\n", "6:22", "cannot be combined"),
        ("  args: {x: {contains: ' '}}\n", "6:24", "blank once normalized"),
        ("  args: {x: {json-schema: {type: strng}}}\n", "6:34", "not a valid JSON Schema"),
        ("  args: {x: {json-schema: {$ref: 'http://x/s'}}}\n", "6:34", "point inside this schema"),
        ("  args: {x: {case: pattern}}\n", "6:14", "bind the whole parameter"),
        ("  args: {a..b: 1}\n", "6:10", "not an argument path"),
    ],
)
def test_bad_matchers_are_located(ws: Workspace, params: str, where: str, fragment: str) -> None:
    write_spec(ws, params)
    result = run_cli("lint", "specs", "--format", "json", cwd=ws.root)
    problems = json.loads(result.out)["problems"]
    assert [(f"{p['line']}:{p['column']}", p["code"]) for p in problems] == [
        (where, "bad-matcher")
    ], problems
    assert fragment in problems[0]["message"]


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ("  quantifier: {min: 3, max: 1}\n", "min 3 is more than max 1"),
        ("  quantifier: {mni: 1}\n", "did you mean 'min'?"),
        ("  quantifier: some\n", "any, all, none, or {min: N, max: N}"),
        ("  mode: exactly\n", "did you mean 'exact'?"),
    ],
)
def test_bad_quantifier_and_mode(ws: Workspace, params: str, fragment: str) -> None:
    write_spec(ws, params)
    result = run_cli("lint", "specs", cwd=ws.root)
    assert result.code == 1 and "[bad-parameter]" in result.out and fragment in result.out


def test_a_case_bound_regex_is_a_lint_error_at_its_place_in_the_case(ws: Workspace) -> None:
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "answer.yaml").write_text(
        "id: answer\ndescription: d\ninputs:\n  answer_pattern: {type: string}\n"
        "query: $.finalAnswer\npredicate: matches\nparams:\n  regex: {case: answer_pattern}\n",
        "utf-8",
    )
    from conftest import good_trace

    ws.case({"id": "good", "checks": ["answer"], "answer_pattern": "(?s).*index.*"})
    ws.case({"id": "bad", "checks": ["answer"], "answer_pattern": "(?s).*(index"})
    ws.trace("good", good_trace("good"))
    ws.trace("bad", good_trace("bad"))
    lint = run_cli("lint", "cases", "--specs", "specs", cwd=ws.root)
    assert lint.code == 1
    assert "cases/bad.yaml:6:21: error: answer_pattern: is not a usable regular expression" in (
        lint.out
    ), lint.out
    assert "[bad-regex]" in lint.out and "^" in lint.out
    result = ws.run()  # run refuses what lint calls an error, with the same words
    assert result.code == 2 and "Traceback" not in result.err
    assert "cases/bad.yaml:6:21: error: answer_pattern:" in result.err


def test_case_bound_matchers_are_a_lint_error_at_their_place_in_the_case(ws: Workspace) -> None:
    (ws.root / "specs").mkdir()
    (ws.root / "specs" / "tools.yaml").write_text(
        "id: tools\ndescription: d\ninputs:\n  expected_args: {type: object}\n"
        "query: $.toolInvocations[*]\npredicate: call-matches\nparams:\n"
        "  name: mysql_explain\n  args: {case: expected_args}\n"
        "  name_key: toolName\n",
        "utf-8",
    )
    from conftest import good_trace

    trace = good_trace("good")
    trace["toolInvocations"][1]["arguments"] = {"table": "orders"}
    ws.case({"id": "good", "checks": ["tools"], "expected_args": {"table": {"regex": "ord.*"}}})
    ws.case({"id": "bad", "checks": ["tools"], "expected_args": {"table": {"regx": "ord.*"}}})
    ws.trace("good", trace)
    ws.trace("bad", {**trace, "caseId": "bad"})
    result = ws.run()
    assert result.code == 2 and "Traceback" not in result.err
    assert "cases/bad.yaml:" in result.err
    assert "unknown matcher operator 'regx' (did you mean 'regex'?)" in result.err
    ws.case({"id": "bad", "checks": ["tools"], "expected_args": {"table": {"regex": "x.*"}}})
    result = ws.run()
    assert result.code == 1
    assert ws.case_result("good")["status"] == "pass"
    assert ws.case_result("bad")["status"] == "fail"


# --------------------------------------------------------------------------------------------
# On real traces: the OpenTelemetry traces of seven agent frameworks


def otel_suite(root: Path, specs: dict[str, str]) -> None:
    source = Path(str(DATA)) / "otel-agent-traces"
    (root / "specs").mkdir()
    (root / "cases").mkdir()
    for name, text in specs.items():
        (root / "specs" / f"{name}.yaml").write_text(text, "utf-8")
    (root / "validator.yaml").write_text(
        f"cases: cases\nspecs: [specs]\nfixtures: {json.dumps(str(source))}\npacks: []\n"
        f"checks: {json.dumps(sorted(specs))}\ntraces:\n  view: otel-genai\n",
        "utf-8",
    )
    for path in sorted(source.glob("*.json")):
        (root / "cases" / f"{path.stem}.yaml").write_text(f"id: {path.stem}\n", "utf-8")


def statuses(root: Path) -> dict[str, dict[str, str]]:
    report = json.loads((root / "reports" / "report.json").read_text("utf-8"))
    return {c["case_id"]: {k["check"]: k["status"] for k in c["checks"]} for c in report["cases"]}


@pytest.mark.skipif(not DATA, reason="set TRACE_DATA to the shared trace data folder")
def test_on_real_opentelemetry_traces_the_year_is_written(tmp_path: Path) -> None:
    head = "description: d\nquery: $.view.tool_calls[*]\npredicate: call-matches\nparams:\n"
    otel_suite(
        tmp_path,
        {
            "year": f"id: year\n{head}  name: write_file\n"
            "  args: {text: {regex: '(?s).*20\\d\\d.*'}}\n",
            "year-1999": f"id: year-1999\n{head}  name: write_file\n"
            "  args: {text: {contains: '1999'}}\n",
            "tz-exact": f"id: tz-exact\n{head}  name: get_current_time\n"
            "  args: {timezone: {in: [America/New_York]}}\n  mode: exact\n"
            "  quantifier: {min: 1, max: 1}\n",
            "no-shell": f"id: no-shell\n{head}  name: shell\n  quantifier: none\n",
            "text-is-year": "id: text-is-year\ndescription: d\n"
            "query: $.view.tool_calls[?(@.name == 'write_file')].arguments.text\n"
            "predicate: matches\nparams: {regex: '\\d{4}'}\n",
        },
    )
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.code == 0, lint.out
    result = run_cli("run", "--jobs", "1", cwd=tmp_path)
    assert result.code == 1, result.out  # year-1999 fails on purpose
    found = statuses(tmp_path)
    assert len(found) == 7
    for case_id, checks in found.items():
        assert checks == {
            "year": "pass",
            "year-1999": "fail",
            "tz-exact": "pass",
            "no-shell": "pass",
            "text-is-year": "pass",
        }, case_id
    report = json.loads((tmp_path / "reports" / "report.json").read_text("utf-8"))
    failed = next(k for k in report["cases"][0]["checks"] if k["check"] == "year-1999")
    assert 'argument \'text\' "2025" does not contain "1999"' in failed["message"]
