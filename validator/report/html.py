"""report.html: one self-contained page, for people who open reports in a browser.

The body is the Markdown report rendered by markdown-it-py (tables on, raw HTML off, so text
from traces stays text), preceded by an inline SVG bar chart of case statuses and verdicts.
Nothing is fetched: no external stylesheet, script, font or image, and a Content Security
Policy that forbids any fetch, so the page opens the same offline, from a CI artifact or a
mail attachment.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape

from .document import Report
from .markdown import render as render_markdown

MAX_VERDICT_BARS = 20

_STATUS_BARS = (
    ("passed", "pass", "#1a7f37"),
    ("failed", "fail", "#cf222e"),
    ("not_run", "not run", "#8c959f"),
    ("errored", "error", "#bf8700"),
)
_VERDICT_COLOUR = "#0969da"

STYLE = """
:root { color-scheme: light; }
body { font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #1f2328;
       background: #fff; margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 24px; }
h1 { font-size: 1.7em; border-bottom: 1px solid #d0d7de; padding-bottom: .3em; }
h2 { font-size: 1.3em; border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 1.6em; }
h3 { font-size: 1.1em; }
table { border-collapse: collapse; margin: 12px 0; display: block; overflow-x: auto; }
th, td { border: 1px solid #d0d7de; padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
tr:nth-child(even) td { background: #fbfbfc; }
code { background: #f6f8fa; padding: 1px 4px; border-radius: 4px; }
figure.chart { margin: 16px 0; }
figure.chart svg { max-width: 100%; height: auto; }
figure.chart text { font: 13px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
                    fill: #1f2328; }
figure.chart text.heading { font-weight: 600; }
"""

# Only inline styles; no fetch of any kind (scripts, images, fonts, frames, connections).
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def chart(report: Report) -> str:
    """An SVG bar chart: cases by status, then evaluated traces by verdict."""
    summary = report.summary
    sections: list[tuple[str, list[tuple[str, int, str]]]] = [
        (
            "Cases by status",
            [(label, int(summary[key]), colour) for key, label, colour in _STATUS_BARS],
        )
    ]
    verdicts = sorted(summary["verdict_distribution"].items(), key=lambda kv: (-kv[1], kv[0]))
    bars = [(str(name), int(count), _VERDICT_COLOUR) for name, count in verdicts]
    if len(bars) > MAX_VERDICT_BARS:
        rest = bars[MAX_VERDICT_BARS - 1 :]
        bars = [
            *bars[: MAX_VERDICT_BARS - 1],
            (f"{len(rest)} others", sum(b[1] for b in rest), "#8c959f"),
        ]
    sections.append(("Evaluated traces by verdict", bars or [("none", 0, _VERDICT_COLOUR)]))

    label_w, bar_w, row_h, width = 200, 300, 24, 580
    parts: list[str] = []
    y = 0
    for title, rows in sections:
        y += 22
        parts.append(f'<text class="heading" x="0" y="{y}">{escape(title)}</text>')
        y += 8
        top = max((count for _, count, _ in rows), default=0) or 1
        for label, count, colour in rows:
            length = round(bar_w * count / top, 1)
            mid = y + row_h / 2 + 4
            parts.append(
                f"<g><title>{escape(label)}: {count}</title>"
                f'<text x="0" y="{mid}">{escape(_short(label))}</text>'
                f'<rect x="{label_w}" y="{y + 3}" width="{length}" height="{row_h - 6}"'
                f' fill="{colour}" rx="2"/>'
                f'<text x="{label_w + length + 6}" y="{mid}">{count}</text></g>'
            )
            y += row_h
        y += 8
    height = y + 4
    description = (
        f"{summary['passed']} passed, {summary['failed']} failed, {summary['not_run']} not run,"
        f" {summary['errored']} errors; verdicts: "
        + (", ".join(f"{k} {v}" for k, v in verdicts) or "none")
    )
    return (
        f'<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" role="img"'
        f' width="{width}" height="{height}" viewBox="0 0 {width} {height}"'
        f' aria-label="{escape(description)}">'
        f"<title>{escape(description)}</title>{''.join(parts)}</svg></figure>"
    )


def chunks(report: Report) -> Iterator[str]:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
    md.disable("image")
    body = md.render(render_markdown(report))
    figure = chart(report)
    marker = "<h2>Summary</h2>"
    body = body.replace(marker, figure + "\n" + marker, 1) if marker in body else figure + body
    title = "Trace validation report"
    yield (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
