"""validator.inputs: the case files of a folder in the order Paths sort; a job's path as text."""

from __future__ import annotations

from pathlib import Path

from validator.inputs import Plan, yaml_files

NAMES = ["a.yaml", "a-b.yaml", "a b.yaml", "A.yaml", "a0.yaml", "é.yaml", "z.yml", "a.b.yaml"]
FOLDERS = ["", "a", "a/b", "a-b", "a.b", "A", "é"]


def test_case_files_come_in_path_order(tmp_path: Path) -> None:
    expected = []
    for folder in FOLDERS:
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        for name in NAMES:
            (tmp_path / folder / name).write_text("id: x\n", "utf-8")
            expected.append(tmp_path / folder / name)
        (tmp_path / folder / ".hidden.yaml").write_text("", "utf-8")
        (tmp_path / folder / "notes.txt").write_text("", "utf-8")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x.yaml").write_text("", "utf-8")
    assert yaml_files(tmp_path) == sorted(expected)


def test_a_jobs_path_is_the_paths_text(tmp_path: Path) -> None:
    for fixtures in [tmp_path, Path("."), Path("fixtures"), Path("a/b/"), Path("/")]:
        plan = Plan(fixtures)
        for rel in ["x.json", "case/run1.json", "é/ a.jsonl"]:
            assert plan.path_text(rel) == str(plan.path(rel)), (fixtures, rel)
    (tmp_path / "one.json").write_text("{}", "utf-8")
    single = Plan(tmp_path / "one.json", single=True)
    assert single.path_text("one.json") == str(tmp_path / "one.json")
