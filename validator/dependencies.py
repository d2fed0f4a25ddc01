"""The libraries whose internals an acceleration reads: the versions it was checked against.

Two fast paths lean on what a library does not promise to keep: the JSONPath evaluator on
jsonpath-ng's AST classes and comparison helpers (evaluation/jsonpath/ng.py), and the YAML
composer on ruamel's loader and resolver (loading/yamlfast.py). Each reads those names in
that one module only. `SUPPORTED` is the range of each library's releases they were checked
against; pyproject.toml pins the same ranges (a test keeps the two equal).

When a name is missing (a release outside the range installed by hand), the JSONPath
evaluator cannot work at all and raises `UnsupportedDependency`, which names the installed
version and the command that installs a supported one; the command line prints it as one
line (exit code 2), never an ImportError traceback. The YAML composer takes ruamel's portable
path instead (same results, slower) and says why in `Composer.portable_reason`.
"""

from __future__ import annotations

# The top-level module -> (distribution, the range pyproject.toml requires) of every library a
# run imports. A module missing at run time (a broken environment, a package removed after
# install) is said as what to install, never as a bug of the tool (`missing_dependency`).
# orjson is not here: without it, json reads and writes everything (validator/fastjson.py).
REQUIRED = {
    "jsonpath_ng": ("jsonpath-ng", ">=1.16,<1.17"),
    "ruamel": ("ruamel.yaml", ">=0.18.6,<0.20"),
    "jsonschema": ("jsonschema", ">=4.18,<5"),
    "markdown_it": ("markdown-it-py", ">=3,<5"),
    "re2": ("google-re2", ">=1.1,<2"),
}

# distribution -> the version range the code reading its internals was checked against:
# those libraries' required ranges (one place for each range).
_READ_INTERNALS = ("jsonpath-ng", "ruamel.yaml")
SUPPORTED = {
    distribution: wanted
    for distribution, wanted in REQUIRED.values()
    if distribution in _READ_INTERNALS
}


def missing_dependency(error: BaseException) -> str | None:
    """What to install, when `error` (or an error it was raised from) is the import of a
    library in REQUIRED failing because the library is not installed; None otherwise."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ModuleNotFoundError) and current.name:
            module = current.name.split(".")[0]
            if module in REQUIRED:
                import sys  # here: only when a library is missing

                distribution, wanted = REQUIRED[module]
                return (
                    f"trace-validator needs {distribution} (the module {module}), which is not"
                    f" installed for this Python ({sys.executable}): install it with"
                    f" {sys.executable} -m pip install '{distribution}{wanted}'"
                )
        inner = getattr(current, "error", None)  # problems.InternalError's
        current = (
            inner if isinstance(inner, BaseException) else current.__cause__ or current.__context__
        )
    return None


def installed_version(distribution: str) -> str | None:
    """The installed version of `distribution` (None when it is not installed)."""
    from importlib import metadata  # here: a command that starts well never imports it

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


class UnsupportedDependency(RuntimeError):
    """An installed library lacks what an acceleration reads of it (not an ImportError: no
    `except ImportError` on the way may take it for an optional module that is absent)."""

    def __init__(self, distribution: str, missing: list[str], purpose: str) -> None:
        self.distribution = distribution
        self.version = installed_version(distribution)
        self.missing = missing
        wanted = SUPPORTED[distribution]
        self.hint = f"pip install '{distribution}{wanted}'"
        found = (
            f"{distribution} is not installed"
            if self.version is None
            else f"{distribution} {self.version} is installed and has no {', '.join(missing)}"
        )
        super().__init__(f"trace-validator needs {distribution} {wanted} ({purpose}); {found}")

    def cli_text(self) -> str:
        """The message as the command line prints it, with the command that fixes it."""
        return f"{self}: install a supported release with {self.hint}"
