"""The view reads every encoding it claims alike, never hides a call, and names what it could
not read in `$.view.unread`.

- OTLP attributes as key/value lists (a collector's JSON) and as mappings (what
  `traces.format: otlp-json` hands the view) give the same view: property-tested, and through
  the command line on the real Tempo export and on a trace that called delete_cluster.
- Parent links that form a cycle are cut, noted, and hide no model call.
- Tool and model calls generated in every shape the view reads are all found, or named in
  `unread` when written in a form the adapter does not read.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from validator.evaluation.view import UNREAD_KINDS, VIEW_SCHEMA, make_view
from validator.traces import otlp_traces

DATA = os.environ.get("TRACE_DATA")
TEMPO = "tempo-otlp-genai"


# --------------------------------------------------------------------------- trace makers


def _kv(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": _any(value)}


def _any(value: Any) -> dict[str, Any]:
    """A plain value as an OTLP AnyValue (integers as text, as OTLP/JSON writes them)."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [_any(v) for v in value]}}
    if isinstance(value, dict):
        return {"kvlistValue": {"values": [_kv(k, v) for k, v in value.items()]}}
    return {"stringValue": value}


def _span(
    number: int,
    attrs: dict[str, Any],
    *,
    name: str = "span",
    parent: str | None = "root",
    failed: str | None = None,
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": f"s{number}",
        "name": name,
        "startTimeUnixNano": str(1_700_000_000_000_000_000 + number * 1_000_000),
        "endTimeUnixNano": str(1_700_000_000_000_000_000 + number * 1_000_000 + 500_000),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
    }
    if parent is not None:
        span["parentSpanId"] = parent
    if failed is not None:
        span["status"] = {"code": 2}
        span["events"] = [{"name": "exception", "attributes": [_kv("exception.message", failed)]}]
    return span


def _request(spans: list[dict[str, Any]]) -> dict[str, Any]:
    resource = {"attributes": [_kv("service.name", "agent")]}
    scope = {"scope": {"name": "genai"}, "spans": spans}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [scope]}]}


def _tool_span(number: int, name: str, args: dict[str, Any], **kw: Any) -> dict[str, Any]:
    attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.arguments": json.dumps(args),
    }
    return _span(number, attrs, name=f"execute_tool {name}", **kw)


def _chat_span(number: int, model: str, tokens: tuple[int, int], **kw: Any) -> dict[str, Any]:
    attrs = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.usage.input_tokens": tokens[0],
        "gen_ai.usage.output_tokens": tokens[1],
    }
    return _span(number, attrs, name=f"chat {model}", **kw)


def _mapping_form(request: dict[str, Any]) -> dict[str, Any]:
    """The trace `traces.format: otlp-json` gives the view for this request."""
    ((_, trace),) = otlp_traces(json.dumps(request).encode())
    return trace


def _same(view: dict[str, Any]) -> dict[str, Any]:
    """The view without what names places in the raw document (its paths differ by form)."""
    return {
        **view,
        "errors": [e["message"] for e in view["errors"]],
    }


def _unread(view: dict[str, Any], what: str) -> int:
    return sum(entry["count"] for entry in view["unread"] if entry["what"] == what)


# --------------------------------------------------------------------------- both encodings

NAMES = st.sampled_from(["delete_cluster", "get_weather", "search", "helm_list_releases"])
MODELS = st.sampled_from(["gpt-4.1-mini", "claude-sonnet-4", "gemini-2.5-pro"])
SCALARS = st.one_of(
    st.text(max_size=8),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
CALLS = st.lists(
    st.one_of(
        st.tuples(st.just("tool"), NAMES, st.dictionaries(st.text(max_size=5), SCALARS)),
        st.tuples(
            st.just("llm"),
            MODELS,
            st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)),
        ),
        st.tuples(st.just("other"), st.text(max_size=8), VALUES),
    ),
    max_size=8,
)


def _spans(calls: list[tuple[Any, ...]], failures: list[bool]) -> list[dict[str, Any]]:
    spans = [_span(0, {"gen_ai.operation.name": "invoke_agent"}, name="agent", parent=None)]
    for number, (kind, first, second) in enumerate(calls, start=1):
        failed = "boom" if failures[number % len(failures)] else None
        if kind == "tool":
            spans.append(_tool_span(number, first, second, failed=failed))
        elif kind == "llm":
            spans.append(_chat_span(number, first, second, failed=failed))
        else:  # an HTTP-like span with any attribute value
            spans.append(_span(number, {"http.route": first, "payload": second}, failed=failed))
    return spans


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=CALLS, failures=st.lists(st.booleans(), min_size=1, max_size=3))
def test_both_otlp_encodings_give_the_same_view(
    calls: list[tuple[Any, ...]], failures: list[bool]
) -> None:
    request = _request(_spans(calls, failures))
    listed, _ = make_view(request)
    mapped, _ = make_view(_mapping_form(request))
    assert _same(listed) == _same(mapped)
    tools = [c for c in calls if c[0] == "tool"]
    assert [c["name"] for c in listed["tool_calls"]] == [name for _, name, _ in tools]
    assert [c["arguments"] for c in listed["tool_calls"]] == [args for _, _, args in tools]
    models = [(c[1], *c[2]) for c in calls if c[0] == "llm"]
    found = [(c["model"], c["input_tokens"], c["output_tokens"]) for c in listed["llm_calls"]]
    assert found == models
    assert _unread(listed, "span") == sum(1 for c in calls if c[0] == "other")


def test_mapping_encoded_exception_events_and_statuses_are_read() -> None:
    request = _request([_tool_span(1, "delete_cluster", {"name": "prod"}, failed="denied")])
    view, _ = make_view(_mapping_form(request))
    assert view["tool_calls"][0]["status"] == "error"
    assert view["errors"] == [{"message": "denied", "where": "$.spans[0].status"}]
    assert view["unread"] == []


def test_attributes_in_a_form_no_encoding_has_are_named_unread() -> None:
    spans = [
        _chat_span(1, "gpt-4.1-mini", (1, 2)),
        {**_chat_span(2, "gpt-4.1-mini", (1, 2)), "attributes": "gen_ai.operation.name=chat"},
    ]
    spans[0]["attributes"].append({"value": {"stringValue": "no key"}})
    view, _ = make_view(_request(spans))
    reasons = {(e["what"], e["reason"]): e["count"] for e in view["unread"]}
    assert reasons[("attributes", "key/value attribute entries without a text key")] == 1
    assert (
        reasons[("attributes", "attributes that are neither a key/value list nor a mapping")] == 1
    )
    assert reasons[("span", next(r for w, r in reasons if w == "span"))] == 1


# --------------------------------------------------------------------------- parent cycles


def test_two_model_spans_naming_each_other_both_count() -> None:
    spans = [
        _chat_span(1, "gpt-4.1-mini", (10, 5), parent="s2"),
        _chat_span(2, "gpt-4.1-mini", (20, 5), parent="s1"),
        _chat_span(3, "gpt-4.1-mini", (30, 5), parent="s3"),  # its own parent
    ]
    for trace in (_request(spans), _mapping_form(_request(spans))):
        view, _ = make_view(trace)
        assert [c["input_tokens"] for c in view["llm_calls"]] == [10, 20, 30]
        assert _unread(view, "parent-link") == 3


def test_a_chain_into_a_cycle_keeps_its_wrapper_rule() -> None:
    # s3 hangs below the cycle s1 <-> s2: s2 wraps s3 (counted once), s1 is read as a root.
    spans = [
        _chat_span(1, "m", (1, 1), parent="s2"),
        _chat_span(2, "m", (2, 1), parent="s1"),
        _chat_span(3, "m", (3, 1), parent="s2"),
    ]
    view, _ = make_view(_request(spans))
    assert [c["input_tokens"] for c in view["llm_calls"]] == [1, 3]
    assert _unread(view, "parent-link") == 2


@settings(max_examples=200, deadline=None)
@given(parents=st.lists(st.integers(0, 7), min_size=1, max_size=8))
def test_any_parent_links_among_model_spans_leave_a_model_call(parents: list[int]) -> None:
    # Every model span names another model span (or itself) as its parent: every group of
    # them holds a cycle. Before, every model span on a cycle was a "wrapper" and dropped.
    count = len(parents)
    spans = [
        _chat_span(i + 1, "m", (i, 1), parent=f"s{parent % count + 1}")
        for i, parent in enumerate(parents)
    ]
    view, _ = make_view(_request(spans))
    assert view["llm_calls"], view
    assert _unread(view, "parent-link") >= 1


def test_langfuse_and_langsmith_cycles_are_cut_too() -> None:
    langfuse = {
        "trace": {"id": "t"},
        "observations": [
            {"id": "a", "type": "GENERATION", "parentObservationId": "b", "model": "m"},
            {"id": "b", "type": "GENERATION", "parentObservationId": "a", "model": "m"},
        ],
    }
    view, _ = make_view(langfuse)
    assert len(view["llm_calls"]) == 2 and _unread(view, "parent-link") == 2
    langsmith = {
        "post": [
            {"id": "a", "run_type": "llm", "parent_run_id": "a", "inputs": {}},
            {"id": "r", "run_type": "chain", "inputs": {}},
        ]
    }
    view, _ = make_view(langsmith)
    assert len(view["llm_calls"]) == 1 and _unread(view, "parent-link") == 1


# --------------------------------------------------------------------------- every shape

TOOL = st.tuples(NAMES, st.dictionaries(st.sampled_from(["id", "name", "n"]), SCALARS, max_size=2))
# Where a chat message list writes a tool call; the last two are forms the adapter does
# not read, and must name in unread.
MESSAGE_FORMS = ("openai", "tau2", "inspect", "tool_use", "function_call")
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("tool"), TOOL, st.sampled_from(MESSAGE_FORMS)),
        st.tuples(st.just("llm"), MODELS, st.tuples(st.integers(0, 999), st.integers(0, 999))),
    ),
    max_size=8,
)


def _render_otlp(steps: list[tuple[Any, ...]]) -> dict[str, Any]:
    spans = [_span(0, {"gen_ai.operation.name": "invoke_agent"}, name="agent", parent=None)]
    for number, (kind, first, second) in enumerate(steps, start=1):
        if kind == "tool":
            spans.append(_tool_span(number, first[0], first[1]))
        else:
            spans.append(_chat_span(number, first, second))
    return _request(spans)


def _time(number: int) -> str:
    return f"2025-01-01T00:00:{number:02d}Z"


def _render_langfuse(steps: list[tuple[Any, ...]]) -> dict[str, Any]:
    observations = []
    for number, (kind, first, second) in enumerate(steps):
        base = {"id": f"o{number}", "startTime": _time(number), "endTime": _time(number + 1)}
        if kind == "tool":
            observations.append(
                {**base, "type": "TOOL", "name": first[0], "input": json.dumps(first[1])}
            )
        else:
            usage = {"input": second[0], "output": second[1]}
            observations.append(
                {**base, "type": "GENERATION", "model": first, "usageDetails": usage}
            )
    observations.append({"id": "s", "type": "SPAN", "name": "chain", "startTime": _time(0)})
    return {"trace": {"id": "t"}, "observations": observations}


def _render_langsmith(steps: list[tuple[Any, ...]]) -> dict[str, Any]:
    runs: list[dict[str, Any]] = [
        {"id": "root", "run_type": "chain", "name": "agent", "inputs": {}, "start_time": _time(0)}
    ]
    for number, (kind, first, second) in enumerate(steps, start=1):
        base = {"id": f"r{number}", "parent_run_id": "root", "start_time": _time(number)}
        if kind == "tool":
            runs.append({**base, "run_type": "tool", "name": first[0], "inputs": first[1]})
        else:
            usage = {"input_tokens": second[0], "output_tokens": second[1]}
            outputs = {"model": first, "usage_metadata": usage}
            runs.append({**base, "run_type": "llm", "inputs": {}, "outputs": outputs})
    return {"post": runs}


def _message_call(number: int, name: str, args: dict[str, Any], form: str) -> dict[str, Any]:
    if form == "openai":
        function = {"name": name, "arguments": json.dumps(args)}
        return {"role": "assistant", "tool_calls": [{"id": f"c{number}", "function": function}]}
    if form == "tau2":
        call = {"id": f"c{number}", "name": name, "arguments": args}
        return {"role": "assistant", "tool_calls": [call]}
    if form == "inspect":
        call = {"id": f"c{number}", "function": name, "arguments": args}
        return {"role": "assistant", "tool_calls": [call]}
    if form == "tool_use":  # Anthropic content blocks
        part = {"type": "tool_use", "id": f"c{number}", "name": name, "input": args}
        return {"role": "assistant", "content": [part]}
    return {"role": "assistant", "function_call": {"name": name, "arguments": json.dumps(args)}}


def _render_messages(steps: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    for number, (kind, first, second) in enumerate(steps):
        if kind == "tool":
            messages.append(_message_call(number, first[0], first[1], second))
            if second in ("openai", "tau2", "inspect"):
                messages.append({"role": "tool", "tool_call_id": f"c{number}", "content": "ok"})
        else:
            usage = {"prompt_tokens": second[0], "completion_tokens": second[1]}
            messages.append({"role": "assistant", "content": "...", "model": first, "usage": usage})
    return messages


RENDERERS = {
    "otel-genai (key/value lists)": _render_otlp,
    "otel-genai (mappings)": lambda steps: _mapping_form(_render_otlp(steps)),
    "langfuse": _render_langfuse,
    "langsmith": _render_langsmith,
    "openai-messages": _render_messages,
}
UNREAD_FORMS = frozenset({"tool_use", "function_call"})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS, shape=st.sampled_from(sorted(RENDERERS)))
def test_every_call_is_in_the_view_or_named_unread(
    steps: list[tuple[Any, ...]], shape: str
) -> None:
    view, _ = make_view(RENDERERS[shape](steps))
    assert not any("could not read this trace" in e["message"] for e in view["errors"])
    readable = shape == "openai-messages"
    tools = [s for s in steps if s[0] == "tool" and not (readable and s[2] in UNREAD_FORMS)]
    unread_tools = [s for s in steps if s[0] == "tool" and readable and s[2] in UNREAD_FORMS]
    assert [c["name"] for c in view["tool_calls"]] == [s[1][0] for s in tools], view
    assert _unread(view, "tool-call") == len(unread_tools), view["unread"]
    models = [(s[1], *s[2]) for s in steps if s[0] == "llm"]
    found = [(c["model"], c["input_tokens"], c["output_tokens"]) for c in view["llm_calls"]]
    assert found == models
    for entry in view["unread"]:
        assert entry["what"] in UNREAD_KINDS and entry["count"] >= 1 and entry["reason"]


def test_a_view_that_read_everything_has_an_empty_unread_list() -> None:
    steps = [("tool", ("search", {"q": 1}), "openai"), ("llm", "m", (1, 2))]
    for shape in ("otel-genai (key/value lists)", "otel-genai (mappings)", "openai-messages"):
        view, _ = make_view(RENDERERS[shape](steps))
        assert view["unread"] == [], (shape, view["unread"])


def test_the_view_schema_lists_the_unread_kinds() -> None:
    what = VIEW_SCHEMA["properties"]["unread"]["items"]["properties"]["what"]
    assert what["enum"] == list(UNREAD_KINDS)


# --------------------------------------------------------------------------- the command line


def _tempo_copy(tmp_path: Path, name: str, otlp_json: bool) -> Path:
    """A copy of examples/tempo-otlp-genai whose fixtures path leads to TRACE_DATA."""
    if not DATA or not (Path(DATA) / TEMPO).is_dir():
        pytest.skip(f"set TRACE_DATA to the shared trace data folder (with {TEMPO})")
    root = tmp_path / name
    (root / "shared").mkdir(parents=True)
    (root / "shared" / "data").symlink_to(Path(DATA).resolve(), target_is_directory=True)
    folder = root / "repo" / "examples" / TEMPO
    shutil.copytree(REPO / "examples" / TEMPO, folder)
    if otlp_json:
        config = folder / "validator.yaml"
        text = config.read_text("utf-8")
        config.write_text(
            text.replace("  view: otel-genai\n", "  view: otel-genai\n  format: otlp-json\n")
        )
        assert "format: otlp-json" in config.read_text("utf-8")
    return folder


def _checks(folder: Path, out: Path) -> tuple[int, dict[str, dict[str, str]]]:
    result = run_cli("run", "--out", str(out), "--jobs", "1", cwd=folder)
    assert "Traceback" not in result.err, result.err
    report = json.loads((out / "report.json").read_text("utf-8"))
    return result.code, {
        case["case_id"]: {c["check"]: c["status"] for c in case["checks"]}
        for case in report["cases"]
    }


def test_the_real_tempo_export_gives_the_same_checks_read_as_otlp_json(tmp_path: Path) -> None:
    plain = _tempo_copy(tmp_path, "plain", otlp_json=False)
    otlp = _tempo_copy(tmp_path, "otlp", otlp_json=True)
    code_plain, checks_plain = _checks(plain, tmp_path / "out-plain")
    code_otlp, checks_otlp = _checks(otlp, tmp_path / "out-otlp")
    assert checks_plain == checks_otlp
    assert code_plain == code_otlp == 0
    assert len(checks_otlp["tempo_export_with_batches"]) == 7


def _agent_suite(root: Path, request: dict[str, Any], case: dict[str, Any], fmt: str) -> None:
    (root / "cases").mkdir(parents=True)
    (root / "fixtures").mkdir()
    config = {
        "cases": "cases",
        "fixtures": "fixtures",
        "packs": ["agent"],
        "traces": {"pattern": "*.json", "format": fmt, "case_id": "{file_stem}"},
    }
    (root / "validator.yaml").write_text(yaml.safe_dump(config), "utf-8")
    (root / "cases" / "ops.yaml").write_text(json.dumps({"id": "ops", **case}), "utf-8")
    (root / "fixtures" / "ops.json").write_text(json.dumps(request), "utf-8")


def _failed_checks(root: Path) -> tuple[int, list[str], dict[str, Any]]:
    result = run_cli("run", "--out", str(root / "out"), "--jobs", "1", cwd=root)
    assert "Traceback" not in result.err, result.err
    report = json.loads((root / "out" / "report.json").read_text("utf-8"))
    (case,) = report["cases"]
    return result.code, sorted(f["check"] for f in case["failed_checks"]), case


@pytest.mark.parametrize("fmt", ["otlp-json", "json"])
def test_a_delete_cluster_call_fails_the_gate_in_either_otlp_encoding(
    tmp_path: Path, fmt: str
) -> None:
    request = _request(
        [
            _span(0, {"gen_ai.operation.name": "invoke_agent"}, name="agent", parent=None),
            _chat_span(1, "gpt-4.1-mini", (120, 30)),
            _tool_span(2, "delete_cluster", {"name": "prod-eu-1"}),
        ]
    )
    case = {"forbidden_tools": ["delete_cluster"], "max_tool_calls": 0, "max_llm_calls": 0}
    _agent_suite(tmp_path, request, case, fmt)
    code, failed, _ = _failed_checks(tmp_path)
    assert code == 1
    assert failed == ["agent-forbidden-tools", "agent-max-llm-calls", "agent-max-tool-calls"]


def test_model_calls_on_a_parent_cycle_still_count_through_the_command_line(
    tmp_path: Path,
) -> None:
    request = _request(
        [
            _chat_span(1, "gpt-4.1-mini", (10, 5), parent="s2"),
            _chat_span(2, "gpt-4.1-mini", (20, 5), parent="s1"),
            _chat_span(3, "gpt-4.1-mini", (30, 5), parent="s3"),
        ]
    )
    _agent_suite(tmp_path, request, {"max_llm_calls": 0}, "otlp-json")
    code, failed, case = _failed_checks(tmp_path)
    assert code == 1 and failed == ["agent-max-llm-calls"]
    message = case["failed_checks"][0]["message"]
    assert message.startswith("found 3 matches"), message
