"""Reading hand-written YAML without a parser (validator.loading.yamlsubset): whatever it
reads, it reads as the full path does (libyaml's node tree built into data, `yamlfile`):
the same data, the same warnings, the same position for every value and key; and it leaves
everything else to the full path.

The comparisons run on every YAML file of the repository (the test data holds none), on
documents generated from the constructs people write, and on random edits of the real
files (most edits make YAML the fast path declines or invalid YAML: both must end as the
full path says)."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from conftest import REPO

from validator.loading import yamlsubset
from validator.loading.yamlfile import YamlDocument, load_yaml_text
from validator.problems import ProblemsFound


def _full(text: str) -> YamlDocument | None:
    """The document as the full path reads it (None: it refuses the text)."""
    with mock.patch.object(yamlsubset, "read", lambda text: None):
        try:
            return load_yaml_text(text, "f.yaml", top=object)
        except ProblemsFound:
            return None


def _seen(doc: YamlDocument) -> tuple[Any, ...]:
    problems = [(p.line, p.column, p.severity, p.code, p.message) for p in doc.problems]
    return repr(doc.data), doc.values, doc.keys, problems


def compared(text: str) -> str:
    """'fast' when the fast path read `text` exactly as the full path does, 'full' when
    the full path read it; an AssertionError when the two differ."""
    try:
        doc = load_yaml_text(text, "f.yaml", top=object)
    except ProblemsFound:
        assert _full(text) is None, f"the fast path refused what the full path reads: {text!r}"
        return "refused"
    if doc.root is not None:
        return "full"
    full = _full(text)
    assert full is not None, f"the fast path read what the full path refuses: {text!r}"
    assert _seen(doc) == _seen(full), f"read differently: {text!r}"
    return "fast"


def _yaml_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


REPO_FILES = [
    p
    for folder in ("cases", "specs", "examples", "tests", "validator")
    for p in _yaml_files(REPO / folder)
]
SHIPPED = [p for p in REPO_FILES if p.parts[len(REPO.parts)] in ("cases", "specs", "examples")]


def _text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        return None  # a file that tests the encoding message


@pytest.mark.parametrize("path", REPO_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_yaml_file_of_the_repository_reads_as_the_full_path_reads_it(path: Path) -> None:
    text = _text(path)
    if text is not None:
        compared(text)


def test_the_shipped_cases_specs_and_examples_are_read_without_the_parser() -> None:
    assert len(SHIPPED) > 50
    slow = [str(p.relative_to(REPO)) for p in SHIPPED if compared(p.read_text("utf-8")) != "fast"]
    assert slow == []


# -------------------------------------------------------------------------------------------
# Rules, one example each: what the fast path reads, and as what


@pytest.mark.parametrize(
    ("text", "data"),
    [
        ("a: 1\nb: -2\nc: 0\nd: 0.25\ne: -1.50\n", {"a": 1, "b": -2, "c": 0, "d": 0.25, "e": -1.5}),
        (
            "a: true\nb: False\nc: TRUE\nd: yes\ne: on\n",
            {"a": True, "b": False, "c": True, "d": "yes", "e": "on"},
        ),
        ("a: null\nb: ~\nc: Null\nd: None\n", {"a": None, "b": None, "c": None, "d": "None"}),
        ("a: 30s\nb: 70%\nc: 3分钟\n", {"a": "30s", "b": "70%", "c": "3分钟"}),
        (
            "a: C#\nb: x #comment\nc: a:b\nd: http://x/y\n",
            {"a": "C#", "b": "x", "c": "a:b", "d": "http://x/y"},
        ),
        ("a: $.tools[*].name\nb: x, y\n", {"a": "$.tools[*].name", "b": "x, y"}),
        ("q: \"say \\\"hi\\\"\\n\\u4e2d\"\nr: 'it''s'\n", {"q": 'say "hi"\n中', "r": "it's"}),
        (
            "a: [x, 'y', \"z\", [1, 2], {k: v}]\nb: []\nc: {}\n",
            {"a": ["x", "y", "z", [1, 2], {"k": "v"}], "b": [], "c": {}},
        ),
        (
            "a:\n- x\n- y\nb:\n  - k: 1\n    l: [2]\n  - z\n",
            {"a": ["x", "y"], "b": [{"k": 1, "l": [2]}, "z"]},
        ),
        ("d: >\n  one\n  two\n\n  three\ne: x\n", {"d": "one two\nthree\n", "e": "x"}),
        ("d: |-\n  one\n    two\n\n  # three\n", {"d": "one\n  two\n\n# three"}),
        ("---\n# a comment\nid: x  # another\n", {"id": "x"}),
        ("- a\n- b: 1\n", ["a", {"b": 1}]),
    ],
)
def test_the_fast_path_reads(text: str, data: Any) -> None:
    assert yamlsubset.read(text) is not None
    assert compared(text) == "fast"
    assert load_yaml_text(text, "f.yaml", top=object).data == data


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a duplicate key: the full path warns
        "a: &x 1\nb: *x\n",  # an anchor and an alias
        "a: !!str 1\n",  # a tag
        "a: 0x1F\nb: 1_000\nc: 1e3\nd: 2024-01-31\ne: 007\n",  # numbers and dates written otherwise
        "a: one\n  two\n",  # text over two lines
        "a: 'one\n  two'\n",  # quoted text over two lines
        "a:\n",  # an empty value
        "a: # emptied\n",  # a value a comment emptied: the full path warns
        "a:\tb\n",  # a tab
        "a: [x,\n  y]\n",  # a list over two lines
        "a: [x, y, ]\n",  # a trailing comma
        "a: x\n---\nb: y\n",  # a second document
        '"a": 1\n',  # a quoted key
        "a: |+\n  kept\n\n",  # a block that keeps its final line breaks
        "a: >\n  one\n    indented\n",  # a more-indented line in folded text
        'a: "\\ud800"\n',  # half of a character pair: the full path explains
        "a: x\r\nb: y\r\n",  # Windows line ends
        "  a: 1\n",  # a document that starts indented
    ],
)
def test_the_fast_path_leaves_the_rest_to_the_full_path(text: str) -> None:
    assert yamlsubset.read(text) is None
    assert compared(text) in ("full", "refused")


def test_a_problem_in_a_file_read_fast_is_placed_where_the_full_path_places_it() -> None:
    text = "id: x\nitems:\n  - name: a\n    tags: [p, q]\n"
    fast = load_yaml_text(text, "f.yaml")
    full = _full(text)
    assert fast.root is None and full is not None
    for path in [("id",), ("items", 0, "tags", 1), ("items", 0, "nope"), ("items", 5), ()]:
        assert fast.value_at(path) == full.value_at(path)
        assert fast.key_at(path) == full.key_at(path)
        assert fast.place(path) == full.place(path)
    assert fast.value_at(("items", 0, "tags", 1)) == (4, 15)
    assert fast.path_at(4, 16) == ("items", 0, "tags", 1)


# -------------------------------------------------------------------------------------------
# Generated documents and edits of real files


_WORDS = [
    "a", "disk full", "磁盘已满", "x-y", "1", "-2", "0.5", "true", "null", "30s", "$.a[*].b",
    "it's", "http://x.y/z", "C#", "x?", "a  b", "0", "007", "1e3", "0x1F", "True", "yes", "~",
    "None", "2024-01-31", "12:30", ".inf", "+3", "1_000", "a#b", "a: b", "a:b", 'say "hi"',
    "- x", "-x", "?x", ":x", "x:", "[x]", "x]", "{x}", "x,y", "!x", "&x", "*x", "%x", "@x",
    "|x", ">x", "<<", "=", " sp", "sp ", "\u00a0x", "#x", "x #y", "''", "a'b", "1 to 4", "-",
    "...", "12345678901234567890", "a\\\"b", "a\\nb", "a\\u4e2d", "a\\\\", "a\\", "a\\x",
]  # fmt: skip
_KEYS = ["id", "a", "b", "c", "key", "x-y", "中文", "k 1", "e", "1", "true", "-k", "a.b"]
_RARE_KEYS = ["k:", "a[0]", "<<", "k#", "? k", "'q'", '"q"', "k ", "k?", "a{b}"]


class _Writer:
    """Writes random documents from the constructs people write, some of them wrong."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def scalar(self) -> str:
        rng = self.rng
        word = rng.choice(_WORDS) if rng.random() < 0.3 else rng.choice(_WORDS[:16])
        style = rng.random()
        if style < 0.7:
            return word
        if style < 0.85:
            return f'"{word}"'
        return "'" + word.replace("'", "''") + "'"

    def key(self) -> str:
        rng = self.rng
        return rng.choice(_RARE_KEYS) if rng.random() < 0.05 else rng.choice(_KEYS)

    def flow(self, depth: int = 0) -> str:
        rng = self.rng
        shape = rng.random()
        if shape < 0.5 or depth > 2:
            return self.scalar()
        if shape < 0.8:
            items = [self.flow(depth + 1) for _ in range(rng.randint(0, 4))]
            return (
                "[" + rng.choice([", ", ",", " , "]).join(items) + rng.choice(["", " ", ", "]) + "]"
            )
        return (
            "{"
            + ", ".join(f"{self.key()}: {self.flow(depth + 1)}" for _ in range(rng.randint(0, 3)))
            + "}"
        )

    def comment(self) -> str:
        return self.rng.choice(["", "", "", "", "", " # c", "  #c", "#c", " # a: b"])

    def block_text(self, indent: int, out: list[str]) -> str:
        rng = self.rng
        pad = " " * (indent + rng.randint(1, 3))
        for _ in range(rng.randint(0, 4)):
            out.append(
                rng.choice(
                    ["", pad[:-1], pad + "  more", pad + "# text", pad + "end ", pad + "x: y"]
                    + [pad + self.scalar()] * 6
                )
            )
        return rng.choice(["|", ">", "|-", ">-", "|", ">", "|+", "|2", "> # c"])

    def node(self, indent: int, depth: int, out: list[str], prefix: str) -> None:
        rng = self.rng
        shape = rng.random()
        if depth > 3 or shape < 0.45:
            out.append(f"{prefix} {self.flow()}{self.comment()}")
        elif shape < 0.55:
            at = len(out)
            out.append("")
            out[at] = f"{prefix} {self.block_text(indent, out)}"
        elif shape < 0.75:
            out.append(prefix + self.comment())
            self.sequence(indent + rng.choice([0, 2, 2, 4, 1]), depth + 1, out)
        else:
            out.append(prefix + self.comment())
            self.mapping(indent + rng.choice([2, 2, 4, 1, 0]), depth + 1, out)

    def mapping(self, indent: int, depth: int, out: list[str], first: str | None = None) -> None:
        for i in range(self.rng.randint(1, 4)):
            if self.rng.random() < 0.1:
                out.append(self.rng.choice(["", "# comment", " " * indent + "# c", "   "]))
            start = first if i == 0 and first is not None else " " * indent
            self.node(indent, depth, out, f"{start}{self.key()}:")

    def sequence(self, indent: int, depth: int, out: list[str]) -> None:
        rng = self.rng
        for _ in range(rng.randint(1, 4)):
            dash = " " * indent + "-" + " " * rng.choice([1, 1, 1, 2])
            shape = rng.random()
            if shape < 0.6:
                out.append(dash + self.flow() + self.comment())
            elif shape < 0.8 and depth < 4:
                self.mapping(len(dash), depth + 1, out, first=dash)
            elif shape < 0.9:
                at = len(out)
                out.append("")
                out[at] = dash + self.block_text(indent, out)
            else:
                out.append(dash.rstrip() + self.comment())

    def document(self) -> str:
        out: list[str] = ["---"] if self.rng.random() < 0.1 else []
        if self.rng.random() < 0.1:
            self.sequence(0, 0, out)
        else:
            self.mapping(0, 0, out)
        return "\n".join(out) + self.rng.choice(["\n", "\n", "", "\n\n"])


@pytest.mark.parametrize("seed", range(4))
def test_generated_documents_read_as_the_full_path_reads_them(seed: int) -> None:
    writer = _Writer(seed)
    found = Counter(compared(writer.document()) for _ in range(400))
    assert found["fast"] >= 40, found  # the fast path was put to the test


_EDITS = [
    *" -:#'\"[]{},|>&*!?%@`\n~.0eExTtFfNnul\u00a0中",
    ": ",
    " #",
    "- ",
    "  ",
    "\n  ",
    "\n- ",
    "---",
    "true",
    "null",
    "1e3",
    "<<",
    "''",
    "\\n",
    "\\",
]


@pytest.mark.parametrize("seed", range(4))
def test_edits_of_the_repository_files_read_as_the_full_path_reads_them(seed: int) -> None:
    rng = random.Random(seed)
    texts = [t for p in REPO_FILES if (t := _text(p)) is not None]
    found: Counter[str] = Counter()
    for _ in range(400):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text) + 1)
            edit = rng.random()
            if edit < 0.4:
                text = text[:at] + rng.choice(_EDITS) + text[at:]
            elif edit < 0.7:
                text = text[:at] + text[at + rng.randint(1, 3) :]
            else:
                lines = text.split("\n")
                lines.insert(rng.randrange(len(lines)), rng.choice(lines))
                text = "\n".join(lines)
        found[compared(text)] += 1
    assert found["fast"] >= 100, found


def _imports_ruamel(code: str) -> bool:
    probe = f"import sys\n{code}\nprint('ruamel.yaml' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    return done.stdout.split()[-1] == "True"


def test_hand_written_files_are_loaded_without_importing_the_yaml_parser() -> None:
    """Start-up: ruamel.yaml (~20 ms to import and check) is imported only for a file the
    fast path leaves to the full one."""
    assert not _imports_ruamel(
        f"from validator.api import load_suite\nload_suite({str(REPO / 'cases')!r})"
    )
    assert _imports_ruamel(
        "from validator.loading.yamlfile import load_yaml_text\n"
        "load_yaml_text('id: x\\nq: &a Why?\\n', 'f.yaml')"
    )
