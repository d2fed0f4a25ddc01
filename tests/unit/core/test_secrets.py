"""A secret never reaches an output, in any encoding: raw, JSON-escaped once or twice (with
`\\/`, `\\u` escapes, escaped quotes), percent-encoded, base64 (at any alignment). Property-
tested over secrets made of `/ + = " \\ ü` and letters, and through `capture` + `run` with
every report format."""

from __future__ import annotations

import base64
import contextlib
import json
import re
import sys
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO
from hypothesis import given, settings
from hypothesis import strategies as st

from validator.capture.transport import Redactor
from validator.cli import main

SECRETS = st.text(alphabet='/+="\\üaZ09-', min_size=8, max_size=24)
AROUND = st.text(alphabet="abc xyz:/", max_size=7)


def _json_strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _json_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _json_strings(v)]
    return []


def _decodings(text: str) -> list[bytes]:
    """What a reader could recover from `text`: it as is, JSON-decoded (twice too), URL-
    decoded, and every base64 run decoded at each alignment."""
    out = [text.encode()]
    for decode in (urllib.parse.unquote, urllib.parse.unquote_plus):
        out.append(decode(text).encode("utf-8", "surrogatepass"))
    try:
        strings = _json_strings(json.loads(text))
        for s in list(strings):
            with contextlib.suppress(ValueError):
                strings += _json_strings(json.loads(s))
        out += [s.encode("utf-8", "surrogatepass") for s in strings]
    except ValueError:
        pass
    for run in re.findall(r"[A-Za-z0-9+/_=-]{4,}", text):
        for skip in range(4):
            piece = run[skip:].rstrip("=")
            piece = piece[: len(piece) - 1] if len(piece) % 4 == 1 else piece
            piece += "=" * (-len(piece) % 4)
            for alphabet in (None, b"-_"):
                with contextlib.suppress(ValueError):
                    out.append(base64.b64decode(piece, altchars=alphabet))
    return out


def _recoverable(text: str, secret: str) -> bool:
    wanted = secret.encode("utf-8")
    return any(wanted in found for found in _decodings(text))


def _b64(text: str, urlsafe: bool = False) -> str:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return encode(text.encode()).decode()


ENCODINGS: dict[str, Callable[[str, str, str], str]] = {
    "raw": lambda s, a, b: a + s + b,
    "json": lambda s, a, b: json.dumps({"k": a + s + b}, ensure_ascii=False),
    "json-ascii": lambda s, a, b: json.dumps({"k": a + s + b}),
    "json-slash": lambda s, a, b: json.dumps({"k": a + s + b}).replace("/", "\\/"),
    "json-upper-hex": lambda s, a, b: re.sub(
        r"\\u[0-9a-f]{4}", lambda m: "\\u" + m.group()[2:].upper(), json.dumps({"k": a + s + b})
    ),
    "json-in-json": lambda s, a, b: json.dumps({"args": json.dumps({"k": a + s + b})}),
    "url": lambda s, a, b: "https://x.test/?key=" + urllib.parse.quote(a + s + b, safe=""),
    "url-path": lambda s, a, b: "https://x.test/" + urllib.parse.quote(a + s + b),
    "url-plus": lambda s, a, b: "q=" + urllib.parse.quote_plus(a + s + b),
    "url-lower": lambda s, a, b: re.sub(
        r"%[0-9A-F]{2}", lambda m: m.group().lower(), urllib.parse.quote(a + s + b, safe="")
    ),
    "base64": lambda s, a, b: "Basic " + _b64(a + s + b),
    "base64url": lambda s, a, b: _b64(a + s + b, urlsafe=True),
}


@settings(max_examples=300, deadline=None)
@given(SECRETS, AROUND, AROUND, st.sampled_from(sorted(ENCODINGS)))
def test_no_encoding_of_a_secret_survives_redaction(
    secret: str, before: str, after: str, encoding: str
) -> None:
    text = ENCODINGS[encoding](secret, before, after)
    assert _recoverable(text, secret)  # the detector finds it before redaction
    cleaned = Redactor([secret])(text)
    assert not _recoverable(cleaned, secret), (encoding, text, cleaned)


@settings(max_examples=100, deadline=None)
@given(SECRETS, AROUND, st.sampled_from(sorted(ENCODINGS)), st.integers(0, 250))
def test_the_first_bytes_of_an_answer_never_show_a_secret(
    secret: str, before: str, encoding: str, pad: int
) -> None:
    # a secret across the snippet's edge: never half shown
    text = "x" * pad + ENCODINGS[encoding](secret, before, "") + " and more"
    shown = Redactor([secret]).snippet(text.encode("utf-8"))
    assert secret not in shown
    assert not _recoverable(shown.removesuffix("..."), secret)


# --------------------------------------------------------------------------------------------
# Through the command line: a command target that leaks the secret every way it can

SECRET = 'k/e+y="ü\\Zz9/long'

LEAKY_AGENT = """\
import base64, json, pathlib, sys, urllib.parse

secret = sys.argv[3]
question, case = sys.argv[1], sys.argv[2]
forms = {
    "raw": secret,
    "json": json.dumps({"k": secret}),
    "url": urllib.parse.quote(secret, safe=""),
    "b64": base64.b64encode(("Basic u:" + secret).encode()).decode(),
}
if case == "binlog-disk-full":
    for form in forms.values():
        print("error with " + form, file=sys.stderr)
    sys.exit(3)
if case == "milvus-collection-not-loaded":
    print("no trace: " + json.dumps(forms))
    sys.exit(0)
for path in sorted(pathlib.Path(sys.argv[4]).glob("*.json")):
    trace = json.loads(path.read_text("utf-8"))
    if trace["question"] == question:
        trace["finalAnswer"] += " " + " ".join(forms.values())
        trace["debug"] = forms
        print(json.dumps(trace))
"""


def test_no_secret_reaches_any_output_of_capture_and_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = REPO
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENT_SECRET", SECRET)
    (tmp_path / "agent.py").write_text(LEAKY_AGENT, "utf-8")
    (tmp_path / "validator.yaml").write_text(
        f"cases: {repo / 'cases'}\nfixtures: captured\ntarget:\n"
        f"  command: [{sys.executable}, agent.py, '{{question}}', '{{case_id}}',"
        f" '${{AGENT_SECRET}}', {repo / 'fixtures'}]\n  timeout: 20\n",
        "utf-8",
    )
    code = main(["run", "--capture", "--format", "json,md,junit,html,sarif"])
    out, err = capsys.readouterr()
    assert code == 1
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "validator.yaml"]
    assert any(p.name == "report.html" for p in written)
    for path in written:
        if path.name == "agent.py":
            continue
        text = path.read_text("utf-8")
        assert not _recoverable(text, SECRET), path
    assert not _recoverable(out + err, SECRET)
    log = (tmp_path / "reports" / "capture.json").read_text("utf-8")
    assert "[redacted]" in log
