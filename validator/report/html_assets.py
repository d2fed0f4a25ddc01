"""report.html's stylesheet and script, as text, and the Content Security Policy that allows
exactly them.

The script (html_script.py) renders the case table and the panels from the page's JSON
block; without it the page still shows the summary, the failures by check and every case
that did not pass with its failed checks (a <noscript> part).

Why the script is a `<body onload>` handler and not a `<script>` element: the page's one
<script> element is its data (`type="application/json"`, never run), so no reader of the
file can mistake trace text for code. A handler runs only because the policy lists its exact
SHA-256 ('unsafe-hashes' is what lets a hash name an event handler); any other inline
handler or script, however it got into the page, is refused, and nothing may be fetched. The
script never evaluates text ('unsafe-eval' is not granted), and it writes trace text into
the page only as text nodes.
"""

from __future__ import annotations

import base64
import hashlib

from .html_script import SCRIPT

STYLE = """
:root { color-scheme: light; --fg: #1f2328; --muted: #59636e; --line: #d0d7de; --soft: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --error: #9a6700; --grey: #6e7781; --accent: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  color: var(--fg); background: #fff; margin: 0; }
main { max-width: 1240px; margin: 0 auto; padding: 20px 24px 60px; }
h1 { font-size: 1.6em; margin: 0 0 2px; }
h2 { font-size: 1.25em; border-bottom: 1px solid var(--line); padding-bottom: .2em;
  margin-top: 1.6em; clear: both; }
h3 { font-size: 1em; margin: 14px 0 4px; }
h4 { font-size: .95em; margin: 10px 0 2px; color: var(--muted); }
p.meta { color: var(--muted); margin: 0 0 12px; }
ul.tiles { list-style: none; padding: 0; margin: 12px 0; display: flex; flex-wrap: wrap; gap: 10px; }
ul.tiles li { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px;
  min-width: 8.5em; border-top: 4px solid var(--grey); }
ul.tiles b { display: block; font-size: 1.6em; line-height: 1.2; }
ul.tiles .pass { border-top-color: var(--pass); } ul.tiles .fail { border-top-color: var(--fail); }
ul.tiles .error { border-top-color: var(--error); } ul.tiles .rate { border-top-color: var(--accent); }
table { border-collapse: collapse; margin: 10px 0; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
#case-table td[data-v] { text-align: right; font-variant-numeric: tabular-nums; }
#case-table td.t { text-align: left; }
figure.chart { float: right; margin: 0 0 12px 24px; max-width: 100%; }
figure.chart svg { max-width: 100%; height: auto; }
figure.chart text { font: 13px system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
  fill: var(--fg); }
figure.chart text.heading { font-weight: 600; }
code { background: var(--soft); padding: 0 4px; border-radius: 4px; font-size: 90%; }
.st { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px;
  font-weight: 600; color: #fff; background: var(--grey); white-space: nowrap; }
.st.pass { background: var(--pass); } .st.fail { background: var(--fail); }
.st.error { background: var(--error); }
.sev { font-size: 11px; border: 1px solid currentColor; border-radius: 4px; padding: 0 4px; }
#filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: flex-end; margin: 10px 0;
  padding: 10px 12px; background: var(--soft); border: 1px solid var(--line); border-radius: 8px; }
#filters[hidden] { display: none; }
#filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
#filters select, #filters input, #filters button { font: inherit; font-size: 13px; padding: 3px 6px;
  border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--fg); }
#filters input[type=search] { min-width: 14em; }
#shown { color: var(--muted); margin: 4px 0; }
#case-table { width: 100%; }
#case-table th { position: sticky; top: 0; z-index: 1; white-space: nowrap; }
#case-table th[tabindex] { cursor: pointer; user-select: none; }
#case-table th[tabindex]:hover { background: #eaeef2; }
#case-table th[aria-sort=ascending]::after { content: " \\25b2"; font-size: 10px; }
#case-table th[aria-sort=descending]::after { content: " \\25bc"; font-size: 10px; }
#case-table tbody tr:hover td { background: #f6f8fa; }
#case-table tr[data-status=fail] td:first-child { box-shadow: inset 3px 0 var(--fail); }
#case-table tr[data-status=error] td:first-child { box-shadow: inset 3px 0 var(--error); }
#case-table tr[data-status=not_run] td:first-child { box-shadow: inset 3px 0 var(--grey); }
#case-table td:first-child a { font-weight: 600; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
details.case { border: 1px solid var(--line); border-radius: 8px; margin: 10px 0;
  content-visibility: auto; contain-intrinsic-size: auto 3em; }
details.case > summary { padding: 7px 12px; cursor: pointer; background: var(--soft);
  border-radius: 8px; }
details.case[open] > summary { border-bottom: 1px solid var(--line); border-radius: 8px 8px 0 0; }
details.case.focus, details.case:target { box-shadow: 0 0 0 2px var(--accent); }
details.case .why { color: var(--muted); }
p.calls, p.cks, p.kw { margin: 2px 0; overflow-wrap: anywhere; }
.ck { display: inline-block; margin: 0 4px 3px 0; padding: 0 7px; border-radius: 10px;
  font-size: 12px; border: 1px solid var(--line); }
.ck.pass { border-color: #8ddb9b; background: #eefbf0; } .ck.skipped { color: var(--muted); }
.ck.fail { border-color: var(--fail); background: #ffebe9; }
section.run p.meta { margin: 0 0 4px; }
.body { padding: 2px 16px 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 1px 14px; margin: 8px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
dl.facts ul { margin: 0; padding-left: 1.2em; }
ul.checks { list-style: none; padding: 0; margin: 2px 0; }
ul.checks > li { padding: 4px 0; border-bottom: 1px solid #eaeef2; overflow-wrap: anywhere; }
ul.checks > li.skipped { color: var(--muted); }
ul.clauses { list-style: none; margin: 2px 0 0 1.5em; padding: 0; font-size: 13px; }
dl.vals { display: grid; grid-template-columns: max-content 1fr; gap: 1px 10px;
  margin: 3px 0 0 1.5em; font-size: 13px; }
dl.vals dt { color: var(--muted); } dl.vals dd { margin: 0; }
mark { border-radius: 3px; padding: 0 3px; background: #eaeef2; color: inherit; }
mark.hit { background: #d2f4d9; color: #0f5323; }
mark.miss { background: #ffe2de; color: #82071e; text-decoration: line-through; }
mark.bad { background: #ffcfc9; color: #82071e; box-shadow: 0 0 0 1px var(--fail); }
.answer { white-space: pre-wrap; overflow-wrap: anywhere; background: #fffdf5;
  border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; max-height: 30em;
  overflow: auto; }
.answer mark.hit { background: #fff0a8; color: inherit; box-shadow: 0 0 0 1px #d4a72c; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); margin: 2px 0 8px;
  padding: 6px 8px; border-radius: 4px; max-height: 16em; overflow: auto; font-size: 12px; }
.none, .note, .clip { color: var(--muted); font-style: italic; }
.tl .axis, ol.lane > li:not(.x):not(.more), ol.lane summary { display: grid;
  grid-template-columns: minmax(9em, 15em) 1fr 6.5em; gap: 10px; align-items: center; }
ol.lane summary { cursor: pointer; list-style: none; }
ol.lane summary::-webkit-details-marker { display: none; }
ol.lane summary .nm::before { content: "\\25b8  "; color: var(--muted); }
ol.lane details[open] > summary .nm::before { content: "\\25be  "; }
.tl .nm { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: ui-monospace,
  SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
ol.lane { list-style: none; padding: 0; margin: 0 0 6px; }
ol.lane > li { padding: 2px 0; }
.tk { position: relative; height: 12px; background: #eaeef2; border-radius: 3px; }
.tk > span { position: absolute; top: 0; bottom: 0; min-width: 2px; border-radius: 3px;
  background: var(--accent); }
.err .tk > span { background: var(--fail); } .err .nm { color: var(--fail); }
.llm .tk > span { background: #8250df; }
.tk > .unknown { left: 0; width: 0; background: none; border-left: 2px dotted var(--grey); }
.ms { text-align: right; font-variant-numeric: tabular-nums; color: var(--muted); font-size: 12px; }
.scale { display: flex; justify-content: space-between; font-size: 11px; color: var(--muted); }
.tok { grid-column: 2 / 4; font-size: 12px; color: var(--muted); }
details.msgs { grid-column: 1 / 4; margin: 2px 0 4px; }
details.msgs > summary, details.src > summary { cursor: pointer; color: var(--muted);
  font-size: 12px; }
ol.msgs { list-style: none; padding: 0; margin: 2px 0; }
li.msg { border-left: 3px solid var(--line); padding: 0 0 0 8px; margin: 4px 0; }
li.msg.user { border-left-color: var(--accent); } li.msg.assistant { border-left-color: #8250df; }
li.msg.tool { border-left-color: var(--pass); }
li.msg > b { text-transform: uppercase; font-size: 11px; letter-spacing: .04em; }
li.msg > small { color: var(--muted); }
.md { overflow-wrap: anywhere; background: #fffdf5; border: 1px solid var(--line);
  border-radius: 6px; padding: 4px 12px; max-height: 30em; overflow: auto; }
.md p.h { font-weight: 600; margin: 8px 0 2px; }
.md pre { white-space: pre-wrap; overflow: visible; } /* the answer box scrolls, not its parts */
.io { margin: 2px 0 6px 1.2em; } .io p { margin: 4px 0 0; font-size: 12px; color: var(--muted); }
ol.grid { list-style: none; padding: 0; margin: 4px 0;
  display: grid; grid-template-columns: repeat(auto-fill, minmax(12em, 1fr)); gap: 6px; }
a.cell { display: block; padding: 3px 8px; border-radius: 4px; border-left: 4px solid var(--grey);
  background: var(--soft); color: inherit; }
a.cell.pass { border-left-color: var(--pass); } a.cell.fail { border-left-color: var(--fail); }
a.cell.error { border-left-color: var(--error); }
a.cell.on { box-shadow: 0 0 0 2px var(--accent); background: #ddf4ff; }
a.cell small { display: block; color: var(--muted); overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
section.run { border-top: 1px dashed var(--line); margin-top: 10px; }
section.run > h3 { margin-top: 8px; }
p.skip { margin: 0; } p.skip a { position: absolute; left: -9999px; }
p.skip a:focus { position: static; }
figure.chart { margin: 10px 0; } figure.chart svg { max-width: 100%; height: auto; }
.scroll { max-width: 100%; }
#case-box { max-height: 70vh; overflow: auto; border: 1px solid var(--line); margin: 8px 0; }
#case-box[hidden] { display: none; }
#case-box #case-table { margin: 0; border-style: hidden; }
#case-box #case-table td { white-space: nowrap; }
#case-table tr.pad td { padding: 0; border: 0; }
#case-table tr.on td { background: #ddf4ff; }
#panels:not(:empty) { min-height: 85vh; }
.hist { letter-spacing: 2px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.hm.pass { color: var(--pass); } .hm.fail { color: var(--fail); } .hm.error { color: var(--error); }
.hm.not_run, .hm.absent { color: var(--grey); }
#trend td.trend { color: var(--accent); letter-spacing: -1px; }
@media (max-width: 700px) {
  main { padding: 12px 10px 40px; }
  .scroll { overflow-x: auto; }
  table { display: block; max-width: 100%; overflow-x: auto; }
  .scroll table { display: table; }
  #case-table th { position: static; }
  dl.facts, dl.vals { grid-template-columns: 1fr; }
  .tl .axis, ol.lane > li:not(.x):not(.more), ol.lane summary {
    grid-template-columns: minmax(5em, 9em) 1fr 4.5em; gap: 6px; }
  .tok { grid-column: 1 / 4; }
  #filters input[type=search] { min-width: 0; width: 100%; }
  .body { padding: 2px 8px 10px; }
}
@media print {
  #filters, #shown, p.skip, button, #case-box, #hint { display: none !important; }
  #panels:not(:empty) { min-height: 0; }
  details.case { content-visibility: visible; }
  .answer, pre { max-height: none; overflow: visible; }
  .scroll, table { overflow: visible; }
  #case-table th { position: static; }
}
"""


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


SCRIPT_HASH = _sha256(SCRIPT)

# Inline styles, and the one script above by its hash; nothing may be fetched, framed,
# submitted or used as a base for relative URLs.
CSP = (
    "default-src 'none'; "
    f"script-src 'unsafe-hashes' 'sha256-{SCRIPT_HASH}'; "
    "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
)
