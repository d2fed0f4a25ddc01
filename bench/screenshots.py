"""The pictures of docs/REPORT-HTML.md: the first screen of report.html, desktop and phone.

    python bench/screenshots.py                 # needs TRACE_DATA for the tau2-bench example

Three pages: the shipped example (cases/ and fixtures/ at the repository's root), the
tau2-bench example (its traces in $TRACE_DATA/tau2-bench) and a synthetic 3,000-case report
(bench/page.py). Each is opened in headless Chromium at 1400x1000 and at 390x844 (a phone),
and its first screen is saved as docs/images/report-<page>-<desktop|phone>.png, then
quantized to 64 colours (Pillow, when installed) so that each stays under 200 KB.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import page as bench_page  # noqa: E402

IMAGES = REPO / "docs" / "images"
SIZES = {"desktop": (1400, 1000), "phone": (390, 844)}
LIMIT = 200_000


def _run(folder: Path, out: Path, *more: str) -> Path:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    command = [sys.executable, "-m", "validator", "run", "--format", "html", "--out", str(out)]
    done = subprocess.run(
        [*command, *more, "-q"], cwd=folder, env=env, capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"validator failed in {folder}:\n{done.stderr}")
    return out / "report.html"


def _shrink(png: Path) -> None:
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(png) as image:
        image.convert("RGB").quantize(colors=64).save(png, optimize=True)


def pages(work: Path) -> dict[str, Path]:
    found = {"example": _run(REPO, work / "example")}
    data = os.environ.get("TRACE_DATA")
    if data and (Path(data) / "tau2-bench").is_dir():
        found["tau2-bench"] = _run(
            REPO / "examples" / "tau2-bench",
            work / "tau2",
            "--fixtures",
            str(Path(data) / "tau2-bench"),
        )
    else:
        print("skipped the tau2-bench page: set TRACE_DATA to the shared trace data folder")
    found["3000-cases"] = bench_page.write_page(
        bench_page.synthetic_report(3000), work / "report-3000.html"
    )
    return found


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="screenshots-") as tmp:
        for name, html in pages(Path(tmp)).items():
            for form, (width, height) in SIZES.items():
                driver = bench_page.browser(width, height)
                try:
                    driver.set_window_size(width, height)
                    bench_page.open_page(driver, html)
                    target = IMAGES / f"report-{name}-{form}.png"
                    driver.save_screenshot(str(target))
                finally:
                    driver.quit()
                _shrink(target)
                size = target.stat().st_size
                print(f"{target.relative_to(REPO)}: {size / 1000:.0f} KB")
                if size > LIMIT:
                    print(f"  over {LIMIT // 1000} KB")


if __name__ == "__main__":
    main()
