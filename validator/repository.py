"""The repository a command runs in: the top of the git work tree holding the working
folder, found by walking up to the nearest `.git` (a folder, or the file a linked work tree
or submodule has) without running git. SARIF's paths are relative to it, and the suite
config is looked for up to it."""

from __future__ import annotations

import os
from pathlib import Path


def repository_root(start: Path | None = None) -> Path | None:
    """The nearest folder from `start` (default: the working folder) up that holds `.git`;
    None outside any git work tree."""
    here = Path(os.path.abspath(start or Path.cwd()))
    for folder in (here, *here.parents):
        try:
            if (folder / ".git").exists():
                return folder
        except OSError:  # an unreadable parent: no repository found above it
            return None
    return None


def folders_up_to_root(start: Path | None = None) -> list[Path]:
    """The working folder (or `start`), then each parent up to the repository root; the
    working folder alone outside a repository. Absolute paths, nearest first."""
    here = Path(os.path.abspath(start or Path.cwd()))
    root = repository_root(here)
    if root is None:
        return [here]
    out = [here]
    for folder in here.parents:
        if root != here and (folder == root or root in folder.parents):
            out.append(folder)
    return out
