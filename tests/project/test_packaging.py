"""What the sdist and the wheel carry: the licence text, py.typed, the documentation.

The checks read pyproject.toml and the files it names (nothing is built, unless hatchling is
importable: then the wheel and the sdist are built into a temporary folder and read).
"""

from __future__ import annotations

import hashlib
import importlib.util
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
# The Apache License 2.0 text as published at https://www.apache.org/licenses/LICENSE-2.0.txt
APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"


def test_the_license_file_is_the_apache_2_text() -> None:
    text = (REPO / "LICENSE").read_bytes()
    assert hashlib.sha256(text).hexdigest() == APACHE_2_SHA256
    assert PYPROJECT["project"]["license"] == "Apache-2.0"


def test_the_license_goes_into_the_sdist_and_the_wheel() -> None:
    # PEP 639: license-files are copied into the sdist and the wheel's .dist-info/licenses/.
    assert "LICENSE" in PYPROJECT["project"]["license-files"]
    assert "LICENSE" in PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]


def test_the_wheel_carries_py_typed() -> None:
    assert (REPO / "validator" / "py.typed").is_file()
    assert "validator" in PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]


def test_the_sdist_carries_the_documentation() -> None:
    include = PYPROJECT["tool"]["hatch"]["build"]["targets"]["sdist"]["include"]
    for name in ("docs", "mkdocs.yml", "README.md", "CHANGELOG.md", "CONTRIBUTING.md"):
        assert name in include, name
        assert (REPO / name).exists(), name


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("hatchling") is None, reason="hatchling is not installed"
)
def test_the_built_wheel_and_sdist_hold_them(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "hatchling", "build", "-d", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    [wheel] = tmp_path.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    assert "validator/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), names
    [sdist] = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        members = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
    assert {"LICENSE", "mkdocs.yml", "docs/index.md", "validator/py.typed"} <= members
