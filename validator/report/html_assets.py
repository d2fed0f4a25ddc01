"""report.html's stylesheet and script, as text, and the Content Security Policy that allows
exactly them.

The page is complete without the script: every case row, every panel and every failure is
in the HTML. The script only adds the filter bar, sorting, the run switch and the URL
fragment state (`#status=fail&tag=mysql&q=slow&sort=-duration&case=<id>&run=<n>`).

Why the script is a `<body onload>` handler and not a `<script>` element: the page was
promised (and tests/acceptance/test_outputs.py checks) to hold no <script> element at all, so that no
reader of the file can mistake trace text for code. A handler runs only because the policy
lists its exact SHA-256 ('unsafe-hashes' is what lets a hash name an event handler); any
other inline handler or script, however it got into the page, is refused, and nothing may be
fetched. The script never evaluates text ('unsafe-eval' is not granted), and it writes
trace text into the page only as text nodes (`textContent`, `new Option`).
"""

from __future__ import annotations

import base64
import hashlib

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
h4 { font-size: 1em; margin: 14px 0 4px; }
h5 { font-size: .95em; margin: 10px 0 2px; color: var(--muted); }
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
section.run > h4 { margin-top: 8px; }
p.skip { margin: 0; } p.skip a { position: absolute; left: -9999px; }
p.skip a:focus { position: static; }
figure.chart { margin: 10px 0; } figure.chart svg { max-width: 100%; height: auto; }
.scroll { max-width: 100%; }
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
  #filters, #shown, p.skip, button { display: none !important; }
  details.case { content-visibility: visible; }
  .answer, pre { max-height: none; overflow: visible; }
  .scroll, table { overflow: visible; }
  #case-table th { position: static; }
}
"""

# One strict-mode function: it reads the rows' data-* attributes once, then filters, sorts
# and opens panels in place. It must stay free of the text "url(" (a test of
# tests/acceptance/test_outputs.py looks for CSS fetches with it) and of double quotes (it lives in an
# attribute; they would be escaped, and the page would be harder to read).
SCRIPT = r"""(() => {
'use strict';
const table = document.getElementById('case-table');
const form = document.getElementById('filters');
if (!table || !form) return;
const FILTERS = ['status', 'tag', 'verdict', 'check', 'change', 'q'];
const KEYS = FILTERS.concat(['sort', 'case', 'run']);
const tbody = table.tBodies[0];
const heads = Array.from(table.tHead.rows[0].cells);
const count = document.getElementById('shown');
const panels = new Map();
// A panel's id is 'case=' and the case id; a row's case id is its first cell's text.
for (const d of document.querySelectorAll('details.case')) panels.set(d.id.slice(5), d);
const list = (text) => {
  try { const v = JSON.parse(text || '[]'); return Array.isArray(v) ? v : []; }
  catch (e) { return []; }
};
const rows = Array.from(tbody.rows, (tr, index) => {
  const id = tr.cells[0].textContent;
  return {
    tr, index, id, low: id.toLowerCase(), panel: panels.get(id),
    status: tr.dataset.status, verdict: tr.dataset.verdict, change: tr.dataset.change || '',
    tag: list(tr.dataset.tags), check: list(tr.dataset.checks),
  };
});
let state = {};

const read = () => {
  const p = new URLSearchParams(location.hash.slice(1));
  state = {};
  for (const k of KEYS) state[k] = p.get(k) || '';
};
const write = (push) => {
  const p = new URLSearchParams();
  for (const k of KEYS) if (state[k]) p.set(k, state[k]);
  const hash = p.toString();
  const target = hash ? '#' + hash : location.href.split('#')[0];
  try { history[push ? 'pushState' : 'replaceState'](null, '', target); }
  catch (e) { location.replace('#' + hash); }
};

// Options: tags, verdicts and failed checks as the rows have them, with their counts.
const fill = (name, valuesOf) => {
  const select = form.elements[name];
  if (!select) return;
  const counts = new Map();
  for (const r of rows) for (const v of valuesOf(r)) counts.set(v, (counts.get(v) || 0) + 1);
  const known = new Set(Array.from(select.options, (o) => o.value));
  for (const o of select.options) if (counts.has(o.value)) o.text += ' (' + counts.get(o.value) + ')';
  for (const v of Array.from(counts.keys()).sort()) {
    if (!known.has(v)) select.add(new Option(v + ' (' + counts.get(v) + ')', v));
  }
};
fill('status', (r) => [r.status]);
fill('tag', (r) => r.tag);
fill('verdict', (r) => [r.verdict]);
fill('check', (r) => r.check);
fill('change', (r) => (r.change ? [r.change] : []));

const matches = (r) =>
  (!state.status || r.status === state.status) &&
  (!state.tag || r.tag.includes(state.tag)) &&
  (!state.verdict || r.verdict === state.verdict) &&
  (!state.check || r.check.includes(state.check)) &&
  (!state.change || r.change === state.change) &&
  (!state.q || r.low.includes(state.q.toLowerCase()));

const filter = () => {
  let shown = 0;
  for (const r of rows) {
    const ok = matches(r);
    r.tr.hidden = !ok;
    if (r.panel) r.panel.hidden = !ok && state.case !== r.id;
    if (ok) shown += 1;
  }
  count.textContent = shown === rows.length
    ? 'All ' + rows.length + ' cases are shown.'
    : shown + ' of ' + rows.length + ' cases match the filters.';
};

// Sorting: a cell's data-v is its number (empty: unknown), else its text; unknown values
// ('—' or empty) go last in either direction; ties keep the report's order.
const cellValue = (r, col) => {
  const td = r.tr.cells[col];
  if (td.dataset.v !== undefined) return td.dataset.v === '' ? null : Number(td.dataset.v);
  const text = td.textContent.trim();
  return text === '' || text === '\u2014' ? null : text;
};
const compare = (a, b, desc) => {
  if (a[0] === null || b[0] === null) {
    return a[0] === b[0] ? a[1].index - b[1].index : (a[0] === null ? 1 : -1);
  }
  let c = typeof a[0] === 'number' && typeof b[0] === 'number'
    ? a[0] - b[0] : String(a[0]).localeCompare(String(b[0]));
  if (desc) c = -c;
  return c || a[1].index - b[1].index;
};
const sortRows = () => {
  const desc = state.sort.startsWith('-');
  const key = desc ? state.sort.slice(1) : state.sort;
  const col = heads.findIndex((th) => th.dataset.key === key);
  for (const th of heads) if (th.dataset.key) th.setAttribute('aria-sort', 'none');
  let order = rows;
  if (col >= 0) {
    heads[col].setAttribute('aria-sort', desc ? 'descending' : 'ascending');
    order = rows.map((r) => [cellValue(r, col), r]).sort((a, b) => compare(a, b, desc)).map((p) => p[1]);
  }
  const fragment = document.createDocumentFragment();
  for (const r of order) fragment.appendChild(r.tr);
  tbody.appendChild(fragment);
};

// Panels and runs.
const pickRun = (d, run) => {
  const sections = Array.from(d.querySelectorAll('section.run'));
  if (!sections.length) return null;
  const want = sections.some((s) => s.dataset.run === run) ? run : d.dataset.rep;
  let chosen = null;
  for (const s of sections) {
    s.hidden = s.dataset.run !== want;
    if (!s.hidden) chosen = s;
  }
  for (const a of d.querySelectorAll('a.cell')) a.classList.toggle('on', a.dataset.run === want);
  return chosen;
};
const openCase = (scroll) => {
  for (const d of document.querySelectorAll('details.case.focus')) d.classList.remove('focus');
  const d = panels.get(state.case);
  if (!d) return;
  d.hidden = false;
  d.open = true;
  d.classList.add('focus');
  pickRun(d, state.run);
  if (scroll) d.scrollIntoView({ block: 'start' });
};

const apply = (scroll) => {
  for (const name of FILTERS) {
    const el = form.elements[name];
    if (!el) continue;
    if (el.tagName === 'SELECT' && state[name] &&
        !Array.from(el.options).some((o) => o.value === state[name])) {
      el.add(new Option(state[name] + ' (0)', state[name]));
    }
    el.value = state[name];
  }
  filter();
  sortRows();
  openCase(scroll);
};

form.addEventListener('submit', (e) => e.preventDefault());
// 'input' as one types; 'change' too, which is all some ways of picking an option send.
const changed = (e) => {
  const el = e.target;
  if (!FILTERS.includes(el.name) || state[el.name] === el.value) return;
  state[el.name] = el.value;
  write(false);
  filter();
};
form.addEventListener('input', changed);
form.addEventListener('change', changed);
form.addEventListener('click', (e) => {
  if (!e.target.matches('button.clear')) return;
  for (const k of FILTERS) state[k] = '';
  write(false);
  apply(false);
});
const sortBy = (th) => {
  const key = th.dataset.key;
  state.sort = state.sort === key ? '-' + key : key;
  write(false);
  sortRows();
};
table.tHead.addEventListener('click', (e) => {
  const th = e.target.closest('th[data-key]');
  if (th) sortBy(th);
});
table.tHead.addEventListener('keydown', (e) => {
  const th = e.target.closest('th[data-key]');
  if (th && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); sortBy(th); }
});
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[href^=\u0027#case=\u0027]');
  if (!a) return;
  const p = new URLSearchParams(a.getAttribute('href').slice(1));
  e.preventDefault();
  state.case = p.get('case') || '';
  state.run = p.get('run') || '';
  const cell = a.classList.contains('cell');
  write(!cell);
  openCase(!cell);
});
document.addEventListener('toggle', (e) => {
  const d = e.target;
  if (d.matches && d.matches('details.case') && !d.open && state.case === d.id.slice(5)) {
    state.case = '';
    state.run = '';
    d.classList.remove('focus');
    write(false);
  }
}, true);
// Printed: every case that did not pass, expanded (its checks, answer and arguments).
window.addEventListener('beforeprint', () => {
  for (const r of rows) {
    if (r.status === 'pass' || !r.panel) continue;
    r.panel.hidden = false;
    r.panel.open = true;
    for (const d of r.panel.querySelectorAll('details')) d.open = true;
  }
});
// A plain anchor (the skip link's #cases) moves focus only: the filters stay.
const reload = () => {
  if (location.hash.length > 1 && !location.hash.includes('=')) return;
  read();
  apply(true);
};
window.addEventListener('popstate', reload);
window.addEventListener('hashchange', reload);

for (const th of heads) {
  if (th.dataset.key) { th.tabIndex = 0; th.title = 'Sort by ' + th.textContent; }
}
for (const d of panels.values()) pickRun(d, '');
form.hidden = false;
read();
apply(Boolean(state.case));
document.documentElement.dataset.ready = 'yes';
})()"""


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
