"""Through the command line: a YAML comment never silently empties or cuts a value a check
reads.

`order_id: #W5362037` is `order_id: null` in YAML (every tau2 retail order id starts with
`#`), so a `quantifier: none` check would forbid only calls without an order id, and pass
although the agent cancelled that order. Lint and run refuse it at the `#`, with the line to
paste; so do a list entry `- #kafka_delete_topic` and a value inside braces. A value cut by
` #` inside unquoted text is an error where a check reads it, a warning elsewhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Workspace, good_trace, run_cli

SPEC = (
    "id: no-cancel\ndescription: The agent never cancels the order.\n"
    "query: $.view.tool_calls[*]\npredicate: call-matches\n"
    "params:\n  name: cancel_pending_order\n  args: {case: order}\n  quantifier: none\n"
    "inputs:\n  order: {type: object}\n"
)
LIST_SPEC = (
    "id: no-delete\ndescription: No forbidden tool.\n"
    "query: $.view.tool_calls[*].name\npredicate: not-in\n"
    "params: {values: {case: never}}\ninputs:\n  never: {type: array}\n"
)


def _suite(ws: Workspace, spec: str, case: str) -> Path:
    folder = ws.root / "my-specs"
    folder.mkdir(exist_ok=True)
    (folder / "spec.yaml").write_text(spec, "utf-8")
    ws.case(case, name="c1")
    trace = good_trace("c1")
    trace["toolInvocations"].append(
        {"toolName": "cancel_pending_order", "arguments": {"order_id": "#W5362037"}}
    )
    ws.trace("c1", trace)
    return folder


@pytest.mark.parametrize(
    ("case", "at", "fix"),
    [
        (
            "id: c1\nchecks: [no-cancel]\norder:\n  order_id: #W5362037\n",
            "4:13",
            'order_id: "#W5362037"',
        ),
        (
            "id: c1\nchecks: [no-cancel]\norder: {order_id: #W5362037}\n",
            "3:19",
            'order_id: "#W5362037"',
        ),
        (
            "id: c1\nchecks: [no-delete]\nnever:\n  - #kafka_delete_topic\n",
            "4:5",
            '- "#kafka_delete_topic"',
        ),
    ],
)
def test_a_value_a_comment_empties_is_an_error_at_the_hash(
    ws: Workspace, case: str, at: str, fix: str
) -> None:
    folder = _suite(ws, LIST_SPEC if "never" in case else SPEC, case)
    lint = run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root)
    assert lint.code == 1, lint.out
    expected = (
        f"cases/c1.yaml:{at}: error: `#` starts a comment in YAML, so this value is empty:"
        f" quote it: {fix} [comment-in-value]"
    )
    assert expected in lint.out
    run = ws.run("--specs", str(folder))
    assert run.code == 2  # the case cannot be loaded: it never passes
    assert "starts a comment in YAML" in run.out + run.err


def test_the_quoted_value_is_read_and_the_cancelled_order_fails_the_case(ws: Workspace) -> None:
    folder = _suite(ws, SPEC, 'id: c1\nchecks: [no-cancel]\norder:\n  order_id: "#W5362037"\n')
    assert run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root).code == 0
    assert ws.run("--specs", str(folder)).code == 1


def test_a_comment_the_author_meant_is_left_alone(ws: Workspace) -> None:
    case = "id: c1\nchecks: [no-cancel]\norder:\n  order_id: W5362037\nnotes:  # none yet\n"
    folder = _suite(ws, SPEC + "  notes: {type: 'null'}\n", case)
    lint = run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root)
    assert "comment-in-value" not in lint.out, lint.out


def test_a_value_cut_by_a_comment_is_an_error_where_a_check_reads_it(ws: Workspace) -> None:
    case = (
        "id: c1\ndescription: order W5362037 is kept #note\nchecks: [no-cancel]\n"
        "order:\n  order_id: W5362037 #x\n"
    )
    folder = _suite(ws, SPEC, case)
    lint = run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root)
    assert lint.code == 1
    assert "cases/c1.yaml:2:37: warning: YAML reads ' #note' as a comment" in lint.out
    assert (
        "cases/c1.yaml:5:22: error: YAML reads ' #x' as a comment, so the value is only 'W5362037'"
    ) in lint.out
    assert "(a check reads this value) [comment-in-value]" in lint.out


def test_a_spec_parameter_cut_by_a_comment_is_an_error(ws: Workspace) -> None:
    spec = (
        "id: no-cancel\ndescription: d #1 of many\nquery: $.finalAnswer\n"
        "predicate: contains-none\nparams:\n  keywords:\n    - build\n    - issue #42\n"
        "message: >\n  - a list in a folded text #1 is text\n"
    )
    folder = _suite(ws, spec, "id: c1\nchecks: [no-cancel]\n")
    lint = run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root)
    assert "my-specs/spec.yaml:2:16: warning: YAML reads ' #1 of many'" in lint.out, lint.out
    assert "my-specs/spec.yaml:8:13: error: YAML reads ' #42' as a comment" in lint.out
    assert ":10:" not in lint.out


def test_a_value_cut_inside_brackets_is_an_error_not_a_syntax_puzzle(ws: Workspace) -> None:
    spec = (
        "id: no-cancel\ndescription: d\nquery: $.finalAnswer\n"
        "predicate: contains-none\nparams:\n  keywords: [build, issue #42]\n"
    )
    folder = _suite(ws, spec, "id: c1\nchecks: [no-cancel]\n")
    lint = run_cli("lint", "--specs", str(folder), "cases", cwd=ws.root)
    assert (
        "my-specs/spec.yaml:6:27: error: YAML reads '#42]' as a comment, closing bracket"
        ' included, so the value is cut: quote it: "issue #42" [comment-in-value]'
    ) in lint.out, lint.out
