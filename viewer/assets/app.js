// The agenttrace viewer: renders the runs Go computed (viewer/model.go).
// Each run is a view model embedded in the page as JSON, or fetched from
// agenttrace serve (a live run, a dropped file it converted): records as
// their artifact lines plus t0/t1, the token report (its totals the
// trailer's, when records were dropped), problems. Nothing here
// classifies, decodes or totals spans: the rules live once, in Go. A file
// dropped on a page written to disk is shown only if it is an artifact, as
// written (see openArtifact).
//
// Safety rule for this file: data only ever reaches the DOM through
// textContent, setAttribute on fixed attribute names, and CSSOM style
// properties set to numbers. There is no innerHTML, no eval and no URL
// built from data, so no payload can become markup or code; the page's
// Content-Security-Policy (script by hash, no inline handlers) backs that up.
(() => {
  'use strict';

  const ROW = 24;          // waterfall row height in px; the virtual list depends on it
  const OVERSCAN = 30;     // rows rendered above and below the viewport
  const LIMITS = { minimal: 600, normal: 4000, verbose: 40000 };
  const KINDS = ['agent', 'inference', 'call', 'span'];
  const KIND_LABEL = { agent: 'agent', inference: 'llm', call: 'tool', span: 'span' };
  // TOOLS_SHOWN is how many tool calls in a row a conversation shows before
  // it folds the rest (the streaming-events seed's default).
  const TOOLS_SHOWN = 5;
  // TABLE_ROWS is how many rows a breakdown table shows before "show all".
  const TABLE_ROWS = 10;
  const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'developer', 'model', 'function']);

  const t0 = performance.now();
  const S = {
    runs: [], cur: -1, problems: [],
    mode: 'normal', kinds: new Set(KINDS), tool: '', errorsOnly: false, q: '',
    collapsed: new Set(), sel: null, visible: [], errCursor: -1,
    embedded: [], // the runs embedded in the page, by their place in it
  };

  // failed is Go's one error predicate (converter.Failed, the view
  // model's "failed"), which the report's error count uses too; a record
  // read here without Go (a file opened as written) has only its status.
  function failed(r) { return r.failed === true || r.ok === false; }

  // ---- small DOM helpers -------------------------------------------------

  function h(tag, props, ...kids) {
    const e = document.createElement(tag);
    if (props) {
      for (const k of Object.keys(props)) {
        const v = props[k];
        if (v == null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = v;
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const c of kids) {
      if (c == null || c === false) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }
  const $ = (id) => document.getElementById(id);

  // ---- formatting ----------------------------------------------------------
  //
  // The quantities a run shows (durations, dollars, budget percentage and
  // near/over text, token counts) are written in Go (viewer/format.go,
  // report.Duration, report.Dollars, report.Thousands) and carried in the
  // view model: the run's in run.text, a record's in its dur, usage_text,
  // cost_text and est_text. The page lays those strings out. It formats
  // only what Go cannot know: the clock of a span still running (clock),
  // and counts of its own (rows, characters) or of a file shown as written.

  const nf = new Intl.NumberFormat('en-US');
  const num = (n) => nf.format(n || 0);
  // clock is the elapsed time of something still running, ticking once a
  // second, in report.Duration's form (it cannot come from Go: it grows).
  function clock(v) {
    if (!(v >= 0)) return '—';
    if (Math.round(v) < 1000) return Math.round(v) + ' ms';
    if (Math.round(v / 10) < 6000) return (Math.round(v / 10) / 100).toFixed(2) + ' s';
    const s = Math.round(v / 1000), two = (n) => String(n).padStart(2, '0');
    return s < 3600 ? Math.floor(s / 60) + ' m ' + two(s % 60) + ' s'
      : Math.floor(s / 3600) + ' h ' + two(Math.floor(s / 60) % 60) + ' m ' + two(s % 60) + ' s';
  }
  // dur is a row's duration: Go's, or the clock of a running parent; a
  // record of a file shown as written has its elapsed_ms as written.
  function dur(r) {
    if (r._running) return clock(r.t1 - r.t0);
    if (typeof r.dur === 'string') return r.dur;
    return typeof r.elapsed_ms === 'number' ? r.elapsed_ms + ' ms' : '';
  }
  // usageText is a model call's usage as Go wrote it: {label: count}.
  function usageText(r) {
    const out = {};
    if (Array.isArray(r.usage_text)) for (const p of r.usage_text) if (Array.isArray(p)) out[p[0]] = p[1];
    return out;
  }
  function isObj(v) { return v !== null && typeof v === 'object'; }

  // asJSON returns a JSON-valued field as a value: artifacts embed JSON,
  // but OTLP carries most content as strings holding JSON.
  function asJSON(v) {
    if (typeof v !== 'string') return v;
    const s = v.trim();
    if ((s.startsWith('{') && s.endsWith('}')) || (s.startsWith('[') && s.endsWith(']'))) {
      try { return JSON.parse(s); } catch (_) { /* not JSON: keep the text */ }
    }
    return v;
  }
  function pretty(v) {
    v = asJSON(v);
    if (typeof v === 'string') return v;
    try { return JSON.stringify(v, null, 2); } catch (_) { return String(v); }
  }
  // ---- the run model -------------------------------------------------------

  const key = (r) => (r.trace_id || '') + '/' + (r.span_id || '');

  // pendingRows are the rows of the parents the records name but the run
  // does not hold (Go's view model lists them): running ones end "now"
  // (the page ticks them), missing ones where their last child ends.
  function pendingRows(run) {
    const now = Date.now();
    return run.pending.filter(isObj).map((p) => ({
      kind: 'span', _pending: true, _running: p.running === true,
      name: p.running === true ? 'running…' : 'not recorded (never ended)',
      trace_id: String(p.trace_id || ''), span_id: String(p.span_id || ''),
      t0: +p.t0 || 0, t1: p.running === true ? Math.max(now, +p.t0 || 0) : +p.t0 || 0, children: p.children,
    }));
  }

  // buildModel makes the waterfall's tree of a whole run. A run Go wrote
  // (ordered) comes in waterfall order already, and is taken in as it
  // comes (startModel, appendRecords, finishModel: the same tree, built
  // a chunk at a time while a large page loads); anything else, a file
  // opened as written, is sorted here.
  function buildModel(run) {
    if (run.ordered === true) {
      startModel(run);
      appendRecords(run, run.records);
      finishModel(run);
      return;
    }
    buildTree(run);
  }

  // buildTree orders a file opened as written (no Go, so no folded
  // wrappers and no view_parent: those are the ordered view model's).
  function buildTree(run) {
    const recs = run.records.concat(pendingRows(run));
    const byKey = new Map();
    for (let i = 0; i < recs.length; i++) {
      const r = recs[i];
      r._i = i;
      r._k = key(r);
      r._kids = [];
      r._p = null;
      if (!KINDS.includes(r.kind)) r.kind = 'span';
      byKey.set(r._k, r);
    }
    const roots = [];
    for (const r of recs) {
      const pid = r.parent_span_id;
      const p = pid ? byKey.get((r.trace_id || '') + '/' + pid) : null;
      if (p && p !== r) { r._p = p; p._kids.push(r); } else roots.push(r);
    }
    const byStart = (a, b) => (a.t0 - b.t0) || (a.t1 - b.t1) || (a._i - b._i);
    roots.sort(byStart);
    let T0 = Infinity, T1 = -Infinity;
    for (const r of recs) {
      r._kids.sort(byStart);
      if (r.t0 > 0 && r.t0 < T0) T0 = r.t0;
      if (r.t1 > T1) T1 = r.t1;
    }
    if (!isFinite(T0)) { T0 = 0; T1 = 1; }
    if (!(T1 > T0)) T1 = T0 + 1;
    // Preorder, iteratively: a 5,000-deep chain must not overflow the stack.
    const flat = [];
    const stack = roots.slice().reverse().map((r) => [r, 0]);
    const seen = new Set();
    while (stack.length) {
      const [r, d] = stack.pop();
      if (seen.has(r)) continue; // a parent cycle in hostile input
      seen.add(r);
      r._d = d;
      flat.push(r);
      for (let i = r._kids.length - 1; i >= 0; i--) stack.push([r._kids[i], d + 1]);
    }
    for (const r of recs) if (!seen.has(r)) { r._d = 0; flat.push(r); }
    // The tool filter offers the tool names the records carry.
    const tools = Array.from(new Set(recs.map((r) => r.tool).filter((t) => typeof t === 'string' && t))).sort();
    // A missing parent spans its children.
    for (const r of recs) {
      if (!r._pending || r._running) continue;
      for (const k of r._kids) if (k.t1 > r.t1) r.t1 = k.t1;
    }
    run.model = { byKey, roots, flat, T0, T1, tools, running: recs.filter((r) => r._running) };
  }

  // startModel begins the tree of a run Go wrote in waterfall order (the
  // view model's ordered: a parent before its children, siblings by
  // start): each record is placed as it arrives, under the parent placed
  // before it, so the first chunk of a large page shows the first rows
  // as they will stay. Go says where each pending parent's row goes
  // (pending_at: how many records come before it) and the run's time
  // span (t0, t1), so the axis does not move while the rest loads.
  function startModel(run) {
    const at = Array.isArray(run.pending_at) ? run.pending_at : [];
    const pend = pendingRows(run).map((p, j) => [p, +at[j] || 0]).sort((a, b) => a[1] - b[1]);
    run.model = {
      byKey: new Map(), roots: [], flat: [], tools: [], running: [], T0: 0, T1: 1,
      lo: run.t0 > 0 ? +run.t0 : Infinity, hi: run.t1 > 0 ? +run.t1 : -Infinity,
      toolSet: new Set(), pend, pi: 0, placed: 0, n: 0, live: run.state === 'running', wrappers: new Map(),
    };
    spanOf(run.model);
  }

  // appendRecords places recs, the next records of the run in waterfall
  // order, and the pending rows that go before them.
  function appendRecords(run, recs) {
    const m = run.model;
    for (const r of recs) {
      while (m.pi < m.pend.length && m.pend[m.pi][1] <= m.placed) place(m, m.pend[m.pi++][0]);
      place(m, r);
      m.placed++;
    }
    spanOf(m);
    if (m.tools.length !== m.toolSet.size) m.tools = Array.from(m.toolSet).sort();
  }

  // finishModel places the pending rows that come after every record.
  function finishModel(run) {
    const m = run.model;
    while (m.pi < m.pend.length) place(m, m.pend[m.pi++][0]);
    spanOf(m);
  }

  function place(m, r) {
    // A wrapper Go folded into its model call (viewer/wrapfold.go) is no
    // row: the call, which follows it, takes its place.
    if (typeof r.folded_into === 'string' && r.folded_into) { m.wrappers.set(key(r), r); return; }
    // A span in flight (its start record, "in_flight": Go left only
    // those no ended record superseded) runs, its time ticking, while
    // the run does; in a run that stopped or ended it never ended.
    if (r.in_flight === true) {
      r._inflight = true;
      r._running = m.live;
      r.t1 = m.live ? Math.max(Date.now(), r.t0) : r.t0;
    }
    r._i = m.n++;
    r._k = key(r);
    r._kids = [];
    r._p = null;
    if (!KINDS.includes(r.kind)) r.kind = 'span';
    const pid = typeof r.view_parent === 'string' ? r.view_parent : r.parent_span_id;
    const p = pid ? m.byKey.get((r.trace_id || '') + '/' + pid) : null;
    const w = typeof r.wrapped_by === 'string' ? m.wrappers.get((r.trace_id || '') + '/' + r.wrapped_by) : null;
    if (w) { w._leaf = r; r._wrapper = w; m.byKey.set(key(w), r); } // a link to the wrapper shows the call
    if (p && p !== r) {
      r._p = p; r._d = p._d + 1; p._kids.push(r);
      // A missing parent spans its children.
      if (p._pending && !p._running && r.t1 > p.t1) p.t1 = r.t1;
    } else { r._d = 0; m.roots.push(r); }
    m.byKey.set(r._k, r);
    m.flat.push(r);
    if (r.t0 > 0 && r.t0 < m.lo) m.lo = r.t0;
    if (r.t1 > m.hi) m.hi = r.t1;
    if (typeof r.tool === 'string' && r.tool) m.toolSet.add(r.tool);
    if (r._running) m.running.push(r);
  }

  // spanOf sets the model's time span from the bounds seen so far.
  function spanOf(m) {
    m.T0 = isFinite(m.lo) ? m.lo : 0;
    m.T1 = isFinite(m.lo) ? m.hi : 1;
    if (!(m.T1 > m.T0)) m.T1 = m.T0 + 1;
  }

  // tick moves the end of a running run's open parents to now, once a
  // second, so their elapsed time grows until their end arrives.
  function tick() {
    const R = run();
    if (!R || !R.model || !R.model.running.length) return;
    const now = Date.now();
    for (const r of R.model.running) r.t1 = Math.max(now, r.t0);
    for (const r of R.model.running) if (r.t1 > R.model.T1) R.model.T1 = r.t1;
    renderCards(); renderAxis(); renderRows();
    if (S.sel && S.sel._running) renderDetail();
  }

  // ---- loading ---------------------------------------------------------------

  // addRuns adds view models to the picker and returns the index of the
  // first, or -1 when there was none.
  function addRuns(runs) {
    const first = S.runs.length;
    for (const run of runs) {
      normalize(run);
      buildModel(run);
      S.runs.push(run);
    }
    return runs.length ? first : -1;
  }

  // normalize makes sure a view model has the members the page reads, so
  // a run that is only partly there still renders.
  function normalize(run) {
    if (!Array.isArray(run.records)) run.records = [];
    run.records = run.records.filter(isObj);
    if (!Array.isArray(run.problems)) run.problems = [];
    if (!isObj(run.meta)) run.meta = {};
    if (!Array.isArray(run.pending)) run.pending = [];
    run.state = run.state === 'running' || run.state === 'stopped' ? run.state : 'done';
    run.state_text = typeof run.state_text === 'string' ? run.state_text : '';
    run.name = String(run.name || 'run');
  }

  function loadEmbedded() {
    for (const e of document.querySelectorAll('script.at-run[type="application/json"]')) {
      const name = e.getAttribute('data-name') || 'run';
      let run;
      try { run = JSON.parse(e.textContent); } catch (err) {
        S.problems.push({ file: name, line: 0, message: 'cannot read the embedded run: ' + err.message });
        continue;
      }
      if (!isObj(run)) continue;
      run.name = name;
      addRuns([run]);
      // The rest of a large run follows the code, in chunks (takeChunks).
      run.left = run.ordered === true && run.chunks > 0 ? run.chunks : 0;
      S.embedded.push(run);
    }
  }

  // takeChunks reads the chunks of the embedded runs that the browser
  // has parsed so far, for at most a slice of time, places their records,
  // redraws what they change, and comes back until every chunk is in: a
  // page of 100,000 records shows its first screen at once and answers
  // search, filters and next error while the rest loads. A chunk is read
  // once the parser has closed it (something follows it) or the document
  // is parsed; it is dropped from the document once read.
  function takeChunks() {
    const loading = document.readyState === 'loading';
    const t = performance.now();
    let took = 0;
    for (const e of document.querySelectorAll('script.at-more[type="application/json"]')) {
      if (loading && !e.nextSibling) break;
      const R = S.embedded[+e.getAttribute('data-run')];
      let recs = null;
      try { recs = JSON.parse(e.textContent); } catch (err) {
        S.problems.push({ file: R ? R.name : '', line: 0, message: 'cannot read part of the embedded run: ' + err.message });
      }
      e.remove();
      took++;
      if (R && R.left > 0) {
        R.left--;
        if (Array.isArray(recs)) {
          const ok = recs.filter(isObj);
          for (const r of ok) R.records.push(r);
          appendRecords(R, ok);
        }
        if (!R.left) finishModel(R);
      }
      if (performance.now() - t > 30) break;
    }
    const left = S.embedded.some((R) => R.left > 0);
    if (took) {
      const R = run();
      if (R && S.embedded.includes(R)) {
        if (ui.toolPick.options.length !== R.model.tools.length + 1) toolOptions(R);
        renderCards(); refilter();
      }
      if (!left) renderProblems();
    }
    if (left && (loading || took)) { setTimeout(takeChunks, took ? 0 : 15); return; }
    for (const R of S.embedded) if (R.left) { R.left = 0; finishModel(R); } // chunks that never came
    loaded();
  }

  const convertURL = (() => { const e = $('at-convert'); return e ? e.getAttribute('data-url') : ''; })();

  // openFiles opens files picked or dropped. On a page agenttrace serve
  // serves, each goes to the server, which converts whatever it is with
  // the Go converter and importers and answers with view models. A page
  // written to a file has no server: it opens artifacts only, as written.
  function openFiles(files) {
    const list = Array.from(files || []);
    if (!list.length) return;
    const one = (f) => convertURL ? convertFile(f) : f.text().then((text) => openArtifact(text, f.name));
    Promise.all(list.map((f) => one(f).catch((err) => ({ runs: [], problems: [{ file: f.name, line: 0, message: String(err && err.message || err) }] }))))
      .then((got) => {
        let firstNew = -1;
        for (const g of got) {
          for (const p of g.problems || []) S.problems.push(p);
          const i = addRuns(g.runs || []);
          if (firstNew < 0) firstNew = i;
        }
        renderRunPicker();
        if (firstNew >= 0) selectRun(firstNew); else renderProblems();
      });
  }

  function convertFile(f) {
    return fetch(convertURL + '?name=' + encodeURIComponent(f.name), {
      method: 'POST', body: f, credentials: 'same-origin', headers: { 'Content-Type': 'application/octet-stream' },
    }).then((resp) => resp.json().then((body) => {
      if (!resp.ok || !isObj(body) || !Array.isArray(body.runs)) throw new Error((isObj(body) && body.error) || ('the server answered ' + resp.status));
      return { runs: body.runs, problems: [] };
    }, () => { throw new Error('the server answered ' + resp.status); }));
  }

  // openArtifact shows an artifact dropped on a page written to a file,
  // as written: each record line's own kind and fields, the header, and
  // the last trailer's totals. Nothing is recomputed (kinds, estimates,
  // tables: that is Go's work), so the page says so; other formats are
  // refused with the command that opens them.
  function openArtifact(text, name) {
    const lines = text.split('\n');
    const run = { name, meta: {}, records: [], report: null, trailer: null, problems: [], asWritten: true };
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].trim();
      if (!line) continue;
      let o;
      try { o = JSON.parse(line); } catch (_) { o = undefined; }
      if (!isObj(o) || Array.isArray(o) || typeof o.kind !== 'string') {
        if (!run.records.length && !run.trailer && !Object.keys(run.meta).length) {
          return { runs: [], problems: [{ file: name, line: i + 1, message: 'not an agenttrace artifact: open it with `agenttrace html ' + name + '`, or drop it on a page of `agenttrace serve`, which converts OTLP, Jaeger and the other formats' }] };
        }
        run.problems.push({ file: name, line: i + 1, message: 'not a JSON object with a kind: skipped' });
        continue;
      }
      if (o.kind === 'meta') run.meta = o;
      else if (o.kind === 'summary') run.trailer = o;
      else if (KINDS.includes(o.kind)) {
        o.t0 = Date.parse(o.started_at);
        o.t1 = Date.parse(o.finished_at);
        if (!(o.t0 >= 0)) o.t0 = 0;
        if (!(o.t1 >= o.t0)) o.t1 = o.t0;
        run.records.push(o);
      }
    }
    return { runs: [run], problems: [] };
  }

  // ---- layout ----------------------------------------------------------------

  const ui = {};

  function buildShell() {
    const app = $('app');
    ui.runPick = h('select', { id: 'run-pick', 'aria-label': 'Run', onchange: (e) => selectRun(+e.target.value) });
    ui.file = h('input', { type: 'file', id: 'open-file', multiple: true, accept: '.jsonl,.json,application/json', onchange: (e) => openFiles(e.target.files) });
    ui.problems = h('div', { id: 'problems', class: 'problems', hidden: true });
    ui.cards = h('section', { id: 'cards', class: 'cards' });
    ui.tables = h('section', { id: 'tables', class: 'tables' });
    ui.search = h('input', { id: 'search', type: 'search', placeholder: 'Search the run (/)', 'aria-label': 'Search', oninput: debounce((e) => { S.q = e.target.value.trim().toLowerCase(); refilter(); }, 120) });
    ui.kindBoxes = KINDS.map((k) => h('label', { class: 'chk k-' + k }, h('input', { type: 'checkbox', checked: true, 'data-kind': k, onchange: (e) => { e.target.checked ? S.kinds.add(k) : S.kinds.delete(k); refilter(); } }), ' ' + KIND_LABEL[k]));
    ui.toolPick = h('select', { id: 'tool-filter', 'aria-label': 'Tool', onchange: (e) => { S.tool = e.target.value; refilter(); } });
    ui.errOnly = h('label', { class: 'chk' }, h('input', { type: 'checkbox', id: 'errors-only', onchange: (e) => { S.errorsOnly = e.target.checked; refilter(); } }), ' errors only');
    ui.mode = h('select', { id: 'mode', 'aria-label': 'Detail', onchange: (e) => { S.mode = e.target.value; document.body.dataset.mode = S.mode; refilter(); renderDetail(); } },
      h('option', { value: 'minimal', text: 'minimal' }), h('option', { value: 'normal', text: 'normal', selected: true }), h('option', { value: 'verbose', text: 'verbose' }));
    ui.count = h('span', { id: 'row-count', class: 'muted' });
    ui.toolbar = h('div', { class: 'toolbar', id: 'toolbar' },
      ui.search, h('span', { class: 'group' }, ...ui.kindBoxes), ui.toolPick, ui.errOnly,
      h('button', { id: 'next-error', type: 'button', title: 'Next error (n)', onclick: nextError }, 'Next error ↓'),
      h('button', { id: 'expand-all', type: 'button', onclick: () => { S.collapsed.clear(); refilter(); } }, 'Expand all'),
      h('button', { id: 'collapse-all', type: 'button', onclick: collapseAll }, 'Collapse all'),
      ui.mode, ui.count);
    ui.axis = h('div', { class: 'axis', id: 'axis' });
    ui.rows = h('div', { class: 'rows', id: 'rows', role: 'tree' });
    ui.spacer = h('div', { class: 'spacer' }, ui.rows);
    ui.scroll = h('div', { class: 'scroll', id: 'waterfall-scroll', onscroll: () => requestAnimationFrame(renderRows) }, ui.spacer);
    ui.detail = h('aside', { id: 'detail', class: 'detail', 'aria-live': 'polite' }, h('p', { class: 'muted', text: 'Select a row to see its details.' }));
    app.replaceChildren(
      h('header', { class: 'top' },
        h('h1', { text: 'agenttrace' }), ui.runPick,
        h('label', { class: 'open button' }, 'Open file…', ui.file),
        h('span', { class: 'muted hint', text: convertURL ? 'or drop an artifact, OTLP (JSON or protobuf) or Jaeger JSON file anywhere' : 'or drop an artifact anywhere' })),
      // The waterfall right below the totals, where the eye goes; the
      // breakdowns (by model, tool, agent…) after it.
      ui.problems, ui.cards,
      h('section', { class: 'timeline' }, ui.toolbar,
        h('div', { class: 'split' }, h('div', { class: 'waterfall', id: 'waterfall' }, ui.axis, ui.scroll), ui.detail)),
      ui.tables);

    document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
    document.addEventListener('dragleave', (e) => { if (e.target === document.documentElement || e.target === document.body) document.body.classList.remove('dragging'); });
    document.addEventListener('drop', (e) => {
      e.preventDefault();
      document.body.classList.remove('dragging');
      if (e.dataTransfer) openFiles(e.dataTransfer.files);
    });
    document.addEventListener('keydown', onKey);
    window.addEventListener('resize', () => requestAnimationFrame(renderRows));
  }

  function debounce(f, wait) {
    let t = 0;
    return (e) => { clearTimeout(t); t = setTimeout(() => f(e), wait); };
  }

  function onKey(e) {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT' || e.target.tagName === 'TEXTAREA')) {
      if (e.key === 'Escape') e.target.blur();
      return;
    }
    if (e.key === '/') { e.preventDefault(); ui.search.focus(); }
    else if (e.key === 'n') nextError();
    else if (e.key === 'j' || e.key === 'ArrowDown') { e.preventDefault(); moveSel(1); }
    else if (e.key === 'k' || e.key === 'ArrowUp') { e.preventDefault(); moveSel(-1); }
    else if ((e.key === 'h' || e.key === 'ArrowLeft') && S.sel) toggle(S.sel, true);
    else if ((e.key === 'l' || e.key === 'ArrowRight') && S.sel) toggle(S.sel, false);
  }

  // ---- run selection, problems -------------------------------------------------

  function renderRunPicker() {
    ui.runPick.replaceChildren(...S.runs.map((r, i) => h('option', { value: i, text: r.name + ' — ' + num(count(r)) + ' records' })));
    ui.runPick.hidden = S.runs.length < 2;
    if (S.cur >= 0) ui.runPick.value = String(S.cur);
  }

  // renderProblems lists what could not be read: files that opened no
  // run, and the current run's bad lines, each with its line number.
  function renderProblems() {
    const R = run();
    const ps = S.problems.concat(R ? R.problems.map((p) => ({ file: R.name, line: p.line, message: p.message })) : []);
    ui.problems.hidden = ps.length === 0;
    if (!ps.length) return;
    const shown = ps.slice(0, 20).map((p) => h('li', { text: (p.file || '') + (p.line ? ':' + p.line : '') + ': ' + p.message }));
    ui.problems.replaceChildren(
      h('details', { open: ps.length <= 5 }, h('summary', { text: num(ps.length) + (ps.length === 1 ? ' problem' : ' problems') + ' reading input (lines skipped)' }),
        h('ul', null, ...shown), ps.length > 20 ? h('p', { class: 'muted', text: '… and ' + num(ps.length - 20) + ' more' }) : null));
  }

  function selectRun(i) {
    if (i < 0 || i >= S.runs.length) return;
    S.cur = i;
    S.collapsed.clear();
    S.sel = null;
    S.errCursor = -1;
    S.tool = '';
    ui.runPick.value = String(i);
    const run = S.runs[i];
    document.title = run.name + ' — agenttrace';
    toolOptions(run);
    renderProblems();
    renderCards();
    renderTables();
    renderAxis();
    refilter();
    renderDetail();
  }

  const run = () => S.runs[S.cur];

  // toolOptions offers the tools the run's records carry, keeping the
  // choice, or taking the one kept from the last visit once a record of
  // the page (which may come in a later chunk) carries it.
  function toolOptions(R) {
    ui.toolPick.replaceChildren(h('option', { value: '', text: 'all tools' }), ...R.model.tools.map((t) => h('option', { value: t, text: t })));
    if (prefTool && R.model.tools.includes(prefTool)) { S.tool = prefTool; prefTool = ''; }
    ui.toolPick.value = S.tool;
  }

  // count is how many records a run has: Go's count, while the records
  // of a large page are still being read.
  function count(R) { return typeof R.count === 'number' ? R.count : R.records.length; }

  // ---- summary cards and budget ------------------------------------------------

  function card(label, value, sub, cls) {
    return h('div', { class: 'card' + (cls ? ' ' + cls : '') }, h('div', { class: 'label', text: label }), h('div', { class: 'value', text: value }), sub ? h('div', { class: 'sub', text: sub }) : null);
  }

  // renderCards shows Go's report of the run: its totals are the records'
  // own, or the trailer's when the file lost records (report.WithTrailer),
  // with a note saying how many and what that means. A dropped artifact
  // shown as written has only its trailer.
  function renderCards() {
    const R = run(), m = R.model;
    const t = isObj(R.report) ? R.report : trailerReport(R.trailer);
    const meta = R.meta || {};
    const cards = [];
    if (t) {
      const kinds = KINDS.filter((k) => t.records && t.records[k]).map((k) => num(t.records[k]) + ' ' + KIND_LABEL[k]).join(' · ');
      const flying = R.records.filter((r) => r._inflight).length; // start records are not records yet
      const x = isObj(R.text) ? R.text : null;
      cards.push(card('Records', x && !flying ? x.records : num(count(R) - flying), kinds + (flying ? (kinds ? ' · ' : '') + num(flying) + ' in flight' : '')));
      cards.push(card('Errors', x ? x.errors : num(t.errors), t.errors ? 'press n to jump' : 'none', t.errors ? 'bad' : ''));
    } else {
      cards.push(card('Records', num(R.records.length), 'as written'));
    }
    // A reader that found no header gives the epoch: say nothing rather
    // than that the run started in 1970.
    const started = meta.started_at && !/^1970-01-01T00:00:00(\.0*)?Z$/.test(String(meta.started_at)) ? String(meta.started_at) : '';
    // The run's quantities are Go's (run.text); while it runs its length
    // is a clock. A file shown as written has only its trailer's counts.
    const x = isObj(R.text) ? R.text : null;
    const length = R.state === 'running' && count(R) ? clock(m.T1 - m.T0)
      : x ? x.duration : '—';
    cards.push(card('Duration', length, started ? 'started ' + started.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : ''));
    if (x) {
      cards.push(card('Tokens in', x.tokens_in, 'cache read ' + x.cache_read + ' · write ' + x.cache_write));
      cards.push(card('Tokens out', x.tokens_out, 'reasoning ' + x.reasoning));
      cards.push(card('Total', x.total, x.total_note));
    } else if (t && isObj(t.tokens)) {
      cards.push(card('Tokens in', num(t.tokens.input), 'as written'));
      cards.push(card('Tokens out', num(t.tokens.output), 'as written'));
      cards.push(card('Total', num(t.tokens.total), 'as written (trailer)'));
    }
    // Cost is Go's text (report.Dollars): "unknown", never $0, when no
    // call has a known cost; "$X or more" when some calls have none.
    if (isObj(R.costs)) cards.push(card('Cost', R.costs.run, R.costs.note, R.costs.run === 'unknown' ? 'unknown' : ''));
    if (meta.service) cards.push(card('Service', meta.service, meta.trace_id ? 'trace ' + meta.trace_id : (meta.conversation_id ? 'conversation ' + meta.conversation_id : '')));
    const kids = [];
    if (R.asWritten) {
      kids.push(h('div', { class: 'note', id: 'as-written', role: 'note',
        text: 'Shown as written: the kinds, fields and totals are what the file says; nothing is recomputed in the browser and there are no token tables. `agenttrace html ' + R.name + '` or a page of `agenttrace serve` compute them.' }));
    }
    const notes = t && Array.isArray(t.notes) ? t.notes : [];
    if (t && t.dropped) {
      kids.push(h('div', { class: 'dropped', id: 'dropped', role: 'note' },
        h('p', null, h('b', { text: num(t.dropped) + (t.dropped === 1 ? ' record was' : ' records were') + ' dropped' }),
          ' — the file holds ' + num(count(R)) + '.'),
        ...(notes.length ? notes : ['Tokens and budget are the summary trailer\'s, which count them; their details are not in the file.']).map((n) => h('p', { text: n }))));
    } else if (notes.length) {
      kids.push(h('div', { class: 'note', id: 'notes', role: 'note' }, ...notes.map((n) => h('p', { text: n }))));
    }
    if (!R.asWritten) {
      // The state and its words are Go's (viewer.StateOf, StateText):
      // a run whose writer went away without ending it is "stopped".
      if (R.state === 'stopped') cards.unshift(card('Status', 'stopped without an end', R.state_text, 'stopped'));
      else cards.unshift(card('Status', R.state === 'running' ? '● running' : '✓ done',
        R.state === 'running' ? num(m.running.length) + (m.running.length === 1 ? ' span' : ' spans') + ' not ended yet' : (R.pending.length ? num(R.pending.length) + ' parent spans never recorded' : 'every span ended'),
        R.state === 'running' ? 'running' : 'done'));
    }
    document.body.dataset.runState = R.state;
    kids.push(h('div', { class: 'card-row' }, ...cards));
    if (isObj(R.text) && isObj(R.text.budget) && t && isObj(t.budget)) kids.push(budgetBar(t.budget, R.text.budget));
    ui.cards.replaceChildren(...kids);
  }

  // trailerReport is what a trailer says, in the shape of Go's report, for
  // an artifact shown as written.
  function trailerReport(tr) {
    if (!isObj(tr)) return null;
    return {
      records: { call: tr.calls, inference: tr.inferences, agent: tr.agents, span: tr.spans }, errors: tr.errors,
      tokens: isObj(tr.tokens) ? tr.tokens : null, budget: isObj(tr.budget) ? tr.budget : null,
      from_trailer: true, dropped: tr.dropped || 0, notes: [],
    };
  }

  // budgetBar draws a converter.BudgetStatus b with Go's text and verdict
  // g (viewer.BudgetText, BudgetState); the bar's length is layout.
  function budgetBar(b, g) {
    const tokens = b.budget_tokens > 0;
    const frac = tokens ? b.spent / b.budget_tokens : (b.budget_usd > 0 ? b.spent_usd / b.budget_usd : 0);
    const warnAt = typeof b.warn_threshold === 'number' ? b.warn_threshold : 0;
    const state = String(g.state || 'ok');
    const fill = h('div', { class: 'fill ' + state });
    fill.style.width = Math.min(100, frac * 100).toFixed(2) + '%';
    const warn = h('div', { class: 'warn-mark' });
    warn.style.left = Math.min(100, warnAt * 100).toFixed(2) + '%';
    return h('div', { class: 'budget', id: 'budget', 'data-state': state }, h('div', { class: 'label', text: 'Budget' }),
      h('div', { class: 'bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': tokens ? b.budget_tokens : b.budget_usd, 'aria-valuenow': tokens ? b.spent : b.spent_usd }, fill, warn),
      h('div', { class: 'sub', text: String(g.text || '') }));
  }

  // ---- token tables --------------------------------------------------------------

  // table lays out rows under head; past TABLE_ROWS rows it shows the top
  // ones and a "show all" for the rest (the rows come ranked).
  function table(id, head, rows) {
    const tr = (r) => h('tr', null, ...r.map((c) => (c instanceof Node ? h('td', null, c) : h('td', { text: c }))));
    const body = h('tbody', null, ...rows.slice(0, TABLE_ROWS).map(tr));
    const t = h('table', { id, class: 'grid' }, h('thead', null, h('tr', null, ...head.map((c) => h('th', { text: c })))), body);
    if (rows.length <= TABLE_ROWS) return t;
    const more = h('button', { type: 'button', class: 'show-all-rows', 'data-table': id, onclick: () => { body.append(...rows.slice(TABLE_ROWS).map(tr)); more.remove(); } },
      'Show all ' + num(rows.length) + ' rows');
    return h('div', { class: 'tablewrap' }, t, more);
  }

  // renderTables shows Go's token report (report.Tokens, what `agenttrace
  // tokens` prints), in its order, cell by cell as Go wrote it (run.text's
  // tables, which the no-JavaScript outline prints too). With records
  // dropped, the tables cover the records the file holds. A largest
  // response's record links to its span.
  function renderTables() {
    const R = run(), rep = R.report;
    const tables = isObj(R.text) && Array.isArray(R.text.tables) ? R.text.tables : [];
    if (!isObj(rep) || !tables.length) {
      ui.tables.replaceChildren();
      return;
    }
    const largest = rep.largest || [];
    ui.tables.replaceChildren(...tables.filter(isObj).map((tb) => {
      const rows = (tb.rows || []).map((cells, i) => {
        if (tb.id !== 'largest' || !largest[i]) return cells;
        const x = largest[i];
        const r = R.model.byKey.get((x.trace_id || '') + '/' + (x.span_id || ''));
        const name = h('a', { href: '#', class: 'jump', 'data-span-ref': x.span_id || '', onclick: (e) => { e.preventDefault(); if (r) reveal(r); } }, cells[0]);
        return [name].concat(cells.slice(1));
      });
      return h('details', { open: true, class: 'tbl' }, h('summary', { text: String(tb.title || '') }), table(String(tb.id || ''), tb.head || [], rows));
    }));
  }

  // ---- filtering and the virtual waterfall -------------------------------------------

  function haystack(r) {
    if (r._hay === undefined) {
      const parts = [r.name, r.kind, r.tool, r.model, r.agent, r.provider, r.span_id, r.code, r.message];
      for (const f of ['args', 'result', 'conversation', 'input', 'output', 'system', 'attrs', 'events']) {
        const v = r[f];
        if (v != null) parts.push(typeof v === 'string' ? v : JSON.stringify(v));
      }
      r._hay = parts.filter((x) => x != null).join('\n').toLowerCase();
    }
    return r._hay;
  }

  function matches(r) {
    if (S.tool && r.tool !== S.tool) return false;
    if (S.errorsOnly && !failed(r)) return false;
    if (S.q && !haystack(r).includes(S.q)) return false;
    return true;
  }

  // refilter recomputes the visible rows. With a search, tool or error
  // filter on, a match keeps its ancestors as context rows, so the tree
  // still reads; kinds switched off (and plain spans in minimal mode) are
  // left out, their children shown in their place.
  function refilter() {
    const R = run();
    if (!R) return;
    const flat = R.model.flat;
    const narrowing = !!(S.q || S.tool || S.errorsOnly);
    const kindOn = (r) => S.kinds.has(r.kind) && !(S.mode === 'minimal' && r.kind === 'span' && !failed(r));
    let keep = null;
    if (narrowing) {
      keep = new Map(); // record -> true (match) | false (context)
      for (const r of flat) {
        if (!kindOn(r) || !matches(r)) continue;
        keep.set(r, true);
        for (let p = r._p; p && !keep.has(p); p = p._p) keep.set(p, false);
      }
    }
    const out = [];
    let skipDepth = -1;
    for (const r of flat) {
      if (skipDepth >= 0) { if (r._d > skipDepth) continue; skipDepth = -1; }
      if (!narrowing && S.collapsed.has(r._k) && r._kids.length) skipDepth = r._d;
      if (narrowing && !keep.has(r)) continue;
      if (!kindOn(r) && !(narrowing && keep.get(r) === false)) continue;
      r._ctx = narrowing && keep.get(r) === false;
      out.push(r);
    }
    S.visible = out;
    savePrefs();
    ui.count.textContent = num(out.length) + ' of ' + num(flat.length) + ' rows';
    ui.spacer.style.height = (out.length * ROW) + 'px';
    // A shorter list must not leave the view scrolled past its end.
    const maxTop = Math.max(0, out.length * ROW - ui.scroll.clientHeight);
    if (ui.scroll.scrollTop > maxTop) ui.scroll.scrollTop = maxTop;
    document.body.dataset.visibleRows = String(out.length);
    renderRows();
  }

  // renderAxis labels the time axis with Go's labels (run.text.axis);
  // while parents are still running the axis grows, and reads as a clock.
  function renderAxis() {
    const R = run(), m = R.model, span = m.T1 - m.T0;
    const given = !m.running.length && isObj(R.text) && Array.isArray(R.text.axis) && R.text.axis.length === 5 ? R.text.axis : null;
    const ticks = [];
    for (let i = 0; i <= 4; i++) {
      const t = h('span', { class: 'tick', text: given ? given[i] : clock(span * i / 4) });
      t.style.left = (i * 25) + '%';
      ticks.push(t);
    }
    ui.axis.replaceChildren(h('div', { class: 'lbl', text: 'span' }), h('div', { class: 'ticks' }, ...ticks));
  }

  function renderRows() {
    const R = run();
    if (!R) return;
    const list = S.visible, m = R.model, span = m.T1 - m.T0;
    const top = ui.scroll.scrollTop, vh = ui.scroll.clientHeight || 600;
    const a = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
    const b = Math.min(list.length, Math.ceil((top + vh) / ROW) + OVERSCAN);
    const rows = [];
    for (let i = a; i < b; i++) rows.push(rowEl(list[i], m, span));
    ui.rows.style.transform = 'translateY(' + (a * ROW) + 'px)';
    ui.rows.replaceChildren(...rows);
  }

  // rowName is what a row is called: an agent by its name (libraries
  // such as the Vercel AI SDK name the span after the model:
  // "invoke_agent gpt-4o-mini"), anything else by its span's name, which
  // stays the row's title.
  function rowName(r) {
    return (r.kind === 'agent' && r.agent) || r.name || '(unnamed)';
  }

  function rowEl(r, m, span) {
    const bad = failed(r);
    const cls = 'row k-' + r.kind + (bad ? ' err' : '') + (S.sel === r ? ' sel' : '') + (r._ctx ? ' ctx' : '') + (r._running ? ' running' : '') + (r._pending && !r._running ? ' missing' : '') + (r._inflight ? ' inflight' : '');
    const indent = h('span', { class: 'indent' });
    // Past 40 levels the indent stops growing: a pathological chain must
    // not push the names out of their column.
    indent.style.width = (Math.min(r._d, 40) * 14) + 'px';
    const caret = r._kids.length
      ? h('button', { type: 'button', class: 'caret', 'aria-label': S.collapsed.has(r._k) ? 'expand' : 'collapse', onclick: (e) => { e.stopPropagation(); toggle(r); } }, S.collapsed.has(r._k) ? '▸' : '▾')
      : h('span', { class: 'caret none' });
    const ut = usageText(r);
    const extra = r.kind === 'inference' && (ut.input || ut.output) ? (ut.input || '0') + '→' + (ut.output || '0')
      : bad ? (r.code || 'error') : r.kind === 'call' && r.est_text ? '~' + r.est_text + ' tok' : '';
    const label = h('div', { class: 'label' }, indent, caret, h('span', { class: 'badge k-' + r.kind, text: KIND_LABEL[r.kind] }),
      bad ? h('span', { class: 'errmark', title: 'error', text: '!' }) : null,
      h('span', { class: 'name', text: rowName(r), title: r.name || '' }),
      r._wrapper ? h('span', { class: 'wrapped muted', title: 'wrapper folded in: ' + (r._wrapper.name || ''), text: '⊂ ' + (r._wrapper.name || 'wrapper') }) : null,
      extra ? h('span', { class: 'extra', text: extra }) : null,
      Array.isArray(r.evaluations) ? h('span', { class: 'evalmark', title: r.evaluations.map(evalText).join('\n'), text: '✓' + r.evaluations.length }) : null,
      Array.isArray(r.logs) ? h('span', { class: 'logmark' + (r.logs.some(loud) ? ' warn' : ''), title: r.logs.length + ' log record(s) written in this span', text: '≡' + r.logs.length }) : null);
    const bar = h('div', { class: 'bar k-' + r.kind + (bad ? ' err' : '') + (r._running ? ' running' : '') });
    const l = Math.max(0, (r.t0 - m.T0) / span), w = Math.max(0, (r.t1 - r.t0) / span);
    bar.style.left = (l * 100).toFixed(3) + '%';
    bar.style.width = Math.max(w * 100, 0.15).toFixed(3) + '%';
    const durEl = h('span', { class: 'dur', text: r._inflight && !r._running ? 'never ended' : dur(r) + (r._running ? ' …' : '') });
    // The label goes after the bar, or before it when the bar ends near
    // the right edge, or inside it when it is wide too.
    if (l + w <= 0.85) durEl.style.left = ((l + w) * 100).toFixed(3) + '%';
    else if (l > 0.15) durEl.style.right = ((1 - l) * 100).toFixed(3) + '%';
    else { durEl.classList.add('in'); durEl.style.right = ((1 - l - w) * 100).toFixed(3) + '%'; }
    return h('div', {
      class: cls, role: 'treeitem', 'data-span-id': r.span_id || '', 'data-wrapped': r._wrapper ? r._wrapper.span_id || '' : null, 'data-kind': r.kind, 'aria-selected': S.sel === r ? 'true' : 'false',
      onclick: () => select(r),
    }, label, h('div', { class: 'track' }, bar, durEl));
  }

  function toggle(r, collapse) {
    if (!r._kids.length) return;
    const c = collapse === undefined ? !S.collapsed.has(r._k) : collapse;
    if (c) S.collapsed.add(r._k); else S.collapsed.delete(r._k);
    refilter();
  }

  function collapseAll() {
    for (const r of run().model.flat) if (r._kids.length && r._p) S.collapsed.add(r._k);
    refilter();
  }

  function select(r) {
    S.sel = r;
    renderRows();
    renderDetail();
    linkHere();
  }

  // linkHere puts the selected span in the address (#span=<id>, with
  // run=<n> past the first run), so every span has a link; openLink
  // follows one.
  function linkHere() {
    const r = S.sel;
    const frag = r && r.span_id && !r._pending ? '#' + (S.cur ? 'run=' + S.cur + '&' : '') + 'span=' + encodeURIComponent(r.span_id) : '';
    if (location.hash === frag || (!frag && !location.hash)) return;
    try { history.replaceState(null, '', frag || location.pathname + location.search); } catch (e) { /* a sandboxed page keeps its address */ }
  }

  function openLink() {
    const p = new URLSearchParams(location.hash.replace(/^#/, ''));
    const i = +(p.get('run') || 0), id = p.get('span');
    if (!(i >= 0 && i < S.runs.length)) return;
    if (i !== S.cur) selectRun(i);
    if (!id) return;
    const r = S.runs[i].records.find((x) => x.span_id === id);
    if (r) reveal(r._leaf || r);
  }

  // reveal expands r's ancestors, clears filters that hide it, scrolls it
  // into view and selects it.
  function reveal(r) {
    for (let p = r._p; p; p = p._p) S.collapsed.delete(p._k);
    if (!S.kinds.has(r.kind)) { S.kinds.add(r.kind); for (const b of ui.kindBoxes) { const i = b.querySelector('input'); if (i.dataset.kind === r.kind) i.checked = true; } }
    refilter();
    let i = S.visible.indexOf(r);
    if (i < 0) { // a search or filter hides it: drop them
      S.q = ''; ui.search.value = ''; S.tool = ''; ui.toolPick.value = ''; S.errorsOnly = false; $('errors-only').checked = false;
      refilter();
      i = S.visible.indexOf(r);
    }
    if (i >= 0) {
      const top = i * ROW, vh = ui.scroll.clientHeight;
      if (top < ui.scroll.scrollTop || top + ROW > ui.scroll.scrollTop + vh) ui.scroll.scrollTop = Math.max(0, top - vh / 3);
    }
    select(r);
  }

  function nextError() {
    const R = run();
    if (!R) return;
    const errs = R.model.flat.filter(failed);
    if (!errs.length) return;
    const from = S.sel ? R.model.flat.indexOf(S.sel) : -1;
    const next = errs.find((r) => R.model.flat.indexOf(r) > from) || errs[0];
    reveal(next);
  }

  function moveSel(d) {
    if (!S.visible.length) return;
    const i = S.sel ? S.visible.indexOf(S.sel) : -1;
    const j = Math.max(0, Math.min(S.visible.length - 1, i + d));
    reveal(S.visible[j]);
  }

  // ---- the detail panel ----------------------------------------------------------------

  function renderDetail() {
    const r = S.sel;
    if (!r) {
      ui.detail.replaceChildren(h('p', { class: 'muted', text: 'Select a row to see its details. Keys: j/k move, h/l fold, n next error, / search.' }));
      return;
    }
    const v = S.mode === 'verbose', min = S.mode === 'minimal';
    const kids = [];
    if (r._pending) {
      ui.detail.replaceChildren(h('div', { class: 'dhead' }, h('h2', { text: r.name })),
        h('p', { text: r._running
          ? 'This span has not ended: its children arrived, it has not. Running for ' + clock(r.t1 - r.t0) + ' so far.'
          : 'Its children name it as their parent, but it was never recorded.' }),
        h('p', { class: 'muted', text: 'span ' + r.span_id + ' · ' + num(r.children) + ' children so far' }));
      return;
    }
    kids.push(h('div', { class: 'dhead' }, h('span', { class: 'badge k-' + r.kind, text: KIND_LABEL[r.kind] }), h('h2', { text: rowName(r), title: r.name || '' }),
      r._inflight ? h('span', { class: 'status inflight', text: r._running ? 'in flight · ' + clock(r.t1 - r.t0) + ' so far' : 'started, never ended' })
        : h('span', { class: 'status ' + (failed(r) ? 'bad' : 'good'), text: failed(r) ? 'error' + (r.code ? ': ' + r.code : '') : 'ok' })));
    if (failed(r) && r.message) kids.push(h('div', { class: 'errmsg', text: r.message }));
    const w = r._wrapper;
    const facts = [
      ['duration', dur(r)], ['started', r.started_at], ['agent', r.agent], ['tool', r.tool], ['tool call id', r.tool_call_id],
      ['provider', r.provider], ['model', r.model], ['request model', r.request_model], ['response id', r.response_id],
      ['finish reasons', Array.isArray(r.finish_reasons) ? r.finish_reasons.join(', ') : r.finish_reasons],
      ['conversation', r.conversation_id], ['cost', r.cost_text],
      ['estimated tokens', r.est_text],
      ['span id', r.span_id], ['parent', r.parent_span_id], ['trace id', v ? r.trace_id : null], ['operation', v ? r.op : null],
      ['span kind', v ? r.span_kind : null],
    ].filter((x) => x[1] != null && x[1] !== '');
    kids.push(h('dl', { class: 'facts' }, ...facts.flatMap(([k, val]) => [h('dt', { text: k }), h('dd', { text: String(val) })])));
    if (w) {
      // The wrapper folded into this call: the other instrumentation's
      // span of the same call (its usage is not counted again).
      kids.push(h('details', { class: 'section wrapper', id: 'wrapper' }, h('summary', { text: 'Wrapper folded in: ' + (w.name || '(unnamed)') }),
        h('dl', { class: 'facts' }, h('dt', { text: 'span id' }), h('dd', { text: String(w.span_id || '') }), h('dt', { text: 'duration' }), h('dd', { text: dur(w) }),
          w.model ? h('dt', { text: 'model' }) : null, w.model ? h('dd', { text: String(w.model) }) : null),
        w.attrs && Object.keys(w.attrs).length ? attrsView(w.attrs) : null));
    }
    const cells = Array.isArray(r.usage_text) ? r.usage_text.filter((p) => Array.isArray(p) && p.length === 2) : [];
    if (cells.length) {
      kids.push(h('div', { class: 'section' }, h('h3', { text: 'Usage' }),
        table('usage', cells.map((c) => String(c[0])), [cells.map((c) => String(c[1]))])));
    }
    // A tool span shows what it was called with and what it returned,
    // wherever its library put them (its args and result, else its input
    // and output; Go adds args and result read from its messages), as
    // pretty JSON or text, never as chat.
    const call = r.kind === 'call';
    const args = call && r.args == null ? r.input : r.args, result = call && r.result == null ? r.output : r.result;
    if (args != null) kids.push(section('Arguments', valueView(args)));
    if (result != null) kids.push(section('Result', valueView(result), sourceCut(r)));
    // Messages as Go read them (semconv.Messages: every dialect in the
    // conventions' shape); a record without that view (an artifact shown
    // as written) shows its fields as they are.
    const c = isObj(r.conversation) ? r.conversation : null;
    if (c) {
      if (Array.isArray(c.system) && c.system.length) kids.push(section('System instructions', h('div', { class: 'msgs' }, msgBox('system', c.system, null))));
      if (Array.isArray(c.input) && c.input.length) kids.push(section('Input messages', messagesView(c.input, toolSpanOf(r))));
      if (Array.isArray(c.output) && c.output.length) kids.push(section('Output messages', messagesView(c.output, toolSpanOf(r))));
    } else if (!call) {
      if (r.system != null) kids.push(section('System instructions', valueView(r.system)));
      if (r.input != null) kids.push(section('Input messages', valueView(r.input)));
      if (r.output != null) kids.push(section('Output messages', valueView(r.output)));
    }
    if (Array.isArray(r.evaluations) && r.evaluations.length) kids.push(section('Evaluations', evalView(r.evaluations)));
    if (r.tools != null && !min) kids.push(section('Tool definitions', toolsView(r.tools)));
    // The application's own log lines written in this span (Go picked
    // them: not GenAI content, which is the span's messages), in time
    // order, each at its offset from the span's start.
    if (Array.isArray(r.logs) && r.logs.length) kids.push(section('Logs', logsView(r)));
    if (!min && r.events && r.events.length) {
      kids.push(section('Events', h('ul', { class: 'events' }, ...r.events.map((e) => h('li', null, h('b', { text: e.name || '(event)' }), ' ', h('span', { class: 'muted', text: e.time || '' }),
        e.attrs ? attrsView(e.attrs) : null)))));
    }
    if (r.attrs && Object.keys(r.attrs).length) {
      // Long keys are cut (the full key is the title), so a value keeps
      // its width; in minimal mode the raw attributes are one click away.
      const list = attrsView(r.attrs);
      const n = Object.keys(r.attrs).length;
      kids.push(min ? h('details', { class: 'section raw-attrs' }, h('summary', { text: 'Attributes (' + n + ')' }), list) : section('Attributes', list));
    }
    if (v) {
      for (const f of ['links', 'resource', 'scope', 'dropped']) if (r[f] != null) kids.push(section(f, valueView(r[f])));
      const raw = {};
      for (const k of Object.keys(r)) if (!k.startsWith('_') && k !== 't0' && k !== 't1' && k !== 'line') raw[k] = r[k];
      kids.push(section('Record (JSON)', valueView(raw)));
    }
    ui.detail.replaceChildren(...kids);
    ui.detail.scrollTop = 0;
  }

  // evalView lists the gen_ai.evaluation.result verdicts on a span, as Go
  // read them (the record's evaluations): name, score, label, explanation.
  function evalView(list) {
    return h('ul', { class: 'evals' }, ...list.map((e) => h('li', { class: 'eval' + (e.error_type ? ' err' : '') },
      h('b', { class: 'eval-name', text: e.name }),
      typeof e.score === 'number' ? h('span', { class: 'eval-score', text: String(e.score) }) : null,
      e.label ? h('span', { class: 'eval-label', text: e.label }) : null,
      e.error_type ? h('span', { class: 'eval-error', text: 'failed: ' + e.error_type }) : null,
      e.explanation ? h('div', { class: 'eval-expl muted', text: e.explanation }) : null)));
  }
  function evalText(e) { return e.name + (typeof e.score === 'number' ? ' ' + e.score : '') + (e.label ? ' ' + e.label : ''); }

  // attrsView lists attributes by key, each value as valueView shows it:
  // a string as its text, so an exception's stack trace reads as lines,
  // not as one JSON string full of \n.
  function logsView(r) {
    return h('ul', { class: 'logs' }, ...r.logs.map((l) => h('li', { class: loud(l) ? 'warn' : null },
      h('span', { class: 'muted', text: '+' + clock(Math.max(0, l.t - r.t0)) }), ' ',
      l.severity ? h('b', { class: 'sev', text: l.severity }) : null, ' ',
      typeof l.body === 'string' ? h('span', { class: 'logbody', text: l.body }) : l.body != null ? valueView(l.body) : null,
      l.attrs && Object.keys(l.attrs).length ? attrsView(l.attrs) : null)));
  }

  // loud is a log record at WARN or above (severity numbers 13–24).
  function loud(l) {
    return (l.severity_number || 0) >= 13;
  }

  function attrsView(attrs) {
    const entries = Object.keys(attrs).sort().map((k) => [k, attrs[k]]);
    return h('dl', { class: 'attrs' }, ...entries.flatMap(([k, val]) => [h('dt', { text: k, title: k }), h('dd', null, valueView(val))]));
  }

  function section(title, body, note) {
    return h('div', { class: 'section' }, h('h3', { text: title }), note || null, body);
  }

  // sourceCut says that the source cut r's output short before agenttrace
  // saw it (the streaming events' truncated and full_length, which the
  // importer keeps as agenttrace.truncated and agenttrace.full_length):
  // what is shown is all there is.
  function sourceCut(r) {
    const a = r.attrs || {};
    if (a['agenttrace.truncated'] !== true) return null;
    const full = Number(a['agenttrace.full_length']);
    return h('div', { class: 'source-cut', text: 'Cut short by the source' + (full > 0 ? ': the full output was ' + num(full) + ' characters' : '') + '; this is all it recorded.' });
  }

  // valueView shows a value as text or pretty JSON, cut at the mode's limit
  // with its full length said, and buttons to show all and to copy.
  function valueView(v) {
    const full = typeof v === 'string' ? pretty(v) : (v === undefined ? '' : typeof v === 'object' ? pretty(v) : String(v));
    const limit = LIMITS[S.mode];
    const pre = h('pre', { class: 'val' });
    const wrap = h('div', { class: 'valwrap' }, pre);
    if (full.length <= limit) {
      pre.textContent = full;
      if (full.length > 200) wrap.append(copyButton(full));
      return wrap;
    }
    pre.textContent = full.slice(0, limit);
    const more = h('div', { class: 'more' },
      h('span', { class: 'muted', text: '… ' + num(full.length - limit) + ' more characters (' + num(full.length) + ' in all) ' }),
      h('button', { type: 'button', class: 'show-all', onclick: (e) => { pre.textContent = full; e.target.parentNode.remove(); } }, 'Show all'),
      copyButton(full));
    wrap.append(more);
    return wrap;
  }

  function copyButton(text) {
    return h('button', {
      type: 'button', class: 'copy', onclick: (e) => {
        const b = e.target;
        const done = () => { b.textContent = 'Copied'; setTimeout(() => { b.textContent = 'Copy'; }, 1200); };
        const fallback = () => {
          const ta = h('textarea', { class: 'offscreen' });
          ta.value = text;
          document.body.append(ta);
          ta.select();
          try { document.execCommand('copy'); done(); } catch (_) { b.textContent = 'Copy failed'; }
          ta.remove();
        };
        if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback); else fallback();
      },
    }, 'Copy');
  }

  // messagesView renders messages in the GenAI conventions' shape,
  // {role, parts: […], finish_reason}, by role: Go put them in that shape.
  // link, when given, finds the tool span of a tool call or result part.
  //
  // As the streaming-events seed's viewer does (auto_collapse_tool_count),
  // a streak of tool calls and their results longer than TOOLS_SHOWN
  // folds what follows into "N more tool calls", one click away (all shown
  // in verbose mode): a loop of forty searches reads as its first few.
  function messagesView(list, link) {
    const out = [];
    let shown = 0; // tool calls shown in the current streak
    let fold = null; // where the streak's later tool messages go
    for (const m of list) {
      if (!isObj(m) || !Array.isArray(m.parts)) {
        shown = 0; fold = null;
        out.push(h('div', { class: 'part other' }, valueView(m)));
        continue;
      }
      const role = String(m.role || 'message');
      const tools = m.parts.length > 0 && m.parts.every(isToolPart);
      const calls = m.parts.filter((p) => p.type === 'tool_call').length;
      if (!tools) { shown = 0; fold = null; }
      // The result of a call still shown stays beside it; the fold starts
      // at the first call past the limit.
      if (tools && S.mode !== 'verbose' && shown >= TOOLS_SHOWN && (calls > 0 || fold)) {
        if (!fold) { fold = foldedTools(); out.push(fold.el); }
        fold.add(msgBox(role, m.parts, m.finish_reason, link), calls);
        continue;
      }
      out.push(msgBox(role, m.parts, m.finish_reason, link, calls > 0 ? TOOLS_SHOWN - shown : Infinity));
      shown += calls;
    }
    return h('div', { class: 'msgs' }, ...out);
  }
  function isToolPart(p) { return isObj(p) && (p.type === 'tool_call' || p.type === 'tool_call_response'); }

  // foldedTools is a closed "N more tool calls" holding what is added to
  // it; it stays out of the page until it holds something.
  function foldedTools() {
    const sum = h('summary');
    const el = h('details', { class: 'more-tools', hidden: true }, sum);
    let calls = 0, items = 0;
    return {
      el,
      add(node, n) {
        calls += n; items++;
        el.hidden = false;
        sum.textContent = calls ? num(calls) + ' more tool call' + (calls === 1 ? '' : 's') : num(items) + ' more tool result' + (items === 1 ? '' : 's');
        el.append(node);
      },
    };
  }

  // msgBox renders one message; past limit tool calls in it, the rest of
  // its tool parts fold (see messagesView).
  function msgBox(role, parts, finish, link, limit = Infinity) {
    const rc = ROLES.has(role) ? role : 'other';
    const kids = [];
    let calls = 0, fold = null;
    for (const p of parts) {
      if (isToolPart(p) && calls >= limit && S.mode !== 'verbose') {
        if (!fold) { fold = foldedTools(); kids.push(fold.el); }
        fold.add(partView(p, link), p.type === 'tool_call' ? 1 : 0);
        continue;
      }
      if (isObj(p) && p.type === 'tool_call') calls++;
      kids.push(partView(p, link));
    }
    return h('div', { class: 'msg role-' + rc },
      h('div', { class: 'role' }, h('span', { text: role }), finish ? h('span', { class: 'muted', text: ' · finish: ' + finish }) : null),
      ...kids);
  }

  // toolSpanOf returns, for the messages of record r, a function from a
  // tool_call or tool_call_response part to the tool span that ran it:
  // the span Go linked it to (the part's tool_span, in r's trace), if any.
  function toolSpanOf(r) {
    const R = run();
    if (!R || !R.model) return null;
    return (p) => (typeof p.tool_span === 'string' && p.tool_span ? R.model.byKey.get((r.trace_id || '') + '/' + p.tool_span) || null : null);
  }

  // toolLink is a button that selects the tool span t.
  function toolLink(t) {
    return h('button', { type: 'button', class: 'tool-link', 'data-span-id': t.span_id || '', title: 'show the tool span', onclick: (e) => { e.stopPropagation(); reveal(t); } }, 'tool span ' + dur(t) + (failed(t) ? ' · error' : '') + ' ↗');
  }

  // partView renders one part of the conventions' message schema.
  function partView(p, link) {
    if (!isObj(p)) return h('div', { class: 'part text', text: String(p) });
    const type = String(p.type || '');
    switch (type) {
      case 'text':
        return h('div', { class: 'part text' }, textView(p.content));
      case 'reasoning':
        return h('details', { class: 'part reasoning', open: S.mode !== 'minimal' }, h('summary', { text: 'Thinking' }), textView(p.content));
      case 'tool_call': {
        const t = link ? link(p) : null;
        return h('div', { class: 'part tool-call' }, h('div', { class: 'call-head' }, h('span', { class: 'arrow', text: '→ ' }), h('b', { text: String(p.name || '(tool)') }), p.id ? h('span', { class: 'muted', text: '  ' + p.id }) : null, t ? toolLink(t) : null),
          valueView(p.arguments != null ? p.arguments : {}));
      }
      case 'tool_call_response': {
        const t = link ? link(p) : null;
        return h('div', { class: 'part tool-resp' }, h('div', { class: 'call-head' }, h('span', { class: 'arrow', text: '← ' }), h('span', { text: 'result' }), p.id ? h('span', { class: 'muted', text: '  ' + p.id }) : null, t ? toolLink(t) : null),
          valueView(p.response));
      }
      default:
        return h('div', { class: 'part other' }, h('div', { class: 'muted', text: type || 'part' }), valueView(p));
    }
  }

  function textView(t) {
    return t == null ? h('span', { class: 'muted', text: '(empty)' }) : valueView(t);
  }

  function toolsView(v) {
    v = asJSON(v);
    if (!Array.isArray(v)) return valueView(v);
    return h('div', null, h('ul', { class: 'tooldefs' }, ...v.map((t) => {
      const fn = isObj(t) && isObj(t.function) ? t.function : t;
      return h('li', null, h('b', { text: String((fn && fn.name) || '(tool)') }), fn && fn.description ? h('span', { class: 'muted', text: ' — ' + fn.description }) : null);
    })), S.mode === 'verbose' ? valueView(v) : null);
  }

  // ---- settings kept across reloads ----------------------------------------------------

  // The filters and layout settings (search, kinds, tool, errors only,
  // detail mode) are kept in localStorage for this page, so a reload (a
  // live run's page opened again) shows the run as it was left. Without
  // storage (turned off, a sandbox) they last for the visit.
  const PREFS_KEY = 'agenttrace:view:' + location.pathname;
  let prefTool = '';
  function savePrefs() {
    try {
      localStorage.setItem(PREFS_KEY, JSON.stringify({ q: ui.search.value, kinds: Array.from(S.kinds), tool: S.tool, errorsOnly: S.errorsOnly, mode: S.mode }));
    } catch (_) { /* no storage: nothing kept */ }
  }
  function loadPrefs() {
    let p = null;
    try { p = JSON.parse(localStorage.getItem(PREFS_KEY) || 'null'); } catch (_) { /* none, or not ours */ }
    if (!isObj(p)) return;
    if (typeof p.q === 'string') { ui.search.value = p.q; S.q = p.q.trim().toLowerCase(); }
    if (Array.isArray(p.kinds)) {
      S.kinds = new Set(KINDS.filter((k) => p.kinds.includes(k)));
      for (const b of ui.kindBoxes) { const i = b.querySelector('input'); i.checked = S.kinds.has(i.dataset.kind); }
    }
    if (typeof p.errorsOnly === 'boolean') { S.errorsOnly = p.errorsOnly; $('errors-only').checked = p.errorsOnly; }
    if (Object.prototype.hasOwnProperty.call(LIMITS, p.mode)) { S.mode = p.mode; ui.mode.value = p.mode; document.body.dataset.mode = p.mode; }
    if (typeof p.tool === 'string') prefTool = p.tool; // set once the run's tools are known (selectRun)
  }

  // ---- live tail (agenttrace serve) -------------------------------------------------------

  // startLive follows a run agenttrace serve is showing: each "record"
  // event says the file grew, and the page fetches the run's view model
  // again (Go reads the file; the events' data is not parsed here), at
  // most one fetch at a time, and shows it in place, keeping the
  // selection, the folds and the filters.
  function startLive() {
    const el = $('at-live');
    const url = el && el.getAttribute('data-url');
    const dataURL = el && el.getAttribute('data-run');
    if (!url || !dataURL || typeof EventSource === 'undefined') return;
    const at = S.runs.length - 1;
    if (at < 0) return;
    let busy = false, again = false;
    const status = h('span', { id: 'live', class: 'live', text: '● live' });
    document.querySelector('header.top').append(status);
    const refresh = () => {
      if (busy) { again = true; return; }
      busy = true;
      fetch(dataURL, { credentials: 'same-origin' }).then((resp) => {
        if (!resp.ok) throw new Error('the server answered ' + resp.status);
        return resp.json();
      }).then((fresh) => {
        if (!isObj(fresh)) return;
        // Follow new rows when the view is at its bottom, not when the
        // user scrolled up to read.
        const sc = ui.scroll, follow = sc.scrollTop + sc.clientHeight >= sc.scrollHeight - ROW;
        const old = S.runs[at];
        fresh.name = old.name;
        normalize(fresh);
        buildModel(fresh);
        S.runs[at] = fresh;
        if (S.cur === at) {
          const sel = S.sel && S.sel._k;
          S.sel = sel ? fresh.model.byKey.get(sel) || null : null;
          renderRunPicker(); renderProblems(); renderCards(); renderTables(); renderAxis(); refilter();
          if (follow) { sc.scrollTop = sc.scrollHeight; renderRows(); }
          if (S.sel) renderDetail();
        } else renderRunPicker();
        document.body.dataset.liveRecords = String(fresh.records.length);
      }).catch((err) => {
        status.textContent = '○ ' + String(err && err.message || err);
      }).finally(() => {
        busy = false;
        if (again) { again = false; refresh(); }
      });
    };
    const es = new EventSource(url);
    es.addEventListener('record', refresh);
    es.addEventListener('reset', () => location.reload());
    // No new data for the server's idle time: Go may now call the run
    // stopped, so its view model is fetched again.
    es.addEventListener('idle', refresh);
    es.onerror = () => { status.textContent = '○ reconnecting'; };
    es.onopen = () => { status.textContent = '● live'; };
  }

  // ---- start ------------------------------------------------------------------------

  buildShell();
  loadPrefs();
  const tParse = performance.now();
  loadEmbedded();
  document.body.dataset.parseMs = (performance.now() - tParse).toFixed(1);
  renderRunPicker();
  window.addEventListener('hashchange', openLink);
  if (S.runs.length) { selectRun(0); openLink(); }
  else {
    renderProblems();
    ui.cards.replaceChildren(h('p', { class: 'muted', text: convertURL ? 'No run here yet: open or drop an artifact, OTLP or Jaeger JSON file.' : 'No run here yet: open or drop an artifact.' }));
  }
  // painted: the summary and the first screen are there; ready: every
  // record is (at once for a run that came whole).
  document.body.dataset.paintMs = (performance.now() - t0).toFixed(1);
  document.body.dataset.painted = '1';
  if (S.embedded.some((R) => R.left > 0)) setTimeout(takeChunks, 0); else loaded();

  // loaded finishes the start once every record is in.
  function loaded() {
    startLive();
    setInterval(tick, 1000);
    // A link to a span the first chunk did not hold.
    if (S.runs.length && !S.sel && location.hash) openLink();
    document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
    document.body.dataset.ready = '1';
  }
})();
