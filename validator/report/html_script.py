"""report.html's script, as text (html_assets.py allows exactly it, by its hash).

It reads the results from the page's one JSON block (html_data.py: compressed, which the
browser's DecompressionStream reads) and renders from them:

- the case table, virtualized: only the rows in view, plus MARGIN rows above and below, are
  in the document; the rest of the table's height is two spacer rows (class `pad`);
- a case's panel, built when it is opened (a link, `#case=<id>`, `j`/`k`) or when a search
  matches at most MAX_MATCHED cases (their panels are listed under the table), and, before
  printing, every panel of a case that did not pass, opened with its calls;
- the filters, the search (case id, tags, check names, messages and the answer, over an
  index lowercased once at load; a longer query filters the previous matches only), sorting
  by any column, the run switch, and the state in the URL fragment
  (`#status=fail&tag=mysql&q=slow&sort=-duration&case=<id>&run=<n>`);
- `j` / `k`: the next / previous case that failed or errored among the listed ones.

It builds elements with `document.createElement`, with the tag names, attributes and style
values of the allow-lists below only, and writes every text as a text node: nothing from
the data is ever parsed as markup. It must stay free of double quotes (it lives in an
attribute) and of the text `url(` (tests/acceptance/test_outputs.py looks for CSS fetches with it).
"""

from __future__ import annotations

SCRIPT = r"""(async () => {
'use strict';
const form = document.getElementById('filters');
const box = document.getElementById('case-box');
const holder = document.getElementById('panels');
const hint = document.getElementById('hint');
const source = document.getElementById('data');
if (!form || !box || !holder || !source) return;
const packed = atob(JSON.parse(source.textContent).deflate);
const bytes = new Uint8Array(packed.length);
for (let i = 0; i < packed.length; i += 1) bytes[i] = packed.charCodeAt(i);
const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
const data = JSON.parse(await new Response(inflated).text());
const FILTERS = ['status', 'tag', 'verdict', 'check', 'change', 'q'];
const KEYS = FILTERS.concat(['sort', 'case', 'run']);
const MARGIN = 6;
const MAX_MATCHED = 20;
const TAGS = new Set(['a', 'b', 'blockquote', 'br', 'code', 'dd', 'del', 'details', 'div',
  'dl', 'dt', 'em', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'li', 'mark', 'ol', 'p', 'pre', 's',
  'section', 'small', 'span', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'th',
  'thead', 'tr', 'ul']);
const ATTRS = new Set(['id', 'title', 'open', 'scope', 'colspan', 'rowspan', 'lang',
  'tabindex', 'data-run', 'data-rep', 'data-status', 'data-verdict', 'data-change',
  'aria-label']);
const STYLE = /^left:[0-9.]+%;width:[0-9.]+%$/;

// A tree of the data as elements: [selector, attributes?, ...children]; texts as text nodes.
const S = Array.isArray(data.strings) ? data.strings : [];
const str = (v) => (typeof v === 'number' ? String(S[v]) : v);
const build = (node) => {
  if (typeof node === 'string' || typeof node === 'number') return document.createTextNode(str(node));
  if (!Array.isArray(node)) return document.createTextNode('');
  const parts = String(str(node[0])).split('.');
  const el = document.createElement(TAGS.has(parts[0]) ? parts[0] : 'span');
  if (parts.length > 1) el.className = parts.slice(1).join(' ');
  let i = 1;
  const attrs = node[1];
  if (attrs && typeof attrs === 'object' && !Array.isArray(attrs)) {
    i = 2;
    for (const k of Object.keys(attrs)) {
      const v = String(attrs[k]);
      if (ATTRS.has(k) || (k === 'href' && v.startsWith('#')) || (k === 'style' && STYLE.test(v))) {
        el.setAttribute(k, v);
      }
    }
  }
  for (; i < node.length; i += 1) el.appendChild(build(node[i]));
  return el;
};
const answerText = (node, inside, out) => {
  if (typeof node === 'string' || typeof node === 'number') { if (inside) out.push(str(node)); return; }
  if (!Array.isArray(node)) return;
  const here = inside || String(str(node[0])).includes('.answer');
  for (const child of node) if (child !== node[0]) answerText(child, here, out);
};
const cases = data.cases.map((c, index) => {
  const words = [c[6]];
  answerText(c[9], false, words);
  return {
    index, id: c[0], status: c[1], verdict: c[2] === null ? '\u2014' : c[2], tag: c[3],
    check: c[4], change: c[5], sv: c[7], rowTree: c[8], panelTree: c[9],
    low: words.join('\n').toLowerCase(), tr: null, panel: null,
  };
});
const byId = new Map(cases.map((r) => [r.id, r]));
const cols = data.cols;

// The table: its head now, its rows as they come into view.
const table = document.createElement('table');
table.id = 'case-table';
const headRow = table.createTHead().insertRow();
const heads = cols.map((col) => {
  const th = document.createElement('th');
  th.scope = 'col';
  th.dataset.key = col[0];
  th.setAttribute('aria-sort', 'none');
  th.textContent = col[1];
  th.tabIndex = 0;
  th.title = 'Sort by ' + col[1];
  headRow.appendChild(th);
  return th;
});
const tbody = table.createTBody();
box.appendChild(table);
box.hidden = false;
const count = document.getElementById('shown');
let state = {};
let view = [];
let rowHeight = 0;
let drawn = '';

const rowOf = (r) => {
  if (!r.tr) r.tr = build(r.rowTree);
  r.tr.classList.toggle('on', r.id === state.case);
  return r.tr;
};
const pad = (height) => {
  const tr = document.createElement('tr');
  tr.className = 'pad';
  tr.setAttribute('aria-hidden', 'true');
  const td = document.createElement('td');
  td.colSpan = heads.length;
  td.style.height = height + 'px';
  tr.appendChild(td);
  return tr;
};
const draw = (force) => {
  const h = rowHeight || 30;
  const first = Math.max(0, Math.floor(box.scrollTop / h) - MARGIN);
  const end = Math.min(view.length, first + Math.ceil((box.clientHeight || 700) / h) + 2 * MARGIN);
  const key = first + ':' + end;
  if (!force && key === drawn) return;
  drawn = key;
  const frag = document.createDocumentFragment();
  if (first > 0) frag.appendChild(pad(first * h));
  for (let i = first; i < end; i += 1) frag.appendChild(rowOf(view[i]));
  if (end < view.length) frag.appendChild(pad((view.length - end) * h));
  tbody.replaceChildren(frag);
  if (!rowHeight && end > first) {
    const tr = tbody.querySelector('tr:not(.pad)');
    const measured = tr ? tr.getBoundingClientRect().height : 0;
    if (measured > 0) { rowHeight = measured; if (measured !== h) draw(true); }
  }
};
box.addEventListener('scroll', () => draw(false), { passive: true });
window.addEventListener('resize', () => draw(false));
const reveal = (r) => {
  const at = view.indexOf(r);
  if (at < 0) return;
  const h = rowHeight || 30;
  const head = table.tHead.getBoundingClientRect().height;
  if (at * h < box.scrollTop || (at + 1) * h + head > box.scrollTop + box.clientHeight) {
    box.scrollTop = Math.max(0, at * h - box.clientHeight / 3);
  }
  draw(true);
};

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

// Options: tags, verdicts and failed checks as the cases have them, with their counts.
const fill = (name, valuesOf) => {
  const select = form.elements[name];
  if (!select) return;
  const counts = new Map();
  for (const r of cases) for (const v of valuesOf(r)) counts.set(v, (counts.get(v) || 0) + 1);
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

const others = (r) =>
  (!state.status || r.status === state.status) &&
  (!state.tag || r.tag.includes(state.tag)) &&
  (!state.verdict || r.verdict === state.verdict) &&
  (!state.check || r.check.includes(state.check)) &&
  (!state.change || r.change === state.change);

// Sorting: a number, a text, or null (unknown: last in either direction); ties keep the
// report's order.
const collator = new Intl.Collator();
const compare = (a, b, col, desc) => {
  const x = a.sv[col], y = b.sv[col];
  if (x === null || y === null) return x === y ? a.index - b.index : (x === null ? 1 : -1);
  let c = typeof x === 'number' && typeof y === 'number' ? x - y : collator.compare(String(x), String(y));
  if (desc) c = -c;
  return c || a.index - b.index;
};
const sortView = () => {
  const desc = state.sort.startsWith('-');
  const key = desc ? state.sort.slice(1) : state.sort;
  const col = heads.findIndex((th) => th.dataset.key === key);
  for (const th of heads) th.setAttribute('aria-sort', 'none');
  if (col < 0) return;
  heads[col].setAttribute('aria-sort', desc ? 'descending' : 'ascending');
  view.sort((a, b) => compare(a, b, col, desc));
};

// Panels: the opened case's, and the search's matches when they are few.
const pickRun = (d, run) => {
  const sections = Array.from(d.querySelectorAll('section.run'));
  if (!sections.length) return;
  const want = sections.some((s) => s.dataset.run === run) ? run : d.dataset.rep;
  for (const s of sections) s.hidden = s.dataset.run !== want;
  for (const a of d.querySelectorAll('a.cell')) a.classList.toggle('on', a.dataset.run === want);
};
const panelOf = (r) => {
  if (!r.panel) { r.panel = build(r.panelTree); pickRun(r.panel, ''); }
  return r.panel;
};
const showPanels = () => {
  const want = state.q && view.length <= MAX_MATCHED ? view.slice() : [];
  const current = byId.get(state.case);
  if (current && !want.includes(current)) want.unshift(current);
  holder.replaceChildren(...want.map(panelOf));
  if (hint) hint.hidden = want.length > 0;
};

let lastQ = '';
let lastOthers = null;
const filter = (resort) => {
  const q = state.q.toLowerCase();
  const key = FILTERS.filter((k) => k !== 'q').map((k) => state[k]).join('\u0000');
  const narrower = !resort && key === lastOthers && lastQ !== '' && q.startsWith(lastQ);
  const pool = narrower ? view : cases.filter(others);
  view = q ? pool.filter((r) => r.low.includes(q)) : pool.slice();
  if (!narrower) sortView();
  lastQ = q;
  lastOthers = key;
  count.textContent = view.length === cases.length
    ? (cases.length === 1 ? 'The one case is shown.' : 'All ' + cases.length + ' cases are shown.')
    : view.length + ' of ' + cases.length + ' cases match the filters.';
  draw(true);
  showPanels();
};

const openCase = (scroll) => {
  showPanels();
  const r = byId.get(state.case);
  for (const d of holder.querySelectorAll('details.case.focus')) d.classList.remove('focus');
  for (const tr of tbody.querySelectorAll('tr.on')) tr.classList.remove('on');
  if (!r) return;
  const d = panelOf(r);
  d.hidden = false;
  d.open = true;
  d.classList.add('focus');
  if (r.tr) r.tr.classList.add('on');
  pickRun(d, state.run);
  if (scroll) d.scrollIntoView({ block: 'start' });
};

const apply = (scroll) => {
  clearTimeout(pending);
  for (const name of FILTERS) {
    const el = form.elements[name];
    if (!el) continue;
    if (el.tagName === 'SELECT' && state[name] &&
        !Array.from(el.options).some((o) => o.value === state[name])) {
      el.add(new Option(state[name] + ' (0)', state[name]));
    }
    el.value = state[name];
  }
  filter(true);
  openCase(scroll);
};

form.addEventListener('submit', (e) => e.preventDefault());
// 'input' as one types; 'change' too, which is all some ways of picking an option send.
// The search box writes the URL once typing pauses (each write costs the browser a
// navigation entry's update).
let pending = 0;
const changed = (e) => {
  const el = e.target;
  if (!FILTERS.includes(el.name) || state[el.name] === el.value) return;
  state[el.name] = el.value;
  clearTimeout(pending);
  if (el.name === 'q') pending = setTimeout(() => write(false), 250);
  else write(false);
  filter(el.name !== 'q');
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
  filter(true);
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
holder.addEventListener('toggle', (e) => {
  const d = e.target;
  if (d.matches && d.matches('details.case') && !d.open && state.case === d.id.slice(5)) {
    state.case = '';
    state.run = '';
    d.classList.remove('focus');
    write(false);
  }
}, true);
// j / k: the next / previous listed case that failed or errored, opened.
document.addEventListener('keydown', (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || (e.key !== 'j' && e.key !== 'k')) return;
  const t = e.target;
  if (t && t.closest && t.closest('input, select, textarea, button, [contenteditable]')) return;
  const failing = view.filter((r) => r.status === 'fail' || r.status === 'error');
  if (!failing.length) return;
  e.preventDefault();
  const at = failing.findIndex((r) => r.id === state.case);
  const step = e.key === 'j' ? 1 : -1;
  const next = at < 0 ? 0 : Math.min(Math.max(at + step, 0), failing.length - 1);
  state.case = failing[next].id;
  state.run = '';
  write(false);
  reveal(failing[next]);
  openCase(true);
});
// Printed: every case that did not pass, expanded (its checks, answer and arguments).
window.addEventListener('beforeprint', () => {
  const failing = cases.filter((r) => r.status !== 'pass').map(panelOf);
  holder.replaceChildren(...failing);
  for (const d of failing) {
    d.hidden = false;
    d.open = true;
    for (const inner of d.querySelectorAll('details')) inner.open = true;
    for (const s of d.querySelectorAll('section.run')) s.hidden = false;
  }
  if (hint) hint.hidden = true;
});
window.addEventListener('afterprint', () => openCase(false));
// A plain anchor (a skip link) moves focus only: the filters stay.
const reload = () => {
  if (location.hash.length > 1 && !location.hash.includes('=')) return;
  read();
  apply(true);
};
window.addEventListener('popstate', reload);
window.addEventListener('hashchange', reload);

form.hidden = false;
read();
apply(Boolean(state.case));
document.documentElement.dataset.ready = 'yes';
performance.mark('report-ready');
})()"""
