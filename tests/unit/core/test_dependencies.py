"""The libraries whose internals an acceleration reads: pinned to the range it was checked
with, and a clear error (never an ImportError traceback) when a release lacks a name."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import jsonpath_ng.ext.filter
import jsonpath_ng.jsonpath
import pytest
from conftest import REPO

from validator.dependencies import REQUIRED, SUPPORTED, UnsupportedDependency, missing_dependency
from validator.evaluation.jsonpath import ng
from validator.problems import InternalError


def test_pyproject_pins_the_ranges_the_fast_paths_were_checked_with() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    pinned = {}
    for requirement in project["dependencies"]:
        name = requirement.split(";")[0]
        for distribution in SUPPORTED:
            if name.startswith(distribution) and name[len(distribution)] in "<>=!~":
                pinned[distribution] = name[len(distribution) :].strip()
    assert pinned == SUPPORTED


def test_the_installed_jsonpath_ng_has_every_name_the_evaluator_reads() -> None:
    assert ng.missing_names() == []


def test_names_missing_from_jsonpath_ng_are_a_clear_error_naming_its_version(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delattr(jsonpath_ng.ext.filter, "_compare")
    monkeypatch.delattr(jsonpath_ng.jsonpath, "_Union")
    assert ng.missing_names() == [
        "jsonpath_ng.jsonpath._Union",
        "jsonpath_ng.ext.filter._compare",
    ]
    with pytest.raises(UnsupportedDependency) as info:
        ng.require()
    assert not isinstance(info.value, ImportError)
    installed = version("jsonpath-ng")
    assert str(info.value) == (
        "trace-validator needs jsonpath-ng >=1.16,<1.17 (the JSONPath evaluator reads its AST"
        f" classes and comparison rules); jsonpath-ng {installed} is installed and has no"
        " jsonpath_ng.jsonpath._Union, jsonpath_ng.ext.filter._compare"
    )
    assert info.value.cli_text().endswith(
        "install a supported release with pip install 'jsonpath-ng>=1.16,<1.17'"
    )


def test_a_module_of_jsonpath_ng_that_does_not_import_is_named_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "jsonpath_ng.ext.arithmetic", None)
    assert ng.missing_names() == [
        "jsonpath_ng.ext.arithmetic (importing it fails: import of jsonpath_ng.ext.arithmetic"
        " halted; None in sys.modules)"
    ]


# The command line with a jsonpath-ng release that lacks a name: one line, exit code 2.
_WITHOUT = """\
import runpy, sys
import jsonpath_ng.ext.filter

del jsonpath_ng.ext.filter.EQUALITY_ONLY_OPERATOR_MAP
sys.argv = ["validator", *sys.argv[1:]]
runpy.run_module("validator", run_name="__main__")
"""


def _with_broken_jsonpath_ng(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        check=False,
    )


# jsonpath-ng is loaded by the first query its parser must read (a filter, quotes, a
# union: not a plain path such as $.a.b[*].c, see evaluation/jsonpath/plain.py).
@pytest.mark.parametrize(
    "argv", [["query", "$.a[?(@.b)]", "x.json"], ["query", "$['a']", "x.json"]]
)
def test_the_command_line_says_which_jsonpath_ng_is_installed(
    argv: list[str], tmp_path: Path
) -> None:
    done = _with_broken_jsonpath_ng(argv, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        "error: trace-validator needs jsonpath-ng >=1.16,<1.17 (the JSONPath evaluator reads"
        f" its AST classes and comparison rules); jsonpath-ng {version('jsonpath-ng')} is"
        " installed and has no jsonpath_ng.ext.filter.EQUALITY_ONLY_OPERATOR_MAP: install a"
        " supported release with pip install 'jsonpath-ng>=1.16,<1.17'\n"
    )


def test_pyproject_requires_every_library_a_missing_import_names() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    required = {r.split(";")[0].replace(" ", "") for r in project["dependencies"]}
    for distribution, wanted in REQUIRED.values():
        assert f"{distribution}{wanted}" in required


def _missing(module: str) -> ModuleNotFoundError:
    return ModuleNotFoundError(f"No module named '{module}'", name=module)


def test_a_required_library_missing_is_found_through_wrapping_and_chaining() -> None:
    wrapped = InternalError("specs/trace-fields.yaml", _missing("re2"))
    assert "google-re2" in (missing_dependency(wrapped) or "")
    try:
        try:
            raise _missing("markdown_it.main")
        except ImportError as exc:
            raise RuntimeError("while rendering") from exc
    except RuntimeError as chained:
        found = missing_dependency(chained)
    assert found is not None and "markdown-it-py (the module markdown_it)" in found
    assert f"{sys.executable} -m pip install 'markdown-it-py>=3,<5'" in found


@pytest.mark.parametrize(
    "error",
    [_missing("yaml"), _missing("orjson"), ValueError("re2"), ImportError("cannot import name")],
)
def test_other_errors_are_not_taken_for_a_missing_library(error: Exception) -> None:
    assert missing_dependency(error) is None


def test_a_trace_whose_evaluation_lacks_a_library_is_an_error_saying_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from validator.evaluation.evaluator import Evaluator
    from validator.model import Suite, TraceFields

    def lacking(*args: object, **kwargs: object) -> None:
        raise _missing("re2")

    monkeypatch.setattr(Evaluator, "_evaluate", lacking)
    run = Evaluator(Suite({}, {}, TraceFields({}))).evaluate({"caseId": "a"}, "a", "a.json")
    assert run.status == "error"
    assert run.reason is not None
    assert run.reason.startswith("cannot evaluate this trace: trace-validator needs google-re2")
