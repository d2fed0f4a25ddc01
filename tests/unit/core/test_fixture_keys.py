"""Which files a case's `fixture:` key picks (`inputs.plan_fixtures`), against an oracle that
matches every key against every file: the plan files keys by their text before the first
wildcard and looks up a file's own beginnings (so thousands of keys cost a few look-ups a
file), which must pick exactly the files the patterns match, in the keys' order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from validator.globs import Globs, glob_regex
from validator.inputs import PICKED, PICKED_CONTENT, plan_fixtures

SEGMENTS = ["runs", "run", "exports", "ex", "a", "a1", "b"]
NAMES = ["1.json", "2.json", "10.json", "a.json", "notes.txt", "x.jsonl", "run-1.json"]


def _tree(rng: random.Random, root: Path) -> list[str]:
    """A few files up to three folders deep, as paths under `root`."""
    made = set()
    for _ in range(rng.randrange(5, 25)):
        folders = [rng.choice(SEGMENTS) for _ in range(rng.randrange(0, 3))]
        made.add("/".join([*folders, rng.choice(NAMES)]))
    for rel in made:
        path = root / rel
        if any(p.is_file() for p in [*path.parents][: rel.count("/")]):
            continue  # a file where a folder would go
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_dir():
            path.write_text("{}", "utf-8")
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def _key(rng: random.Random, files: list[str]) -> str:
    """A key as people write them: a file, a folder, or a glob made from one of the files."""
    rel = rng.choice(files)
    kind = rng.randrange(7)
    if kind == 0:
        return rel  # one file
    if kind == 1 and "/" in rel:
        return rel.rsplit("/", 1)[0]  # its folder
    if kind == 2:
        return rel.rsplit("/", 1)[0] + "/*.json" if "/" in rel else "*.json"
    if kind == 3:
        return rel[: rng.randrange(0, len(rel))] + "*"
    if kind == 4:
        return "**/" + rel.rsplit("/", 1)[-1]
    if kind == 5 and "/" in rel:
        top = rel.split("/", 1)[0]
        return top[:-1] + "?/**"  # a wildcard, then everything below
    i = rng.randrange(len(rel))
    return rel[:i] + rng.choice(["?", "[0-9]", "[!a]", "**"]) + rel[i + 1 :]


def _oracle(root: Path, keys: dict[str, str], files: list[str]) -> dict[str, list[str]]:
    """file -> the cases whose key picks it, in the keys' order: every key tried on it."""
    traces = Globs(("*.json", "*.jsonl"))
    picked: dict[str, list[str]] = {}
    for rel in files:
        for case_id, key in keys.items():
            clean = key.strip().rstrip("/")
            folder = (root / clean).is_dir()
            regex = glob_regex(clean + "/**" if folder else clean)
            if regex.fullmatch(rel) and (not folder or traces.matches(rel)):
                picked.setdefault(rel, []).append(case_id)
    return picked


@pytest.mark.parametrize("seed", range(60))
def test_the_plan_picks_what_matching_every_key_against_every_file_picks(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    files = _tree(rng, tmp_path)
    keys = {f"case-{n}": _key(rng, files) for n in range(rng.randrange(1, 12))}
    plan = plan_fixtures(keys, tmp_path, "fixtures", picks=keys)
    # (A top-level JSON Lines file picked is PICKED_CONTENT: its lines name cases too.)
    got = {s.rel: list(s.cases) for s in plan.sources if s.how in (PICKED, PICKED_CONTENT)}
    assert got == _oracle(tmp_path, keys, files), keys
