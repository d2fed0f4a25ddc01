"""The package's layout is its design: imports go one way, and there is no cycle.

Every import of every module under validator/ is read from its source (module-level and
inside functions alike) and checked against the layers of docs/ARCHITECTURE.md.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "validator"

# What every module may import: the house's dataclass decorator (dataclass.py).
FOUNDATION = ("validator.dataclass",)

# module -> what it may import from the package (prefixes) besides FOUNDATION; everything is
# allowed itself.
LAYERS = {
    "validator.dataclass": (),
    "validator.version": (),
    "validator.model": (),
    "validator.codes": (),
    "validator.display": (),
    "validator.signals": (),
    "validator.shares": (),
    # dependencies: the library ranges the fast paths were checked with, the clear error
    "validator.dependencies": (),
    # units: values written with a unit (20s, 80%, 4 MiB), in case files as on the command line
    "validator.units": (),
    # fastjson: orjson where its bytes and values are the standard library's (traces, reports)
    "validator.fastjson": (),
    # commonmark: the Markdown dialect, parsed for the checks' text and the page's HTML
    "validator.commonmark": (),
    # processes: every process the tool starts (loading, evaluation and report writing use it)
    "validator.processes": ("validator.signals",),
    # The git work tree's top, found from the working folder: config search, SARIF paths.
    "validator.repository": (),
    # globs: the glob patterns of traces.pattern and the config
    "validator.globs": (),
    # fixturekeys: which files a case's `fixture:` key picks
    "validator.fixturekeys": ("validator.globs",),
    "validator.problems": ("validator.codes", "validator.display"),
    "validator.files": ("validator.problems",),
    "validator.results": (),
    "validator.inputs": (
        "validator.problems",
        "validator.codes",
        "validator.traces",
        "validator.globs",
        "validator.fixturekeys",
    ),
    # otlp: OpenTelemetry AnyValues as plain values, for the otlp-json reader and the view
    "validator.otlp": (),
    "validator.traces": (
        "validator.problems",
        "validator.codes",
        "validator.otlp",
        "validator.fastjson",
        "validator.files",
    ),
    "validator.evaluation": (
        "validator.files",
        "validator.evaluation",
        "validator.model",
        "validator.problems",
        "validator.codes",
        "validator.results",
        "validator.inputs",
        "validator.traces",
        "validator.otlp",
        "validator.signals",
        "validator.processes",
        "validator.shares",
        "validator.display",
        "validator.dependencies",
        "validator.commonmark",
    ),
    "validator.loading": (
        "validator.files",
        "validator.display",
        "validator.loading",
        "validator.repository",
        "validator.evaluation",
        "validator.model",
        "validator.problems",
        "validator.codes",
        "validator.inputs",
        "validator.globs",
        "validator.processes",
        "validator.dependencies",
        "validator.units",
    ),
    # capture: asks the agent and reads its answers; the command writes what it returns.
    "validator.capture": (
        "validator.files",
        "validator.capture",
        "validator.loading",
        "validator.evaluation",
        "validator.model",
        "validator.inputs",
        "validator.traces",
        "validator.problems",
        "validator.codes",
        "validator.display",
        "validator.version",
    ),
    "validator.report": (
        "validator.files",
        "validator.report",
        "validator.repository",
        "validator.display",
        "validator.results",
        "validator.problems",
        "validator.codes",
        "validator.version",
        "validator.signals",
        "validator.processes",
        "validator.shares",
        "validator.fastjson",
        "validator.globs",
        "validator.commonmark",
    ),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every validator module `path` imports, resolved to absolute names."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("validator"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if not target.startswith("validator"):
                continue
            for alias in node.names:  # `from . import api` imports the module validator.api
                sub = f"{target}.{alias.name}"
                place = PACKAGE.parent / sub.replace(".", "/")
                module = place.with_suffix(".py").exists() or (place / "__init__.py").exists()
                out.add(sub if module else target)
    return out


def _graph() -> dict[str, set[str]]:
    return {_module_name(p): _imports(p) for p in PACKAGE.rglob("*.py")}


def test_no_import_cycle() -> None:
    graph = _graph()
    done: set[str] = set()

    def visit(node: str, stack: list[str]) -> None:
        if node in stack:
            cycle = [*stack[stack.index(node) :], node]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if node in done:
            return
        for target in sorted(graph.get(node, ())):
            if target != node:
                visit(target, [*stack, node])
        done.add(node)

    for module in sorted(graph):
        visit(module, [])


def _layer(module: str) -> str | None:
    return next(
        (
            k
            for k in sorted(LAYERS, key=len, reverse=True)
            if module == k or module.startswith(k + ".")
        ),
        None,
    )


def test_imports_go_one_way() -> None:
    wrong = []
    for module, targets in sorted(_graph().items()):
        layer = _layer(module)
        if layer is None:
            continue  # cli, api, commands: the top may import anything
        allowed = (layer, *FOUNDATION, *LAYERS[layer])
        for target in sorted(targets):
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                wrong.append(f"{module} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_imports_inside_functions(tmp_path: Path) -> None:
    # The checker itself: a lazy import inside a function counts like any other.
    source = PACKAGE / "model.py"
    assert _imports(source) == set(FOUNDATION)
    assert "validator.api" in _imports(PACKAGE / "__init__.py")


def test_every_dataclass_of_the_package_is_the_house_s() -> None:
    # validator/dataclass.py: the same classes as the standard decorator, ~0.3 ms cheaper each
    # to make at import; one made by the standard decorator costs every command that.
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "dataclass.py":
            continue  # the house's decorator, made of the standard one
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "dataclasses" and not node.level:
                if any(alias.name == "dataclass" for alias in node.names):
                    wrong.append(str(path.relative_to(PACKAGE)))
            elif (
                isinstance(node, ast.Attribute)
                and node.attr == "dataclass"
                and isinstance(node.value, ast.Name)
                and node.value.id == "dataclasses"
            ):
                wrong.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert not wrong, "use `from <package>.dataclass import dataclass`:\n" + "\n".join(wrong)


def test_no_module_imports_a_private_name_of_another() -> None:
    # Private stays private: a helper another module needs gets a public name in a module that
    # fits (`from .x import _helper` across modules is how two copies of a rule start).
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if not target.startswith("validator") or target == name:
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    wrong.append(f"{name} imports {target}.{alias.name}")
    assert not wrong, "\n".join(wrong)


def layer_table() -> str:
    """docs/ARCHITECTURE.md's layer table, made from LAYERS (so the two cannot disagree)."""
    rows = ["| layer | may import |", "|---|---|", "| `cli`, `api`, `commands` | anything |"]
    foundation = ", ".join(f"`{m.removeprefix('validator.')}`" for m in FOUNDATION)
    rows.append(f"| every module | {foundation} |")
    for module, targets in sorted(LAYERS.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        short = module.removeprefix("validator.")
        allowed = [t.removeprefix("validator.") for t in targets if t != module]
        shown = ", ".join(f"`{a}`" for a in allowed) or "nothing of the package"
        rows.append(f"| `{short}` | {shown} |")
    return "\n".join(rows) + "\n"


def test_the_architecture_page_shows_these_layers() -> None:
    page = (PACKAGE.parent / "docs" / "ARCHITECTURE.md").read_text("utf-8")
    start = page.index("<!-- layers: made from tests/project/test_layout.py LAYERS -->\n")
    start = page.index("\n", start) + 1
    shown = page[start : page.index("<!-- /layers -->", start)]
    assert shown == layer_table(), "docs/ARCHITECTURE.md's layer table should be:\n" + layer_table()


def test_no_module_is_too_long_to_hold_in_mind() -> None:
    # Over 800 lines: split it. Over 600: its docstring says why it is one concept.
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text("utf-8")
        lines = source.count("\n")
        docstring = ast.get_docstring(ast.parse(source)) or ""
        if lines > 800 or (lines > 600 and "600 lines" not in docstring):
            long.append(f"{path.relative_to(PACKAGE)}: {lines} lines")
    assert not long, (
        "split these, or say in the docstring why one concept is over 600 lines:\n"
        + "\n".join(long)
    )
