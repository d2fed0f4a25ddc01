"""validator.inputs: the case files of a folder, in the order Paths sort."""

from __future__ import annotations

from pathlib import Path

from validator.inputs import yaml_files

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
