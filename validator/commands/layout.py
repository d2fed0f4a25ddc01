"""Where a suite's files are, for `run` and `lint` alike: command-line flags first, then the
suite config (`validator.yaml`, or `--config FILE`), then the defaults.

Without a config the defaults are relative to the working folder, as they always were; with
one they are relative to the config's folder (the config describes a suite's layout, so a
suite runs the same from wherever `--config` is given), as are the paths written in it.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..dataclass import dataclass
from ..inputs import DEFAULT_PACKS
from ..loading.config import Config, find_config, load_config
from ..model import TraceSettings
from ..problems import Problem


@dataclass
class Layout:
    """Where a suite is (cases, specs, fixtures) and how its traces are read, from the
    flags and the config."""

    config: Config | None
    cases: Path
    specs: list[Path] | None  # None: ./specs when it exists (no config)
    fixtures: Path
    fixtures_named: bool  # by a flag or the config, not the default
    packs: tuple[str, ...]
    traces: TraceSettings


@dataclass(frozen=True)
class SuiteFlags:
    """The flags that say where a suite is (None: not given; a command without one of
    them leaves it None): --config, --cases, --specs, --fixtures, --allow-unmatched."""

    config: str | None = None
    cases: str | None = None
    specs: tuple[str, ...] | None = None
    fixtures: str | None = None
    allow_unmatched: bool | None = None

    @classmethod
    def of(cls, args: argparse.Namespace) -> SuiteFlags:
        """The flags of a parsed command line (the command's own; the others None)."""
        specs = getattr(args, "specs", None)
        return cls(
            getattr(args, "config", None),
            getattr(args, "cases", None),
            tuple(specs) if specs is not None else None,
            getattr(args, "fixtures", None),
            getattr(args, "allow_unmatched", None),
        )


def read_config(flags: SuiteFlags) -> Config | None:
    """The suite config the command was given (--config) or found: ./validator.yaml, else
    the nearest parent's up to the repository root, which the command then names on stderr
    (the suite's paths are relative to it: the run is that folder's suite)."""
    path = find_config(flags.config)
    if path is None:
        return None
    if flags.config is None and path.parent != Path():
        print(
            f"config: {path} (the nearest validator.yaml above the working folder; its paths"
            " are relative to its folder)",
            file=sys.stderr,
        )
    return load_config(path)


def config_errors(flags: SuiteFlags, config: Config | None) -> list[Problem]:
    """The config's errors that stop a command given `flags`: a path key the command line
    replaces (`--cases`, `--fixtures`) is not read, so its folder need not exist."""
    if config is None:
        return []
    given = [key for key in ("cases", "fixtures") if getattr(flags, key) is not None]
    return config.errors_besides(given)


def resolve(flags: SuiteFlags, config: Config | None) -> Layout:
    """The layout from the flags over `config`, over the defaults."""
    base = config.folder if config is not None else Path()
    cases = _first(flags.cases, config.cases if config else None, base / "cases")
    fixtures_flag = flags.fixtures
    configured = config.fixtures if config else None
    fixtures = _first(fixtures_flag, configured, base / "fixtures")
    traces = config.traces if config is not None else TraceSettings()
    allow = flags.allow_unmatched
    if allow is not None:
        traces = dataclasses.replace(traces, allow_unmatched=allow)
    return Layout(
        config=config,
        cases=cases,
        specs=_specs(flags.specs, config, base),
        fixtures=fixtures,
        fixtures_named=bool(fixtures_flag) or (config is not None and config.fixtures is not None),
        packs=(config.packs if config is not None and config.packs is not None else DEFAULT_PACKS),
        traces=traces,
    )


def _first(flag: str | None, configured: Path | None, default: Path) -> Path:
    if flag:
        return Path(flag)
    return configured if configured is not None else default


def _specs(flag: tuple[str, ...] | None, config: Config | None, base: Path) -> list[Path] | None:
    if flag:
        return [Path(s) for s in flag]
    if config is None:
        return None  # the working folder's specs/ when there is one (spec_folders decides)
    if config.specs is not None:
        return config.specs
    local = base / "specs"
    return [local] if local.is_dir() else []
