"""validator.saferegex: Python's `re` is the oracle for every answer, RE2 does the matching."""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import REPO
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scaling import growth

from validator.evaluation import saferegex, unicodeclasses
from validator.evaluation.saferegex import RegexError, SafeRegex, compile_safe

# ------------------------------------------------------------------ differential

ALPHABET = "abAKk\u212a\n _٣é1ſsS"

atoms = st.sampled_from(
    [
        "a",
        "b",
        "k",
        "s",
        "\\n",
        "\\.",
        ".",
        "[ab]",
        "[^a]",
        "[a-k]",
        "\\d",
        "\\D",
        "\\w",
        "\\W",
        "\\s",
        "\\S",
        "[\\d_]",
        "[^\\w\\n]",
        "(?i:k)",
        "(?i:[a-s])",
        "(?i:S)",
        "(?s:.)",
        "é",
        "\\u00e9",
        "\\x41",
        "\\N{DIGIT ONE}",
        "\\141",
    ]
)
quantifiers = st.sampled_from(
    ["", "", "", "*", "+", "?", "{2}", "{1,3}", "{,2}", "{2,}", "*?", "+?", "??", "{1,2}?"]
)


def _join(parts: list[str]) -> str:
    return "".join(parts)


pieces = st.recursive(
    st.builds(lambda a, q: a + q, atoms, quantifiers),
    lambda inner: st.one_of(
        st.builds(lambda xs: _join(xs), st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda x, y: f"(?:{x}|{y})", inner, inner),
        st.builds(lambda x, q: f"({x}){q}", inner, quantifiers),
        st.builds(lambda x: f"(?P<n{len(x)}>{x})", inner),
    ),
    max_leaves=6,
)
anchors_before = st.sampled_from(["", "", "^", "\\A", "(?m:^)"])
anchors_after = st.sampled_from(["", "", "$", "\\Z", "(?m:$)"])
global_flags = st.sampled_from(["", "", "(?i)", "(?s)", "(?m)", "(?a)", "(?ai)", "(?x)"])
patterns = st.builds(
    lambda f, a, body, z: f + a + body + z, global_flags, anchors_before, pieces, anchors_after
)
texts = st.text(alphabet=ALPHABET, max_size=8)


def _compiled(pattern: str) -> SafeRegex:
    try:
        return compile_safe(pattern)
    except RegexError:
        # Refusals are tested below; group-name clashes from the generator land here too.
        assume(False)
        raise


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern=patterns, text=texts)
def test_search_and_fullmatch_agree_with_python(pattern: str, text: str) -> None:
    safe = _compiled(pattern)
    assert safe.search(text) == bool(re.search(pattern, text)), (pattern, text)
    assert safe.fullmatch(text) == bool(re.fullmatch(pattern, text)), (pattern, text)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pattern=patterns,
    text=texts,
    template=st.sampled_from(["-", "[\\g<0>]", "<\\1>", "\\n", "é\\\\", "\\g<1>\\g<0>"]),
)
def test_substitution_agrees_with_python(pattern: str, text: str, template: str) -> None:
    safe = _compiled(pattern)
    try:
        substitute = safe.substitution(template)
    except RegexError:
        assume(False)
        raise
    assert substitute(text) == re.sub(pattern, template, text), (pattern, template, text)


# The parts of a pattern that RE2 reads differently from Python, and that the translation
# must keep Python's meaning for, each with texts where the readings differ.
@pytest.mark.parametrize(
    ("pattern", "texts"),
    [
        ("\\d", ["٣", "1", "x"]),  # Unicode digits
        ("\\w", ["é", "_", "-", "中"]),
        ("\\s", ["\x1c", "\u2003", "\x0b", "x"]),
        ("(?a)\\w", ["é", "a"]),
        ("(?i)i", ["İ", "I", "ı"]),  # Python folds İ (U+0130) to i; RE2's (?i) does not
        ("(?i)k", ["\u212a", "K"]),  # Kelvin sign
        ("(?i)s", ["ſ", "S"]),
        ("(?i)[^k]", ["\u212a", "x"]),
        ("(?i)\\W", ["K", "-"]),
        ("ab$", ["ab", "ab\n", "ab\n\n", "abc"]),  # $ also matches before a final newline
        ("x{,2}y", ["xxy", "x{,2}y"]),  # a quantifier in Python, a literal in RE2
        ("a\\Z", ["a", "a\n"]),  # \Z is RE2's \z
        ("(?m)^b", ["a\nb", "ab"]),
        ("(?s).", ["\n"]),
        (".", ["\n", "x"]),
        ("[\\b]", ["\b", "b"]),  # backspace inside a class
        ("(?x) a  b # comment", ["ab", "a b"]),
    ],
)
def test_constructs_read_differently_by_re2_keep_python_meaning(
    pattern: str, texts: list[str]
) -> None:
    safe = compile_safe(pattern)
    for text in texts:
        assert safe.search(text) == bool(re.search(pattern, text)), (pattern, text)
        assert safe.fullmatch(text) == bool(re.fullmatch(pattern, text)), (pattern, text)


@pytest.mark.parametrize(
    "atom",
    ["\\d", "\\w", "\\s", "\\W", "[^\\d\\s]", "(?i)k", "(?i)[a-z]", "(?i)[^s]", "(?i)\\w", "."],
)
def test_character_sets_equal_python_over_every_code_point(atom: str) -> None:
    every = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    safe = compile_safe(atom)
    python = {m.start() for m in re.finditer(atom, every)}
    ranges = safe._search.pattern  # the translated RE2 pattern, for the message only
    sample = [i for i in range(0, len(every), 997)] + sorted(python)[:2000]
    for i in sample:
        assert safe.fullmatch(every[i]) == (i in python), (atom, hex(ord(every[i])), ranges[:80])


# ------------------------------------------------------------------ linear time


# Each pattern backtracks exponentially in Python's `re`: doubling the size multiplies its
# work by thousands. The sizes that are doubled stay small, so a regression fails, not hangs.
CATASTROPHIC = [
    ("^(a+)+$", lambda n: "a" * n + "b", 31, 12),
    ("(a|aa)*c", lambda n: "a" * n, 40, 16),
    ("(x+x+)+y", lambda n: "x" * n, 5000, 12),
    ("^(\\w+\\s?)*$", lambda n: "word " * n + "!", 5000, 4),
]


@pytest.mark.parametrize(("pattern", "text", "size", "doubled"), CATASTROPHIC)
def test_catastrophic_patterns_finish_at_once(
    pattern: str, text: Callable[[int], str], size: int, doubled: int
) -> None:
    safe = compile_safe(pattern)
    assert not safe.search(text(size))
    assert not safe.fullmatch(text(size))

    def match(n: int) -> Callable[[], object]:
        value = text(n)
        return lambda: (safe.search(value), safe.fullmatch(value))

    # Linear: twice the text costs at most about twice (backtracking: thousands of times).
    ratio = growth(match(doubled), match(2 * doubled), inner=500)
    assert ratio < 3, ratio


def test_catastrophic_substitution_finishes_at_once() -> None:
    substitute = compile_safe("^(a+)+$").substitution("b")
    assert substitute("a" * 31 + "!") == "a" * 31 + "!"
    assert substitute("aaa") == "b"
    small, large = "a" * 12 + "!", "a" * 24 + "!"
    ratio = growth(lambda: substitute(small), lambda: substitute(large), inner=500)
    assert ratio < 3, ratio


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    ("pattern", "column", "part"),
    [
        ("(drop", 1, "missing )"),
        ("ab[", 3, "unterminated character set"),
        ("a{2,1}", 3, "min repeat greater than max repeat"),
        ("x\\q", 2, "bad escape"),
        ("(a)\\1", 4, "backreferences"),
        ("(?P<n>a)(?P=n)", 9, "backreferences"),
        ("x(?=a)", 2, "lookahead"),
        ("x(?<!a)", 2, "lookbehind"),
        ("(a)(?(1)b|c)", 4, "conditional"),
        ("(?>a)", 1, "atomic"),
        ("ab++", 3, "possessive"),
        ("x\\bword", 2, "\\b and \\B"),
        ("a$b", 2, "`$` is supported only at the end"),
        ("a{1001}", 2, "repeat counts over 1000"),
    ],
)
def test_refusals_name_the_column(pattern: str, column: int, part: str) -> None:
    with pytest.raises(RegexError) as info:
        compile_safe(pattern)
    assert info.value.column == column, info.value
    assert part in info.value.message
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("pattern", "template", "part", "column", "message"),
    [
        ("a*", "x", "pattern", 1, "must not be able to match empty text"),
        ("x(a|b?)+", "\\1", "pattern", 1, "must not repeat a part that can match empty text"),
        # found by test_substitution_agrees_with_python: Python ends the match before the
        # final newline ("-\n"), the linear-time engine after it ("-")
        ("(.(\\n??)*)$", "-", "pattern", 1, "must not repeat a part that can match empty"),
        ("((a??)(b?))*c", "-", "pattern", 1, "must not repeat a part that can match empty"),
        ("(a)", "\\2", "replacement", 2, "invalid group reference 2"),
        ("(a)", "\\q", "replacement", 1, "bad escape"),
    ],
)
def test_substitution_refusals(
    pattern: str, template: str, part: str, column: int, message: str
) -> None:
    with pytest.raises(RegexError) as info:
        compile_safe(pattern).substitution(template)
    assert (info.value.part, info.value.column) == (part, column), info.value
    assert message in info.value.message


@pytest.mark.parametrize(
    ("pattern", "text"),
    [("a$", "a\n"), ("a$", "a"), ("(a$)", "xa\n"), ("(?:b|a$)", "ab\na\n"), ("(?m)a$", "a\na")],
)
def test_substitution_keeps_the_final_newline_dollar_stands_before(pattern: str, text: str) -> None:
    template = "<\\g<0>>"
    assert compile_safe(pattern).substitution(template)(text) == re.sub(pattern, template, text)


def test_non_text_is_a_type_error_and_lone_surrogates_a_value_error() -> None:
    safe = compile_safe("a")
    with pytest.raises(TypeError, match="applies to text"):
        safe.search(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="lone surrogate"):
        safe.search("a\ud800")


def test_pickles_and_memoizes() -> None:
    safe = compile_safe("x+y")
    assert compile_safe("x+y") is safe
    assert pickle.loads(pickle.dumps(safe)).search("xxy")
    with pytest.raises(RegexError) as info:
        compile_safe("(")
    error = info.value
    clone = pickle.loads(pickle.dumps(error))
    assert (clone.text, clone.column, clone.message) == (error.text, error.column, error.message)


def test_no_stderr_noise_from_re2(capfd: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(RegexError):
        compile_safe("(a{1000}){1000}")
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("pattern", ["b|(?i:s)", "(?i:k)|x", "a|[Ss]", "(?:[Kk]|c)"])
def test_re2_case_pair_merging_does_not_fold_unicode(pattern: str) -> None:
    # RE2 turns the class [Ss] into "s ignoring case", then folds it with Unicode rules
    # when an alternation merges it: "ſ" (U+017F) and "K" (U+212A) would match.
    safe = compile_safe(pattern)
    for text in ["ſ", "\u212a", "s", "K"]:
        assert safe.search(text) == bool(re.search(pattern, text)), (pattern, text)


# ------------------------------------------------------------------ the class table


def test_class_table_is_what_scanning_every_code_point_gives() -> None:
    if unicodedata.unidata_version not in unicodeclasses.UNICODE_VERSIONS:
        pytest.skip(
            f"tables made for Unicode {', '.join(unicodeclasses.UNICODE_VERSIONS)}, this Python"
            f" has {unicodedata.unidata_version}: add one from saferegex._scanned_table()"
        )
    scanned = saferegex._scanned_table()
    assert {key: unicodeclasses.stored(key) for key in scanned} == scanned
    # What the classes and case folding read from it, negated classes included.
    for flags in ("", "(?a)"):
        for pattern in (r"\d", r"\D", r"\s", r"\S", r"\w", r"\W"):
            got = saferegex._python_set(pattern, flags)
            assert got == saferegex._scanned_set(pattern, flags), (flags, pattern)
    assert saferegex._cased_text() == saferegex._scanned_cased()


def test_another_unicode_version_scans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(unicodeclasses, "UNICODE_VERSIONS", ())  # none for this Python
    unicodeclasses.stored.cache_clear()
    try:
        assert unicodeclasses.stored(r"\d") is None
    finally:
        unicodeclasses.stored.cache_clear()


# A program printing what the stored table of its Python's Unicode version holds, and what
# scanning every code point there gives (run by each other Python found here).
_COMPARE = """
import json, unicodedata
from validator.evaluation import saferegex, unicodeclasses
scanned = saferegex._scanned_table()
stored = {key: unicodeclasses.stored(key) for key in scanned}
print(json.dumps([unicodedata.unidata_version, stored == scanned]))
"""


def _other_pythons() -> list[Path]:
    """Interpreters of other Python versions on this machine (pyenv's), if any."""
    root = Path.home() / ".pyenv" / "versions"
    here = f"{sys.version_info.major}.{sys.version_info.minor}."
    found = sorted(root.glob("3.1[2-9]*/bin/python")) if root.is_dir() else []
    return [python for python in found if not python.parent.parent.name.startswith(here)]


def test_every_stored_table_is_what_its_python_scans() -> None:
    """The tables of the Unicode versions other Pythons have (3.12: 15.0.0, 3.13: 15.1.0),
    checked on those Pythons: the package's own code, no dependency needed."""
    checked = set()
    for python in _other_pythons():
        done = subprocess.run(
            [str(python), "-c", _COMPARE],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        if done.returncode != 0:
            continue  # a Python that cannot import the package's leaf modules
        version, same = json.loads(done.stdout)
        if version in unicodeclasses.UNICODE_VERSIONS:
            assert same, f"the stored Unicode {version} table differs from {python}'s scan"
            checked.add(version)
    others = set(unicodeclasses.UNICODE_VERSIONS) - {unicodedata.unidata_version}
    if not checked:
        pytest.skip(f"no other Python here to check the Unicode {sorted(others)} tables on")


LINEAR = [
    "^[a-z0-9][a-z0-9._-]*\\Z",
    "^[a-z0-9][a-z0-9._-]*$",
    "\\A\\d+",
    "^a.*b$",
    "(?i)^ab[x-z]?$",
]
NOT_LINEAR = ["^(a+)+$", "a+", "^a*b*$", "(?m)^a*$", "^(?:ab)*$", "^a|b"]


@pytest.mark.parametrize("pattern", LINEAR + NOT_LINEAR)
def test_patterns_python_runs_in_linear_time_are_told_apart(pattern: str) -> None:
    from validator.evaluation import saferegex

    tree = saferegex._p.parse(pattern)
    assert saferegex._is_linear(tree) == (pattern in LINEAR)


@pytest.mark.parametrize("pattern", LINEAR)
def test_a_pattern_python_runs_in_linear_time_gives_the_answers_of_the_linear_time_engine(
    pattern: str,
) -> None:
    safe = compile_safe(pattern)
    texts = [
        "",
        "a",
        "ab",
        "AB",
        "a\n",
        "ab\n",
        "abx",
        "abz\n",
        "x-1.y",
        "X",
        "-x",
        "12",
        "١٢",
        "a\nb",
    ]
    texts += ["a" * 50 + "b", "a.b_c-d", "中文", "a\ud800b"]
    for text in texts:
        for ask, engine in (
            (safe.search, safe._search.search),
            (safe.fullmatch, safe._full.fullmatch),
        ):
            try:
                expected = engine(text) is not None
            except UnicodeEncodeError:
                with pytest.raises(ValueError, match="lone surrogate"):
                    ask(text)
                continue
            assert ask(text) == expected, (pattern, text)
