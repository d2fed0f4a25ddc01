"""orjson's fast first pass reads exactly what the strict reader reads, and orjson writes
exactly the bytes json writes: differential property tests on generated documents (the
hostile ones included: duplicate keys, lone surrogates, NaN, huge numbers, a byte-order
mark, escaped colons), and the fallback when orjson cannot be imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, Workspace, good_trace
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from validator import fastjson
from validator.traces import Document, TraceError, parse_document

orjson = pytest.importorskip("orjson")


def _strict(data: bytes | str) -> Document | TraceError:
    saved = fastjson._orjson
    fastjson._orjson = None  # type: ignore[assignment]
    try:
        return parse_document(data)
    except TraceError as exc:
        return exc
    finally:
        fastjson._orjson = saved  # type: ignore[assignment]


def _fast(data: bytes | str) -> Document | TraceError:
    try:
        return parse_document(data)
    except TraceError as exc:
        return exc


def _exact(value: Any) -> Any:
    """The value with its types and key order made comparable (1 != 1.0 != True; order)."""
    if isinstance(value, dict):
        return ("dict", [(k, _exact(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_exact(v) for v in value])
    if isinstance(value, float):
        return ("float", repr(value))
    if type(value).__name__ == "_Invalid":  # a NaN/Infinity marker
        return ("invalid", value.text)
    return (type(value).__name__, value)


def _outcome(result: Document | TraceError) -> Any:
    if isinstance(result, TraceError):
        return ("error", str(result), result.line, result.column, result.kind)
    # Python 3.13's json reads lists nested 2,000 deep (earlier ones refuse them): room for
    # `_exact` to walk them.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        return ("document", _exact(result.value), result.marked, result.notes)
    finally:
        sys.setrecursionlimit(limit)


def assert_same(data: bytes | str) -> None:
    assert _outcome(_fast(data)) == _outcome(_strict(data))


# ------------------------------------------------------------------ generated JSON texts

_SPACE = st.sampled_from(["", "", "", " ", "\n", "\t", "\r\n", "  "])
_HOSTILE_STRINGS = [
    "\\ud800",  # lone high surrogate
    "\\udfff",  # lone low surrogate
    "\\ud83d\\ude00",  # a pair: not lone
    "\\u003a",  # an escaped colon
    "\\u003A",
    "a\\\\",
    '\\"',
    "\\/",
    "\\u0000",
    ":",
    "e+19",
]


@st.composite
def _string(draw: st.DrawFn) -> str:
    text = draw(st.text(max_size=12))
    if draw(st.booleans()):
        body = json.dumps(text, ensure_ascii=draw(st.booleans()))[1:-1]
    else:
        body = json.dumps(text, ensure_ascii=False)[1:-1]
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(body)))
        if at == 0 or body[at - 1] != "\\":
            body = body[:at] + draw(st.sampled_from(_HOSTILE_STRINGS)) + body[at:]
    return f'"{body}"'


_INTEGERS = st.one_of(
    st.integers(-1000, 1000),
    st.integers(-(2**70), 2**70),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**19, 0]),
)
_NUMBER_TEXTS = st.one_of(
    _INTEGERS.map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.17e}".upper()),
    st.from_regex(r"\A-?(0|[1-9][0-9]{0,25})(\.[0-9]{1,25})?([eE][+-]?[0-9]{1,3})?\Z"),
    st.sampled_from(["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1E+999", "1e-999"]),
    st.sampled_from(["-0", "-0.0", "1.7976931348623157e308", "4.9e-324", "1" + "0" * 30]),
)


def _value(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(_list(children), _object(children))


@st.composite
def _list(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    items = draw(st.lists(children, max_size=5))
    sp = draw(_SPACE)
    return "[" + sp + ("," + sp).join(items) + sp + "]"


@st.composite
def _object(draw: st.DrawFn, children: st.SearchStrategy[str]) -> str:
    keys = draw(st.lists(st.one_of(_string(), st.sampled_from(['"a"', '"b"'])), max_size=5))
    if keys and draw(st.integers(0, 5)) == 0:  # a duplicate key, perhaps escaped
        again = keys[draw(st.integers(0, len(keys) - 1))]
        if again == '"a"' and draw(st.booleans()):
            again = '"\\u0061"'
        keys.append(again)
    sp = draw(_SPACE)
    pairs = [k + sp + ":" + draw(_SPACE) + draw(children) for k in keys]
    return "{" + sp + ("," + sp).join(pairs) + sp + "}"


_SCALARS = st.one_of(_string(), _NUMBER_TEXTS, st.sampled_from(["true", "false", "null"]))
_DOCUMENTS = st.recursive(_SCALARS, _value, max_leaves=25)


@st.composite
def _texts(draw: st.DrawFn) -> bytes:
    text = draw(_SPACE) + draw(_DOCUMENTS) + draw(_SPACE)
    if draw(st.integers(0, 9)) == 0:  # a broken document: a character cut or added
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["", ",", "}", "'", "x"])) + text[at + 1 :]
    data = text.encode("utf-8")
    return b"\xef\xbb\xbf" + data if draw(st.integers(0, 9)) == 0 else data


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_texts())
@example(b'{"a": 1, "a": 2}')
@example(b'{"a": 1, "\\u0061": 2}')
@example(b'{"a\\u003a": 1, "a": 2, "a": 3}')  # an escaped colon hides a dropped key's colon
@example(b'{"n": 18446744073709551616}')
@example(b'{"n": -9223372036854775809}')
@example(b"[123456789012345678901234567890]")
@example(b'{"x": "\\ud800"}')
@example(b'{"\\ud800": 1, "\\udc00": 2}')
@example(b"[NaN, Infinity, -Infinity, 1e400]")
@example(b"\xef\xbb\xbf{}")
@example(b'{"a": 1e19}')
@example(b"[" * 300 + b"]" * 300)
def test_the_fast_path_and_the_strict_path_read_every_text_alike(data: bytes) -> None:
    assert_same(data)
    assert_same(data.decode("utf-8"))  # text given as str (OTLP lines, the library)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(st.from_regex(r"\A-?(0|[1-9][0-9]{0,30})(\.[0-9]{1,30})?([eE][+-]?[0-9]{1,3})?\Z"))
def test_orjson_reads_every_number_as_python_does(text: str) -> None:
    assert_same(text.encode("ascii"))
    assert_same(f'{{"n": [{text}]}}'.encode("ascii"))


def test_hostile_traces_are_read_alike() -> None:
    texts = [
        b'{"a": {"v": 1, "v": 2}}',
        b'{"a": "x", "a": "x"}',
        b'{"s": "\\ud800 and \\udfff"}',
        b'{"n": NaN, "i": [Infinity, -Infinity], "h": 1e4000}',
        b'{"big": ' + b"1" * 5000 + b"}",
        b"[" * 2000 + b"]" * 2000,
        b"",
        b"   ",
        b'{"a": 1,}',
        b'{"a": 1} {"b": 2}',
        b"\xff\xfe{\x00}\x00",
        b'{"caf\xe9": 1}',
        b'{"a": "\\u003a", "b": 1}',
    ]
    for text in texts:
        assert_same(text)


def test_a_plain_trace_takes_the_fast_path_and_hostile_ones_do_not() -> None:
    plain = json.dumps(good_trace()).encode("utf-8")
    assert fastjson.loads(plain) == json.loads(plain)
    pretty = json.dumps(good_trace(), ensure_ascii=True, indent=2)
    assert fastjson.loads(pretty) == json.loads(pretty)
    for hostile in (
        b'{"a": 1, "a": 2}',
        b'{"x": "\\ud800"}',
        b"[NaN]",
        b"[18446744073709551616]",
        b'{"a\\u003a": 1}',
        b'{"a\\u003A": 1}',
        # a dropped duplicate and an escaped colon cancel out in the count of colons
        b'{"a": 1, "a": "\\u003a"}',
        b'{"a": 1, "a": "\\u003A"}',
    ):
        assert fastjson.loads(hostile) is fastjson.UNSURE, hostile


def test_duplicate_keys_are_still_an_error_naming_the_key() -> None:
    with pytest.raises(TraceError, match=r"duplicate key: 'v' in \$\.a"):
        parse_document(b'{"a": {"v": 1, "w": 3, "v": 2}}')


# ------------------------------------------------------------------ writing


def _json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        _INTEGERS,
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from([1e-7, 1e-05, 8.6e-05, 0.0001, 1e16, 1e22, -0.0, 5e-324, 1e-10]),
        st.integers(-330, 307).map(lambda e: float(f"1.5e{e}")),
        st.text(),
        st.sampled_from(['a"b', "\\", '\\"', "\x00\x1f\x7f\u2028", "e-5", "1e-07"]),
    )
    keys = st.one_of(st.text(max_size=8), st.integers(0, 3))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)
        ),
        max_leaves=20,
    )


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_json_values())
@example({"ratio": 1e-07, "n": 2**64, "s": "x"})
@example({1: "int key", "nested": [{"x": 1.5e-9}]})
def test_the_indented_head_is_json_s_bytes(value: Any) -> None:
    expected = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    assert fastjson.dumps_indented(value) == expected


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(_json_values())
@example({"ratio": 1e-07, "n": 2**64, "s": "x"})
@example({1: "int key", "nested": [{"x": 1.5e-9}], "lone": "\ud800"})
def test_a_compact_row_is_json_s_bytes(value: Any) -> None:
    expected = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    assert fastjson.dumps_compact(value) == expected


def test_a_run_writes_the_same_reports_with_and_without_orjson(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws.case()
    ws.trace("db-slow", json.dumps(good_trace(), indent=2))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert ws.run("--format", "json,md,junit,sarif").code == 0
    with_orjson = {p.name: p.read_bytes() for p in ws.out.iterdir()}
    monkeypatch.setattr(fastjson, "_orjson", None)
    assert ws.run("--format", "json,md,junit,sarif").code == 0
    assert {p.name: p.read_bytes() for p in ws.out.iterdir()} == with_orjson


def test_the_package_imports_and_reads_traces_when_orjson_cannot_be_imported(
    tmp_path: Path,
) -> None:
    script = (
        "import sys\nsys.modules['orjson'] = None\n"
        "from validator import fastjson\nfrom validator.traces import parse_document\n"
        "print(fastjson.available(), parse_document(b'{\"a\": [1, 2.5]}').value)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False {'a': [1, 2.5]}"


def test_nan_and_infinity_are_refused_as_json_refuses_them() -> None:
    for value in ({"a": float("nan")}, [float("inf")], {"b": None, "c": -float("inf")}):
        with pytest.raises(ValueError, match="Out of range float values"):
            fastjson.dumps_indented(value)
    assert fastjson.dumps_indented({"a": None}) == '{\n  "a": null\n}'


def test_every_float_magnitude_is_written_as_repr_writes_it() -> None:
    for exponent in range(-323, 308):
        for mantissa in ("1", "9.99", "4.5583318678", "2.2250738585072014"):
            value = float(f"{mantissa}e{exponent}")
            for number in (value, -value):
                assert fastjson.dumps_indented([number]) == json.dumps([number], indent=2)
                assert fastjson.dumps_compact([number]) == json.dumps([number])


def test_without_orjson_every_reading_and_writing_is_json_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fastjson, "_orjson", None)
    assert not fastjson.available()
    assert fastjson.loads(b"{}") is fastjson.UNSURE
    document = parse_document(b'{"a": [1, 2.5, "\\ud800"], "b": NaN}')
    assert document.marked
    assert document.notes == [
        "1 lone surrogate (\\ud800-\\udfff without its pair, which is not text) replaced with U+FFFD"
    ]
    assert fastjson.dumps_indented({"x": [1e-7]}) == '{\n  "x": [\n    1e-07\n  ]\n}'
    assert fastjson.dumps_compact({"x": [1e-7, None]}) == '{"x":[1e-07,null]}'
