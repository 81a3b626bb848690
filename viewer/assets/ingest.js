// ingest.js turns the text of one file into runs of records, entirely in
// the browser, for the agenttrace viewer (app.js renders what it returns).
// The page's embedded runs come through here too, so there is one parsing
// path for everything the viewer shows.
//
// It reads an agenttrace artifact (JSONL, docs/format.md), OTLP/JSON (one
// document, or one per line as the collector's file exporter writes it) and
// Jaeger JSON (the query API's answer or the Jaeger UI's download).
//
//   ATIngest.parse(text, fileName, dialects) ->
//     { format: "artifact" | "otlp-json" | "otlp-jsonl" | "jaeger" | "unknown",
//       runs: [{ name, meta, records, summary }],
//       problems: [{ file, line, message }] }
//
// A run is one trace (OTLP, Jaeger: as `agenttrace convert --split` would
// write it, runs in start order) or one artifact. meta is the header (for
// OTLP and Jaeger, the one convert would write); summary is the artifact's
// last trailer, or null when it has none, or for OTLP and Jaeger the
// trailer convert would write.
//
// A record has the artifact's record shape (docs/format.md §4; no
// `structured`: a JSON-valued field's type says it), plus t0 and t1 (start
// and end in milliseconds since the Unix epoch, with the sub-millisecond
// fraction), line (the line it is on, when it has one: a record's line, an
// OTLP or Jaeger span's opening line) and, on each event, t. attrs is always
// an object and events always an array; resource and scope are always set,
// resolved against the header, and shared between records (read-only).
// Attribute values are the artifact's typed encoding (§8) as JSON.parse
// gives it: bytes are {"@bytes": base64}, NaN and infinities {"@double": …},
// a map with one "@" key {"@map": …}. JSON-valued fields (args, result,
// system, tools, input, output) are the string the span carried, or plain
// objects and arrays when it carried a structured value.
//
// An artifact line is read as converter reads it, back into a span, and
// that span goes through the same code as an OTLP span: kind and fields are
// recomputed (§12), so every source reads alike.
//
// Agreement with Go. Which attribute becomes which field is the dialect
// table of package semconv, passed in as `dialects` (viewer/dialects.go
// embeds it in the page): nothing of it is copied here. The rules the table
// cannot carry are ported by hand and marked "port of": keep each in step
// with the Go it names. viewer/ingest_test.go runs this file in Chromium
// and compares its records with what Go writes for every payload under
// testdata/.
//
// Safety. Input is only ever data: nothing here touches the DOM, builds
// markup or code, or calls eval. Keys from the input are set with setKey
// (a "__proto__" key stays an ordinary own property) and looked up in Maps
// or with hasOwn. Nesting is bounded, numbers are range-checked, and parse
// catches whatever slips through: it never throws.
const ATIngest = (() => {
  'use strict';

  const MAX_PROBLEMS = 200; // problems listed; the rest are counted in one more
  const MAX_DEPTH = 256; // nesting a line or value may have (converter's scanner: maxDepth)
  const KINDS = new Set(['call', 'inference', 'agent', 'span']);
  const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
  const SPAN_KIND_NAMES = new Map(SPAN_KINDS.map((k, i) => ['SPAN_KIND_' + k.toUpperCase(), i]));
  const STATUS_NAMES = new Map([['STATUS_CODE_UNSET', 0], ['STATUS_CODE_OK', 1], ['STATUS_CODE_ERROR', 2]]);
  const MAX_U64 = (1n << 64n) - 1n;
  const MIN_I64 = -(1n << 63n);
  const MAX_I64 = (1n << 63n) - 1n;
  const NS_PER_MS = 1000000n;
  const NS_PER_S = 1000000000n;
  const textEncoder = new TextEncoder();

  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const own = (o, k) => (isObj(o) && hasOwn(o, k) ? o[k] : undefined);

  // setKey sets o[k] = v as an own, enumerable property even when k is
  // "__proto__", so a key from the input never reaches a prototype.
  function setKey(o, k, v) {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
    else o[k] = v;
  }

  // describe names a value from the input in a message, briefly.
  function describe(v) {
    if (typeof v === 'string') return JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v);
    if (Array.isArray(v)) return 'an array';
    if (v === null) return 'null';
    if (typeof v === 'object') return 'an object';
    return String(v);
  }

  // jsonText is v's JSON text, or a description when it has none to give
  // (JSON.stringify recurses, and input may nest deeper than the stack).
  function jsonText(v) {
    try {
      const s = JSON.stringify(v);
      return s === undefined ? '' : s;
    } catch (_) {
      return describe(v);
    }
  }

  // Problems -------------------------------------------------------------

  function newContext(file) {
    const ctx = { file, problems: [], more: 0 };
    ctx.problem = (line, message) => {
      if (ctx.problems.length < MAX_PROBLEMS) ctx.problems.push({ file, line: line > 0 ? line : 0, message: String(message) });
      else ctx.more++;
    };
    return ctx;
  }

  // Go's strings.TrimSpace: JavaScript's trim differs on U+0085 and U+FEFF.
  const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
  const GO_TRIM = new RegExp('^' + GO_SPACE + '+|' + GO_SPACE + '+$', 'g');
  const GO_BLANK = new RegExp('^' + GO_SPACE + '*$');
  const goTrimSpace = (s) => s.replace(GO_TRIM, '');

  // Numbers ----------------------------------------------------------------

  const INT_RE = /^[+-]?\d+$/;

  // int64 returns v as a Number when it is a 64-bit integer (a JSON number,
  // or a decimal string as OTLP/JSON writes them), else null.
  function int64(v) {
    let b;
    if (typeof v === 'number') {
      if (!Number.isInteger(v)) return null;
      b = BigInt(v);
    } else if (typeof v === 'string' && INT_RE.test(v) && v.length <= 21) {
      b = BigInt(v);
    } else {
      return null;
    }
    return b >= MIN_I64 && b <= MAX_I64 ? Number(b) : null;
  }

  // uint returns v as a BigInt when it is an unsigned integer no larger
  // than max, else null.
  function uint(v, max) {
    let b;
    if (typeof v === 'number') {
      if (!Number.isInteger(v) || v < 0) return null;
      b = BigInt(v);
    } else if (typeof v === 'string' && /^\d{1,20}$/.test(v)) {
      b = BigInt(v);
    } else {
      return null;
    }
    return b <= max ? b : null;
  }
  const U32 = 0xffffffffn;
  const uint32 = (v) => { const b = uint(v, U32); return b === null ? null : Number(b); };

  // goParseFloat is strconv.ParseFloat's grammar for decimal text,
  // including the spellings of infinity and NaN that OTLP/JSON allows.
  function goParseFloat(s) {
    if (/^[+-]?(inf|infinity)$/i.test(s)) return s[0] === '-' ? -Infinity : Infinity;
    if (/^[+-]?nan$/i.test(s)) return NaN;
    if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
    return null;
  }

  // Times --------------------------------------------------------------------

  const TIME_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})?$/;
  const daysIn = (y, m) => (m === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31);

  // parseTime reads an artifact time (docs/format.md §4 "Times") as
  // nanoseconds since the epoch: RFC 3339 with any offset and any number
  // of fractional digits, a time without a zone (UTC), or a JSON number of
  // milliseconds. It returns a BigInt, or a string saying what is wrong.
  // Port of converter's decoder.timestamp and parseTimestamp.
  function parseTime(v) {
    if (typeof v === 'number') {
      if (!(v >= 0) || v > 18446744073709) return `time ${v} out of range`;
      return Number.isInteger(v) ? BigInt(v) * NS_PER_MS : BigInt(Math.trunc(v * 1e6));
    }
    if (typeof v !== 'string') return 'time is neither a string nor a number';
    const m = TIME_RE.exec(v);
    const bad = `bad time ${describe(v)}: want RFC 3339`;
    if (!m) return bad;
    const y = +m[1], mo = +m[2], d = +m[3], hh = +m[4], mi = +m[5], ss = +m[6];
    if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || hh > 23 || mi > 59 || ss > 59) return bad;
    let off = 0;
    if (m[8] && m[8] !== 'Z') {
      const oh = +m[8].slice(1, 3), om = +m[8].slice(4, 6);
      if (oh > 23 || om > 59) return bad;
      off = (oh * 3600 + om * 60) * (m[8][0] === '-' ? -1 : 1);
    }
    // Date.UTC reads years 0-99 as 1900-1999; such times are before 1970 anyway.
    const secs = y < 1969 ? -1 : Date.UTC(y, mo - 1, d, hh, mi, ss) / 1000 - off;
    if (secs < 0) return `time ${describe(v)} is before 1970`;
    const frac = m[7] ? BigInt((m[7] + '00000000').slice(0, 9)) : 0n;
    return BigInt(secs) * NS_PER_S + frac;
  }

  // formatTime writes nanoseconds as the artifact does: RFC 3339, UTC,
  // nine fractional digits. (uint64 nanoseconds end in 2554, well inside
  // what Date handles.)
  function formatTime(ns) {
    const iso = new Date(Number(ns / NS_PER_MS)).toISOString();
    return iso.slice(0, 19) + '.' + (ns % NS_PER_S).toString().padStart(9, '0') + 'Z';
  }

  // toMs is t0/t1: milliseconds with the sub-millisecond fraction kept.
  const toMs = (ns) => Number(ns / NS_PER_MS) + Number(ns % NS_PER_MS) / 1e6;

  // elapsedMs is converter's appendMillis: cut to whole microseconds.
  const elapsedMs = (start, end) => Number((end - start) / 1000n) / 1000;

  // Attribute values ---------------------------------------------------------
  //
  // Attributes read from OTLP and Jaeger are kept typed, {t, v}, until the
  // dialect table has chosen among them: its sources name the type they
  // need. t is one of str, int, dbl, bool, bytes (v: base64), arr (v: typed
  // values), map (v: [key, typed] pairs, in order) and empty.

  const typed = (t, v) => ({ t, v });
  const EMPTY = typed('empty', null);

  // plain is a typed value in the artifact's typed encoding (§8), as
  // JSON.parse gives it back from an artifact line.
  function plain(x) {
    switch (x.t) {
      case 'str': case 'int': case 'bool':
        return x.v;
      case 'dbl':
        return Number.isFinite(x.v) ? x.v : { '@double': Number.isNaN(x.v) ? 'NaN' : x.v > 0 ? '+Inf' : '-Inf' };
      case 'bytes':
        return { '@bytes': x.v };
      case 'arr':
        return x.v.map(plain);
      case 'map': {
        const o = pairsObject(x.v);
        // A map whose one key starts with "@" would read as a tag.
        return x.v.length === 1 && x.v[0][0][0] === '@' ? { '@map': o } : o;
      }
    }
    return null;
  }

  // pairsObject turns [key, typed] pairs into an object; a later duplicate
  // key wins, as JSON.parse of the artifact line would have it.
  function pairsObject(pairs, skip) {
    const o = {};
    for (let i = 0; i < pairs.length; i++) {
      if (skip && skip.has(i)) continue;
      setKey(o, pairs[i][0], plain(pairs[i][1]));
    }
    return o;
  }

  function base64(s) {
    try {
      return btoa(atob(s)); // normalized: standard alphabet, padded
    } catch (_) {
      return null;
    }
  }

  // anyValue reads an OTLP/JSON AnyValue. pdata takes the last value member
  // when there are several; so does this.
  function anyValue(v, depth, bad) {
    if (v === undefined || v === null) return EMPTY;
    if (!isObj(v)) {
      bad(`attribute value is ${describe(v)}, not an AnyValue object`);
      return EMPTY;
    }
    if (depth > MAX_DEPTH) {
      bad(`attribute value nested deeper than ${MAX_DEPTH} levels; left out`);
      return EMPTY;
    }
    let out = EMPTY;
    for (const k of Object.keys(v)) {
      const x = v[k];
      switch (k) {
        case 'stringValue': case 'string_value':
          if (typeof x === 'string') out = typed('str', x);
          else bad(`stringValue is ${describe(x)}`);
          break;
        case 'boolValue': case 'bool_value':
          if (typeof x === 'boolean') out = typed('bool', x);
          else bad(`boolValue is ${describe(x)}`);
          break;
        case 'intValue': case 'int_value': {
          const n = int64(x);
          if (n !== null) out = typed('int', n);
          else {
            bad(`intValue ${describe(x)} is not a 64-bit integer; kept as text`);
            out = typed('str', typeof x === 'string' ? x : describe(x));
          }
          break;
        }
        case 'doubleValue': case 'double_value': {
          const f = typeof x === 'number' ? x : typeof x === 'string' ? goParseFloat(x) : null;
          if (f !== null) out = typed('dbl', f);
          else {
            bad(`doubleValue ${describe(x)} is not a number; kept as text`);
            out = typed('str', typeof x === 'string' ? x : describe(x));
          }
          break;
        }
        case 'bytesValue': case 'bytes_value': {
          const b = typeof x === 'string' ? base64(x) : null;
          if (b !== null) out = typed('bytes', b);
          else {
            bad(`bytesValue ${describe(x)} is not base64; kept as text`);
            out = typed('str', typeof x === 'string' ? x : describe(x));
          }
          break;
        }
        case 'arrayValue': case 'array_value': {
          const vals = own(x, 'values');
          if (vals !== undefined && vals !== null && !Array.isArray(vals)) bad('arrayValue.values is not an array');
          out = typed('arr', Array.isArray(vals) ? vals.map((e) => anyValue(e, depth + 1, bad)) : []);
          break;
        }
        case 'kvlistValue': case 'kvlist_value':
          out = typed('map', keyValues(own(x, 'values'), depth + 1, bad));
          break;
      }
    }
    return out;
  }

  // keyValues reads an OTLP/JSON attribute list into [key, typed] pairs.
  function keyValues(list, depth, bad) {
    const out = [];
    if (list === undefined || list === null) return out;
    if (!Array.isArray(list)) {
      bad('attributes is not an array');
      return out;
    }
    for (const kv of list) {
      const key = own(kv, 'key');
      if (!isObj(kv) || (key !== undefined && typeof key !== 'string')) {
        bad('attribute without a string key; left out');
        continue;
      }
      out.push([key === undefined ? '' : key, anyValue(own(kv, 'value'), depth, bad)]);
    }
    return out;
  }

  // Sizes, for estimated_tokens ------------------------------------------------

  // utf8Length is the byte length of s in UTF-8 (a lone surrogate becomes
  // U+FFFD, 3 bytes, as TextEncoder and Go write it).
  function utf8Length(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  }

  // jsonStringLength is the length of s as converter's appendString writes
  // it: quotes, \" \\ \n \r \t, \u00XX for other controls, \u2028 and \u2029.
  function jsonStringLength(s) {
    let n = 2 + utf8Length(s);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09) n += 1;
      else if (c < 0x20) n += 5;
      else if (c === 0x2028 || c === 0x2029) n += 3;
    }
    return n;
  }

  // goDouble is converter's appendDouble for a finite value: strconv's
  // shortest 'g' form (exponent below -4 or from 6 up), with ".0" added
  // when it has neither a point nor an exponent.
  function goDouble(f) {
    if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0';
    const [mant, e] = Math.abs(f).toExponential().split('e');
    const exp = +e;
    const digits = mant.replace('.', '');
    let s;
    if (exp < -4 || exp >= 6) {
      s = digits[0] + (digits.length > 1 ? '.' + digits.slice(1) : '') + 'e' + (exp < 0 ? '-' : '+') + String(Math.abs(exp)).padStart(2, '0');
    } else if (exp >= 0) {
      s = digits.length <= exp + 1 ? digits.padEnd(exp + 1, '0') : digits.slice(0, exp + 1) + '.' + digits.slice(exp + 1);
    } else {
      s = '0.' + '0'.repeat(-exp - 1) + digits;
    }
    if (f < 0) s = '-' + s;
    return /[.e]/.test(s) ? s : s + '.0';
  }

  // typedLength is the length of a typed value in the artifact's typed
  // encoding: port of converter.ContentSize for a structured value.
  function typedLength(x) {
    switch (x.t) {
      case 'str': return jsonStringLength(x.v);
      case 'int': return String(x.v).length;
      case 'bool': return x.v ? 4 : 5;
      case 'dbl':
        if (Number.isNaN(x.v)) return 17;
        if (!Number.isFinite(x.v)) return 18;
        return goDouble(x.v).length;
      case 'bytes': return 13 + x.v.length;
      case 'arr': return 2 + Math.max(0, x.v.length - 1) + x.v.reduce((n, e) => n + typedLength(e), 0);
      case 'map': {
        const body = 2 + Math.max(0, x.v.length - 1) + x.v.reduce((n, [k, e]) => n + jsonStringLength(k) + 1 + typedLength(e), 0);
        return x.v.length === 1 && x.v[0][0][0] === '@' ? 9 + body : body;
      }
    }
    return 4;
  }

  // The dialect table ------------------------------------------------------------

  const CONDITIONS = new Set(['', 'openinference_tool', 'traceloop_tool', 'traceloop_agent', 'error']);
  const VALUE_TYPES = new Set(['string', 'int', 'double', 'strings', 'json']);
  const compiled = new WeakMap();

  // compileTable checks the table semconv.Table exported (viewer/dialects.go)
  // and indexes it. A source this file cannot honour is reported and never
  // used, so a newer table can only make this reader promote less.
  function compileTable(d) {
    if (isObj(d) && compiled.has(d)) return compiled.get(d);
    const t = { fields: [], byName: new Map(), stringsKeys: new Set(), messages: [] };
    const fields = own(d, 'fields');
    if (!Array.isArray(fields)) {
      t.messages.push('no dialect table: GenAI attributes are not lifted into fields');
    } else {
      if (own(d, 'version') !== 1) t.messages.push(`dialect table version ${describe(own(d, 'version'))}; this page knows version 1`);
      for (const f of fields) {
        const name = own(f, 'name'), type = own(f, 'type'), sources = own(f, 'sources');
        if (typeof name !== 'string' || !VALUE_TYPES.has(type) || !Array.isArray(sources) || sources.length === 0) {
          t.messages.push(`dialect table: field ${describe(name)} is not understood; not lifted`);
          continue;
        }
        const srcs = [];
        for (const s of sources) {
          const key = own(s, 'key'), st = own(s, 'type'), cond = own(s, 'condition') || '';
          if (typeof key !== 'string' || !VALUE_TYPES.has(st) || !CONDITIONS.has(cond)) {
            t.messages.push(`dialect table: source ${describe(key)} of ${name} is not understood; never used`);
            srcs.push({ key: typeof key === 'string' ? key : '', type: 'none', cond: 'never' });
            continue;
          }
          srcs.push({ key, type: st, cond });
          if (st === 'strings') t.stringsKeys.add(key);
        }
        const field = { name, type, sources: srcs, canonical: srcs[0].key };
        t.fields.push(field);
        t.byName.set(name, field);
      }
    }
    if (isObj(d)) compiled.set(d, t);
    return t;
  }

  // Classification -------------------------------------------------------------

  const NOT_STRING = {}; // a lookup's answer for an attribute that is present but not a string
  const INFERENCE_OPS = new Set(['chat', 'text_completion', 'generate_content', 'embeddings', 'retrieval', 'completion', 'generate']);
  const AGENT_OPS = new Set(['invoke_agent', 'create_agent', 'invoke_workflow']);
  const VERCEL_AGENT_OPS = new Set(['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject', 'ai.embed', 'ai.embedMany']);

  // normalizeOp is semconv.NormalizeOperation.
  const normalizeOp = (s) => goTrimSpace(s).toLowerCase();

  // classify decides a span's kind and the dialect that decided it from its
  // name and attributes; get(key) returns a string attribute's value,
  // NOT_STRING for an attribute of another type, undefined when absent.
  // Port of semconv.classifyFacts and vercelKind (semconv/read.go; the
  // comment atop semconv/table.go points back here): keep the two in step.
  // ingest_test.go's matrix of spans holds them together.
  function classify(name, get) {
    const str = (k) => { const v = get(k); return typeof v === 'string' ? v : ''; };
    const op = normalizeOp(str('gen_ai.operation.name'));
    if (INFERENCE_OPS.has(op)) return ['inference', 'gen_ai'];
    if (op === 'execute_tool') return ['call', 'gen_ai'];
    if (AGENT_OPS.has(op)) return ['agent', 'gen_ai'];
    if (get('openinference.span.kind') !== undefined) {
      switch (str('openinference.span.kind').toUpperCase()) {
        case 'LLM': case 'EMBEDDING': case 'RETRIEVER': case 'RERANKER': return ['inference', 'openinference'];
        case 'TOOL': return ['call', 'openinference'];
        case 'AGENT': return ['agent', 'openinference'];
      }
      return ['span', 'openinference'];
    }
    switch (str('traceloop.span.kind').toLowerCase()) {
      case 'workflow': case 'agent': return ['agent', 'traceloop'];
      case 'tool': return ['call', 'traceloop'];
      case 'task': return ['span', 'traceloop'];
    }
    let aiOp = str('ai.operationId');
    if (aiOp === '' && name.startsWith('ai.')) aiOp = name;
    if (aiOp !== '') {
      if (aiOp.endsWith('.doGenerate') || aiOp.endsWith('.doStream') || aiOp.endsWith('.doEmbed')) return ['inference', 'vercel'];
      if (aiOp === 'ai.toolCall') return ['call', 'vercel'];
      if (VERCEL_AGENT_OPS.has(aiOp)) return ['agent', 'vercel'];
    }
    if (str('llm.request.type') !== '') return ['inference', 'traceloop'];
    if (get('gen_ai.tool.name') !== undefined) return ['call', 'gen_ai'];
    // GenAI v1.26 had no operation name: a model and a system mean a model call.
    if (get('gen_ai.system') !== undefined && (get('gen_ai.request.model') !== undefined || get('gen_ai.response.model') !== undefined)) {
      return ['inference', 'gen_ai'];
    }
    return ['span', ''];
  }

  // condHolds is semconv's Reading.condHolds.
  function condHolds(cond, kind, dialect, isErr) {
    switch (cond) {
      case '': return true;
      case 'openinference_tool': return dialect === 'openinference' && kind === 'call';
      case 'traceloop_tool': return dialect === 'traceloop' && kind === 'call';
      case 'traceloop_agent': return dialect === 'traceloop' && kind === 'agent';
      case 'error': return isErr;
    }
    return false;
  }

  // typeMatches is semconv's typeMatches.
  function typeMatches(want, x) {
    switch (want) {
      case 'string': return x.t === 'str';
      case 'int': return x.t === 'int';
      case 'double': return x.t === 'dbl';
      case 'strings': return x.t === 'arr' && x.v.every((e) => e.t === 'str');
      case 'json': return x.t === 'str' || x.t === 'map' || x.t === 'arr';
    }
    return false;
  }

  // acceptable is semconv's Reading.acceptable: the value rules that keep
  // promotion lossless (§6.3).
  function acceptable(field, x, got) {
    switch (field) {
      case 'op': return normalizeOp(x.v) === x.v;
      case 'code': return x.v !== 'error';
      case 'request_model': {
        const model = got.get('model');
        return model !== undefined && model.x.v !== x.v;
      }
    }
    return true;
  }

  // promote reads a span's kind and fields: port of semconv.Read (its
  // resolve walk), over the table passed in.
  function promote(table, name, attrs, isErr) {
    const seen = new Map(); // key -> index of its first occurrence
    for (let i = 0; i < attrs.length; i++) if (!seen.has(attrs[i][0])) seen.set(attrs[i][0], i);
    const get = (k) => {
      const i = seen.get(k);
      if (i === undefined) return undefined;
      const x = attrs[i][1];
      return x.t === 'str' ? x.v : NOT_STRING;
    };
    const [kind, dialect] = classify(name, get);
    const got = new Map(); // field name -> { x: typed value, key, rank }
    const consumed = new Set(); // attribute indexes lifted into fields
    for (const f of table.fields) {
      for (let rank = 0; rank < f.sources.length; rank++) {
        const s = f.sources[rank];
        const i = seen.get(s.key);
        if (i === undefined || consumed.has(i) || !condHolds(s.cond, kind, dialect, isErr)) continue;
        const x = attrs[i][1];
        if (!typeMatches(s.type, x) || !acceptable(f.name, x, got)) continue;
        got.set(f.name, { x, key: s.key, rank });
        consumed.add(i);
        break;
      }
    }
    return { kind, got, consumed };
  }

  // Record fields ----------------------------------------------------------------

  // The promoted fields in the order a record lists them (§4.2); usage.*
  // members go into usage. A field a newer table adds goes last.
  const FIELD_ORDER = ['conversation_id', 'agent', 'agent_id', 'tool', 'tool_call_id', 'tool_type', 'provider', 'model',
    'request_model', 'response_id', 'finish_reasons', 'usage', 'cost', 'args', 'result', 'system', 'tools', 'input', 'output'];
  const JSON_FIELDS = ['args', 'result', 'system', 'tools', 'input', 'output'];

  function fieldValue(type, x) {
    switch (type) {
      case 'strings': return x.t === 'str' ? [x.v] : x.v.map((e) => e.v);
      case 'json': return x.t === 'str' ? x.v : plain(x);
      case 'double': return plain(x);
    }
    return x.v;
  }

  // putFields sets the promoted fields on r in record order.
  function putFields(r, table, got) {
    const placed = new Set(['op', 'code']);
    for (const name of FIELD_ORDER) {
      if (name === 'usage') {
        for (const f of table.fields) {
          if (!f.name.startsWith('usage.')) continue;
          placed.add(f.name);
          const g = got.get(f.name);
          if (g === undefined) continue;
          if (r.usage === undefined) r.usage = {};
          r.usage[f.name.slice(6)] = g.x.v;
        }
        continue;
      }
      placed.add(name);
      const f = table.byName.get(name), g = got.get(name);
      if (f !== undefined && g !== undefined) r[name] = fieldValue(f.type, g.x);
    }
    for (const f of table.fields) {
      const g = got.get(f.name);
      if (placed.has(f.name) || g === undefined) continue;
      const dot = f.name.indexOf('.');
      if (dot < 0) setKey(r, f.name, fieldValue(f.type, g.x));
      else {
        const head = f.name.slice(0, dot);
        if (!isObj(r[head])) setKey(r, head, {});
        setKey(r[head], f.name.slice(dot + 1), fieldValue(f.type, g.x));
      }
    }
  }

  // estimate is a record's estimated_tokens (§12): billed input + output
  // of an inference, for a call the agenttrace.estimated_tokens attribute
  // or its result's size in bytes / 4, rounded up. Port of converter's
  // estimatedTokens and CallEstimate.
  function estimate(kind, usage, estAttr, resultSize) {
    if (kind === 'inference') return usage ? (usage.input_tokens || 0) + (usage.output_tokens || 0) : 0;
    if (kind !== 'call') return 0;
    if (estAttr !== undefined) return estAttr;
    return resultSize === undefined ? 0 : Math.floor((resultSize + 3) / 4);
  }

  // Records from spans (OTLP and Jaeger) -----------------------------------------
  //
  // A span here is { traceId, spanId, parentId, name, kind, start, end
  // (BigInt ns), status, message, attrs ([key, typed] pairs), events,
  // links, traceState, flags, dropped, res, scope, line }, where res is a
  // resource shared by its spans: { attrs (typed pairs), obj (plain),
  // dropped, schema }.

  const ZERO_SPAN = '0000000000000000';

  function spanRecord(sp, table) {
    const isErr = sp.status === 2;
    const p = promote(table, sp.name, sp.attrs, isErr);
    const r = { kind: p.kind, name: sp.name, trace_id: sp.traceId, span_id: sp.spanId };
    if (sp.parentId && sp.parentId !== ZERO_SPAN) r.parent_span_id = sp.parentId;
    if (sp.kind !== 1) r.span_kind = sp.kind >= 0 && sp.kind < SPAN_KINDS.length ? SPAN_KINDS[sp.kind] : sp.kind;
    if (p.got.has('op')) r.op = p.got.get('op').x.v;
    r.started_at = formatTime(sp.start);
    r.finished_at = formatTime(sp.end);
    r.elapsed_ms = elapsedMs(sp.start, sp.end);
    if (isErr) {
      r.ok = false;
      r.code = p.got.has('code') ? p.got.get('code').x.v : 'error';
    } else {
      r.ok = true;
      if (sp.status === 1) r.status = 'ok';
    }
    if (sp.message) r.message = sp.message;
    if (sp.status < 0 || sp.status > 2) r.status_code = sp.status;
    putFields(r, table, p.got);
    let estAttr;
    for (const [k, x] of sp.attrs) {
      if (k === 'agenttrace.estimated_tokens') {
        if (x.t === 'int') estAttr = x.v;
        break;
      }
    }
    const res = p.got.get('result');
    const est = estimate(p.kind, r.usage, estAttr, res === undefined ? undefined : res.x.t === 'str' ? utf8Length(res.x.v) : typedLength(res.x));
    if (est > 0) r.estimated_tokens = est;
    const aliases = {};
    let aliased = false;
    for (const f of table.fields) {
      const g = p.got.get(f.name);
      if (g !== undefined && g.rank > 0) {
        setKey(aliases, f.name, g.key);
        aliased = true;
      }
    }
    if (aliased) r.aliases = aliases;
    r.attrs = pairsObject(sp.attrs, p.consumed);
    r.events = sp.events.map((ev) => {
      const e = { name: ev.name, time: formatTime(ev.time), t: toMs(ev.time), attrs: pairsObject(ev.attrs) };
      if (ev.dropped) e.dropped = ev.dropped;
      return e;
    });
    if (sp.links.length) {
      r.links = sp.links.map((l) => {
        const o = { trace_id: l.traceId, span_id: l.spanId };
        if (l.traceState) o.trace_state = l.traceState;
        if (l.flags) o.flags = l.flags;
        o.attrs = pairsObject(l.attrs);
        if (l.dropped) o.dropped = l.dropped;
        return o;
      });
    }
    if (sp.traceState) r.trace_state = sp.traceState;
    if (sp.flags) r.flags = sp.flags;
    if (sp.dropped.attrs || sp.dropped.events || sp.dropped.links) {
      r.dropped = {};
      if (sp.dropped.attrs) r.dropped.attrs = sp.dropped.attrs;
      if (sp.dropped.events) r.dropped.events = sp.dropped.events;
      if (sp.dropped.links) r.dropped.links = sp.dropped.links;
    }
    r.resource = sp.res.obj;
    if (sp.res.dropped) r.resource_dropped = sp.res.dropped;
    if (sp.res.schema) r.resource_schema_url = sp.res.schema;
    r.scope = sp.scope;
    r.t0 = toMs(sp.start);
    r.t1 = toMs(sp.end);
    if (sp.line > 0) r.line = sp.line;
    return r;
  }

  function cmpBig(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }
  function cmpStr(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // typedAttr returns the first attribute named k, or undefined.
  function typedAttr(pairs, k) {
    for (const [key, x] of pairs) if (key === k) return x;
    return undefined;
  }

  function asString(x) {
    if (x.t === 'str') return x.v;
    if (x.t === 'int' || x.t === 'bool' || x.t === 'dbl') return String(x.v);
    return jsonText(plain(x));
  }

  // spanRuns turns spans into one run per trace id, as `agenttrace convert
  // --split` writes them: records in artifact order (by end, then start,
  // trace and span id), the header converter.MetaFor makes, and the
  // trailer converter's Writer writes. Runs are ordered by their start.
  function spanRuns(spans, table, fileName) {
    const byTrace = new Map();
    for (const sp of spans) {
      let list = byTrace.get(sp.traceId);
      if (list === undefined) byTrace.set(sp.traceId, (list = []));
      list.push(sp);
    }
    const runs = [];
    for (const [traceId, list] of byTrace) {
      list.sort((a, b) => cmpBig(a.end, b.end) || cmpBig(a.start, b.start) || cmpStr(a.traceId, b.traceId) || cmpStr(a.spanId, b.spanId));
      const records = list.map((sp) => spanRecord(sp, table));
      let start = list[0].start;
      for (const sp of list) if (sp.start < start) start = sp.start;
      runs.push({ traceId, start, list, records });
    }
    runs.sort((a, b) => cmpBig(a.start, b.start) || cmpStr(a.traceId, b.traceId));
    return runs.map((run) => {
      const meta = spanMeta(run);
      const name = runs.length > 1 ? `${fileName} [${run.traceId.slice(0, 8)}]` : fileName;
      return { name, meta, records: run.records, summary: tally(run, meta) };
    });
  }

  // spanMeta is converter.MetaFor for one trace's spans (with fillService).
  function spanMeta(run) {
    const first = run.list[0];
    const m = { v: 1, kind: 'meta', started_at: formatTime(run.start) };
    if (!/^0+$/.test(run.traceId)) m.trace_id = run.traceId; // pcommon.TraceID.String of no id is 
    let conv = '', oneConv = true;
    for (const r of run.records) {
      const c = r.conversation_id;
      if (c) {
        if (conv === '') conv = c;
        else if (c !== conv) oneConv = false;
      }
    }
    if (conv && oneConv) m.conversation_id = conv;
    const attrs = first.res.attrs;
    const svc = typedAttr(attrs, 'service.name');
    if (svc !== undefined) m.service = asString(svc);
    m.resource = first.res.obj;
    if (first.res.dropped) m.resource_dropped = first.res.dropped;
    if (first.res.schema) m.resource_schema_url = first.res.schema;
    m.scope = first.scope;
    const tokens = typedAttr(attrs, 'agenttrace.budget.tokens');
    if (tokens !== undefined && tokens.t === 'int') {
      const wt = typedAttr(attrs, 'agenttrace.budget.warn_threshold');
      m.budget = { budget_tokens: tokens.v, warn_threshold: wt !== undefined && wt.t === 'dbl' && wt.v > 0 ? wt.v : 0.8 };
    }
    const red = typedAttr(attrs, 'agenttrace.redacted');
    if (red !== undefined && red.t === 'bool' && red.v) m.redacted = true;
    m.t0 = toMs(run.start);
    return m;
  }

  // tally is the trailer converter's Writer writes on Close: port of
  // converter.Tally (Summary and Budget.Status).
  function tally(run, meta) {
    const s = { kind: 'summary', finished_at: '', complete: true, records: 0, calls: 0, inferences: 0, agents: 0, spans: 0, errors: 0 };
    const tokens = { input: 0, output: 0, cache_read: 0, cache_creation: 0, reasoning: 0, total: 0 };
    let inferred = false, estimated = 0, end = 0n;
    const counter = { call: 'calls', inference: 'inferences', agent: 'agents', span: 'spans' };
    run.records.forEach((r, i) => {
      s.records++;
      s[counter[r.kind]]++;
      if (!r.ok) s.errors++;
      if (r.kind === 'inference' && r.usage) {
        const u = r.usage;
        const add = [u.input_tokens || 0, u.output_tokens || 0, u.cache_read_input_tokens || 0, u.cache_creation_input_tokens || 0, u.reasoning_output_tokens || 0];
        if (add.some((n) => n !== 0)) inferred = true;
        tokens.input += add[0];
        tokens.output += add[1];
        tokens.cache_read += add[2];
        tokens.cache_creation += add[3];
        tokens.reasoning += add[4];
      }
      if (r.kind === 'call') estimated += r.estimated_tokens || 0;
      if (run.list[i].end > end) end = run.list[i].end;
    });
    tokens.total = tokens.input + tokens.output;
    s.finished_at = end > 0n ? formatTime(end) : meta.started_at;
    s.tokens = tokens;
    if (meta.budget) {
      const b = meta.budget.budget_tokens, wt = meta.budget.warn_threshold;
      const spent = inferred ? tokens.total : estimated;
      const over = b > 0 && spent >= b;
      s.budget = { budget_tokens: b, spent, remaining: Math.max(b - spent, 0), over_budget: over, near_budget: !over && b > 0 && spent >= wt * b, warn_threshold: wt };
    }
    s.dropped = 0;
    return s;
  }

  // Positions in whole JSON documents ------------------------------------------------

  // endOfString returns the index just past the JSON string that starts at i.
  function endOfString(s, i) {
    for (let j = i + 1; ;) {
      const q = s.indexOf('"', j);
      if (q < 0) return s.length;
      let bs = 0;
      for (let k = q - 1; k > i && s.charCodeAt(k) === 0x5c; k--) bs++;
      if (bs % 2 === 0) return q + 1;
      j = q + 1;
    }
  }

  // spanLines returns the line of every object that is an element of an
  // array named "spans", in text order: those are the spans of an OTLP or
  // Jaeger document, which JSON.parse hands back without positions. Only
  // pretty-printed documents need it (a one-line document is all line 1).
  function spanLines(text, firstLine) {
    const out = [];
    const stack = []; // per open container: is it the value of a "spans" member?
    let line = firstLine, lastWasSpans = false, afterSpansKey = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      switch (c) {
        case 0x0a: line++; break;
        case 0x22: { // "
          const j = endOfString(text, i);
          lastWasSpans = j - i === 7 && text.startsWith('spans', i + 1);
          afterSpansKey = false;
          i = j - 1;
          break;
        }
        case 0x3a: afterSpansKey = lastWasSpans; lastWasSpans = false; break; // :
        case 0x5b: stack.push(afterSpansKey); afterSpansKey = false; break; // [
        case 0x7b: // {
          if (stack.length && stack[stack.length - 1] === true) out.push(line);
          stack.push(false);
          afterSpansKey = false;
          break;
        case 0x5d: case 0x7d: stack.pop(); break; // ] }
        case 0x2c: lastWasSpans = afterSpansKey = false; break; // ,
      }
    }
    return out;
  }

  // errorLine finds the line a JSON.parse error points at, relative to the
  // text parsed (which starts at line first).
  function errorLine(e, text, first) {
    const msg = String(e && e.message);
    let m = /\(line (\d+) column \d+\)/.exec(msg);
    if (m) return first + Number(m[1]) - 1;
    m = /at position (\d+)/.exec(msg);
    if (m) {
      let n = first;
      const end = Math.min(Number(m[1]), text.length);
      for (let i = text.indexOf('\n'); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
      return n;
    }
    return first;
  }

  // docs splits a text of JSON values into documents: the whole text when it
  // is one value, else one per non-blank line (JSON Lines). A document that
  // does not parse is reported and skipped. pre is the document detect
  // already parsed, if it did.
  function docs(text, ctx, what, pre) {
    if (pre !== undefined) return [pre];
    try {
      return [{ value: JSON.parse(text), line: 1, text }];
    } catch (e) {
      const lines = text.split('\n');
      let first = 0;
      while (first < lines.length && GO_BLANK.test(lines[first])) first++;
      let firstOK = false;
      try {
        JSON.parse(lines[first]);
        firstOK = true;
      } catch (_) {
        // A document spread over lines, with an error somewhere in it.
      }
      if (!firstOK) {
        ctx.problem(errorLine(e, text, 1), `${what}: ${e.message}`);
        return [];
      }
      const out = [];
      lines.forEach((l, i) => {
        if (GO_BLANK.test(l)) return;
        try {
          out.push({ value: JSON.parse(l), line: i + 1, text: l });
        } catch (e2) {
          ctx.problem(i + 1, `${what}: ${e2.message}`);
        }
      });
      return out;
    }
  }

  // lineCounter hands out the lines of a document's spans in the order they
  // are visited, which is their order in the text.
  function lineCounter(doc) {
    const multi = doc.text.indexOf('\n') >= 0;
    const lines = multi ? spanLines(doc.text, doc.line) : null;
    let n = 0;
    return () => (multi ? lines[n++] || doc.line : doc.line);
  }

  // OTLP/JSON --------------------------------------------------------------------

  const pick = (o, camel, snake) => (hasOwn(o, camel) ? o[camel] : own(o, snake));

  // otlpID reads a hex id of n digits; an empty or absent id is all zeros,
  // as pdata reads it. It returns null for anything else.
  function otlpID(v, n) {
    if (v === undefined || v === null || v === '') return '0'.repeat(n);
    if (typeof v !== 'string' || v.length !== n || !/^[0-9a-fA-F]*$/.test(v)) return null;
    return v.toLowerCase();
  }

  function enumValue(v, names) {
    if (typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647) return v;
    if (typeof v === 'string' && names.has(v)) return names.get(v);
    if (v === undefined || v === null) return 0;
    return null;
  }

  function readOTLP(text, ctx, pre) {
    const spans = [];
    for (const doc of docs(text, ctx, 'OTLP/JSON', pre)) {
      const nextLine = lineCounter(doc);
      const td = doc.value;
      if (!isObj(td)) {
        ctx.problem(doc.line, 'OTLP/JSON: not an object');
        continue;
      }
      const rss = pick(td, 'resourceSpans', 'resource_spans');
      if (rss === undefined || rss === null) continue;
      if (!Array.isArray(rss)) {
        ctx.problem(doc.line, `OTLP/JSON: resourceSpans is ${describe(rss)}, not an array`);
        continue;
      }
      for (const rs of rss) {
        if (!isObj(rs)) {
          ctx.problem(doc.line, 'OTLP/JSON: a resourceSpans element is not an object');
          continue;
        }
        const resource = own(rs, 'resource');
        const resAttrs = keyValues(own(resource, 'attributes'), 0, (m) => ctx.problem(doc.line, `OTLP/JSON: resource: ${m}`));
        const res = {
          attrs: resAttrs,
          obj: pairsObject(resAttrs),
          dropped: uint32(pick(resource || {}, 'droppedAttributesCount', 'dropped_attributes_count')) || 0,
          schema: stringOr(pick(rs, 'schemaUrl', 'schema_url')),
        };
        const sss = pick(rs, 'scopeSpans', 'scope_spans');
        if (sss === undefined || sss === null) continue;
        if (!Array.isArray(sss)) {
          ctx.problem(doc.line, 'OTLP/JSON: scopeSpans is not an array');
          continue;
        }
        for (const ss of sss) {
          if (!isObj(ss)) {
            ctx.problem(doc.line, 'OTLP/JSON: a scopeSpans element is not an object');
            continue;
          }
          const scope = otlpScope(own(ss, 'scope'), stringOr(pick(ss, 'schemaUrl', 'schema_url')), (m) => ctx.problem(doc.line, `OTLP/JSON: scope: ${m}`));
          const list = own(ss, 'spans');
          if (list === undefined || list === null) continue;
          if (!Array.isArray(list)) {
            ctx.problem(doc.line, 'OTLP/JSON: spans is not an array');
            continue;
          }
          for (const o of list) {
            if (!isObj(o)) {
              ctx.problem(doc.line, 'OTLP/JSON: a span is not an object');
              continue;
            }
            const sp = otlpSpan(o, nextLine(), ctx);
            if (sp === null) continue;
            sp.res = res;
            sp.scope = scope;
            spans.push(sp);
          }
        }
      }
    }
    return spans;
  }

  const stringOr = (v) => (typeof v === 'string' ? v : '');

  function otlpScope(sc, schema, bad) {
    const out = {};
    const name = own(sc, 'name'), version = own(sc, 'version');
    if (typeof name === 'string' && name) out.name = name;
    if (typeof version === 'string' && version) out.version = version;
    const attrs = keyValues(own(sc, 'attributes'), 0, bad);
    if (attrs.length) out.attrs = pairsObject(attrs);
    const dropped = uint32(pick(sc || {}, 'droppedAttributesCount', 'dropped_attributes_count'));
    if (dropped) out.dropped = dropped;
    if (schema) out.schema_url = schema;
    return out;
  }

  // otlpSpan reads one OTLP/JSON span, or reports it and returns null when
  // it has no usable identity or times (pdata would refuse the file).
  function otlpSpan(o, line, ctx) {
    const rawSpanId = pick(o, 'spanId', 'span_id');
    const label = typeof rawSpanId === 'string' && rawSpanId ? `span ${describe(rawSpanId)}` : 'a span';
    const bad = (m) => ctx.problem(line, `OTLP/JSON: ${label}: ${m}`);
    const traceId = otlpID(pick(o, 'traceId', 'trace_id'), 32);
    const spanId = otlpID(rawSpanId, 16);
    const parentId = otlpID(pick(o, 'parentSpanId', 'parent_span_id'), 16);
    if (traceId === null || spanId === null || parentId === null) {
      bad('trace, span or parent id is not hex of the right length; span skipped');
      return null;
    }
    const start = uint(pick(o, 'startTimeUnixNano', 'start_time_unix_nano') ?? 0, MAX_U64);
    const end = uint(pick(o, 'endTimeUnixNano', 'end_time_unix_nano') ?? 0, MAX_U64);
    if (start === null || end === null) {
      bad('start or end time is not a uint64 of nanoseconds; span skipped');
      return null;
    }
    let name = own(o, 'name');
    if (name !== undefined && typeof name !== 'string') {
      bad(`name is ${describe(name)}`);
      name = undefined;
    }
    let kind = enumValue(own(o, 'kind'), SPAN_KIND_NAMES);
    if (kind === null) {
      bad(`unknown span kind ${describe(own(o, 'kind'))}`);
      kind = 0;
    }
    const st = own(o, 'status');
    let status = enumValue(own(st, 'code'), STATUS_NAMES);
    if (status === null) {
      bad(`unknown status code ${describe(own(st, 'code'))}`);
      status = 0;
    }
    const events = [];
    const evs = own(o, 'events');
    if (Array.isArray(evs)) {
      for (const ev of evs) {
        const t = uint(pick(ev || {}, 'timeUnixNano', 'time_unix_nano') ?? 0, MAX_U64);
        if (!isObj(ev) || t === null) {
          bad('an event is not an object with a uint64 time; left out');
          continue;
        }
        events.push({ name: stringOr(own(ev, 'name')), time: t, attrs: keyValues(own(ev, 'attributes'), 0, bad), dropped: uint32(pick(ev, 'droppedAttributesCount', 'dropped_attributes_count')) || 0 });
      }
    }
    const links = [];
    const ls = own(o, 'links');
    if (Array.isArray(ls)) {
      for (const l of ls) {
        const lt = otlpID(pick(l || {}, 'traceId', 'trace_id'), 32), lsid = otlpID(pick(l || {}, 'spanId', 'span_id'), 16);
        if (!isObj(l) || lt === null || lsid === null) {
          bad('a link has no usable ids; left out');
          continue;
        }
        links.push({ traceId: lt, spanId: lsid, traceState: stringOr(pick(l, 'traceState', 'trace_state')), flags: uint32(own(l, 'flags')) || 0, attrs: keyValues(own(l, 'attributes'), 0, bad), dropped: uint32(pick(l, 'droppedAttributesCount', 'dropped_attributes_count')) || 0 });
      }
    }
    return {
      traceId, spanId, parentId, name: name || '', kind, start, end, status,
      message: stringOr(own(st, 'message')),
      attrs: keyValues(own(o, 'attributes'), 0, bad),
      events, links,
      traceState: stringOr(pick(o, 'traceState', 'trace_state')),
      flags: uint32(own(o, 'flags')) || 0,
      dropped: {
        attrs: uint32(pick(o, 'droppedAttributesCount', 'dropped_attributes_count')) || 0,
        events: uint32(pick(o, 'droppedEventsCount', 'dropped_events_count')) || 0,
        links: uint32(pick(o, 'droppedLinksCount', 'dropped_links_count')) || 0,
      },
      line,
    };
  }

  // Jaeger JSON ----------------------------------------------------------------------
  //
  // Port of importer.ReadJaeger (importer/jaeger.go): the same spans, tags,
  // processes and references. The OTLP -> Jaeger translation writes array
  // attributes as JSON text; a tag the dialect table wants as a list of
  // strings (gen_ai.response.finish_reasons) is read back into that list, as
  // importer's stringList does, so the record shows its finish reasons.

  const JAEGER_MAX_DEPTH = 4;
  const JAEGER_SPAN_KINDS = new Map([['client', 3], ['server', 2], ['producer', 4], ['consumer', 5], ['internal', 1]]);

  // jaegerID reads a hex id right-aligned into n digits (Jaeger drops
  // leading zeros); it returns a string saying what is wrong otherwise.
  function jaegerID(s, n) {
    if (typeof s !== 'string' || s === '') return { err: 'missing' };
    if (s.length > n) return { err: `${describe(s)} is longer than ${n} hex digits` };
    if (!/^[0-9a-fA-F]+$/.test(s)) return { err: `${describe(s)} is not hex` };
    const id = s.toLowerCase().padStart(n, '0');
    if (/^0+$/.test(id)) return { err: 'all zeros' };
    return { id };
  }

  // micros reads a Jaeger time or duration in microseconds as nanoseconds.
  function micros(v) {
    if (v === undefined || v === null) return 0n;
    const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v : null;
    if (text === null) return null;
    if (/^\d+$/.test(text)) {
      const u = BigInt(text);
      return u > MAX_U64 / 1000n ? null : u * 1000n;
    }
    const f = goParseFloat(text);
    if (f === null || !(f >= 0) || f >= 18446744073709551) return null;
    return BigInt(Math.trunc(f * 1000));
  }

  // lenientBool is importer's lenientBool.
  function lenientBool(v) {
    const s = (typeof v === 'string' ? v : jsonText(v === undefined ? null : v)).replace(/^"+|"+$/g, '');
    if (['true', '1', 'True', 'TRUE'].includes(s)) return true;
    if (['false', '0', 'False', 'FALSE'].includes(s)) return false;
    return null;
  }

  const jaegerType = (kv) => (typeof kv.type === 'string' ? kv.type.toLowerCase() : '');

  // jaegerStr is a tag's value when it is a string tag.
  function jaegerStr(kv) {
    const t = jaegerType(kv);
    return (t === '' || t === 'string') && typeof kv.value === 'string' ? kv.value : null;
  }

  // jaegerValue reads a typed Jaeger tag: port of importer's putJaegerKV.
  // A value that does not match its type is kept as text and reported.
  function jaegerValue(kv, bad) {
    const v = kv.value;
    const isStr = typeof v === 'string';
    const text = isStr ? v : v === undefined ? '' : jsonText(v);
    switch (jaegerType(kv)) {
      case 'string':
        if (isStr) return typed('str', v);
        bad('string tag with a value that is not a string');
        break;
      case 'bool': {
        const b = lenientBool(v);
        if (b !== null) return typed('bool', b);
        bad(`bool tag with value ${describe(v)}`);
        break;
      }
      case 'int64': {
        const n = INT_RE.test(text) ? int64(text) : null;
        if (n !== null) return typed('int', n);
        bad(`int64 tag with value ${describe(v)}`);
        break;
      }
      case 'float64': {
        const f = goParseFloat(text);
        if (f !== null) return typed('dbl', f);
        bad(`float64 tag with value ${describe(v)}`);
        break;
      }
      case 'binary':
        if (isStr) {
          const b = /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0 ? base64(v) : null;
          if (b !== null) return typed('bytes', b);
          if (/^([0-9a-fA-F]{2})*$/.test(v)) return typed('bytes', btoa(v.replace(/../g, (h) => String.fromCharCode(parseInt(h, 16)))));
        }
        bad(`binary tag with value ${describe(v)}: want base64`);
        break;
      case '':
        if (isStr) return typed('str', v);
        if (typeof v === 'boolean') return typed('bool', v);
        if (typeof v === 'number') {
          const n = int64(v);
          return n !== null ? typed('int', n) : typed('dbl', v);
        }
        return typed('str', v === undefined ? '' : jsonText(v));
      default:
        bad(`unknown tag type ${describe(kv.type)}`);
    }
    return typed('str', text);
  }

  function readJaeger(text, ctx, table, pre) {
    const spans = [];
    const scopes = new Map(); // one shared scope object per (name, version)
    for (const doc of docs(text, ctx, 'Jaeger JSON', pre)) {
      const nextLine = lineCounter(doc);
      const problem = (line, m) => ctx.problem(line || doc.line, m);

      const value = (v, depth) => {
        if (depth > JAEGER_MAX_DEPTH) return problem(0, 'Jaeger JSON nested too deep');
        if (Array.isArray(v)) return v.forEach((e) => value(e, depth + 1));
        if (v === null) return undefined; // "data": null
        if (isObj(v)) return object(v, depth);
        return problem(0, 'not Jaeger JSON: want an object or an array of traces');
      };

      const object = (o, depth) => {
        const tr = { traceID: '', spans: [], processes: new Map(), isTrace: false };
        let inner = false;
        for (const k of Object.keys(o)) {
          const v = o[k];
          switch (k) {
            case 'data':
              inner = true;
              value(v, depth + 1);
              break;
            case 'errors':
              if (Array.isArray(v)) {
                for (const e of v) problem(0, `jaeger query error ${describe(own(e, 'code'))}: ${stringOr(own(e, 'msg'))} (trace ${stringOr(own(e, 'traceID'))})`);
              }
              break;
            case 'traceID':
              tr.isTrace = true;
              if (typeof v === 'string') tr.traceID = v;
              else problem(0, 'traceID is not a string');
              break;
            case 'spans':
              tr.isTrace = true;
              if (!Array.isArray(v)) problem(0, 'spans: want an array');
              else for (const s of v) tr.spans.push({ s, line: isObj(s) ? nextLine() : doc.line });
              break;
            case 'processes':
              tr.isTrace = true;
              if (!isObj(v)) problem(0, 'processes: want an object');
              else {
                for (const pid of Object.keys(v)) {
                  const p = v[pid];
                  const svc = own(p, 'serviceName'), tags = own(p, 'tags');
                  if (!isObj(p) || (svc !== undefined && typeof svc !== 'string') || (tags !== undefined && tags !== null && !Array.isArray(tags))) {
                    problem(0, `processes: process ${describe(pid)} is not a process`);
                    continue;
                  }
                  tr.processes.set(pid, p);
                }
              }
              break;
          }
        }
        if (tr.isTrace) trace(tr);
        else if (!inner) problem(0, 'not a Jaeger trace: no traceID, spans or data');
      };

      const trace = (tr) => {
        const resources = new Map();
        const resourceFor = (pid, inline, line) => {
          if (isObj(inline)) return resource(inline, line);
          if (resources.has(pid)) return resources.get(pid);
          const p = tr.processes.get(pid);
          if (p === undefined && pid !== '') problem(line, `span's process ${describe(pid)} is not in the trace's processes`);
          const res = resource(p || {}, line);
          resources.set(pid, res);
          return res;
        };
        for (const { s, line } of tr.spans) {
          const sp = jaegerSpan(s, tr.traceID, line, problem, table);
          if (sp === null) continue;
          sp.res = resourceFor(stringOr(own(s, 'processID')), own(s, 'process'), line);
          const key = (sp.scopeName || '') + '\u0000' + (sp.scopeVersion || '');
          if (!scopes.has(key)) {
            const sc = {};
            if (sp.scopeName) sc.name = sp.scopeName;
            if (sp.scopeVersion) sc.version = sp.scopeVersion;
            scopes.set(key, sc);
          }
          sp.scope = scopes.get(key);
          spans.push(sp);
        }
      };

      const resource = (p, line) => {
        const attrs = [];
        const svc = own(p, 'serviceName');
        if (typeof svc === 'string' && svc !== '') attrs.push(['service.name', typed('str', svc)]);
        const tags = own(p, 'tags');
        if (Array.isArray(tags)) {
          for (const kv of tags) {
            if (!isObj(kv) || typeof kv.key !== 'string') continue;
            attrs.push([kv.key, jaegerValue(kv, (m) => problem(line, `process tag ${describe(kv.key)}: ${m}`))]);
          }
        }
        return { attrs, obj: pairsObject(attrs), dropped: 0, schema: '' };
      };

      value(doc.value, 0);
    }
    return spans;
  }

  // jaegerSpan converts one Jaeger span (port of importer's jaegerReader.span
  // and references), or reports it and returns null when it has no usable
  // identity.
  function jaegerSpan(js, traceID, line, problem, table) {
    if (!isObj(js)) {
      problem(line, 'span: not an object');
      return null;
    }
    const sidRaw = own(js, 'spanID');
    const bad = (m) => problem(line, `span ${describe(sidRaw)}: ${m}`);
    for (const k of ['tags', 'logs', 'references', 'warnings']) {
      const v = own(js, k);
      if (v !== undefined && v !== null && !Array.isArray(v)) {
        bad(`${k}: want an array; span skipped`);
        return null;
      }
    }
    const ownTrace = own(js, 'traceID');
    const tid = jaegerID(typeof ownTrace === 'string' && ownTrace !== '' ? ownTrace : traceID, 32);
    if (tid.err) {
      bad(`traceID: ${tid.err}`);
      return null;
    }
    const sid = jaegerID(sidRaw, 16);
    if (sid.err) {
      bad(`spanID: ${sid.err}`);
      return null;
    }
    const sp = {
      traceId: tid.id, spanId: sid.id, parentId: '', name: stringOr(own(js, 'operationName')), kind: 0, // unspecified unless span.kind says
      start: 0n, end: 0n, status: 0, message: '', attrs: [], events: [], links: [],
      traceState: '', flags: 0, dropped: { attrs: 0, events: 0, links: 0 }, line,
    };
    const flags = own(js, 'flags');
    if (flags !== undefined && flags !== null && flags !== '') {
      const f = uint32(typeof flags === 'number' ? flags : typeof flags === 'string' ? flags : NaN);
      if (f === null) bad(`flags: ${describe(flags)} is not a uint32`);
      else sp.flags = f;
    }
    let start = micros(own(js, 'startTime'));
    if (start === null) {
      bad(`startTime: ${describe(own(js, 'startTime'))} is not a number of microseconds`);
      start = 0n;
    }
    let dur = micros(own(js, 'duration'));
    if (dur === null) {
      bad(`duration: ${describe(own(js, 'duration'))} is not a number of microseconds`);
      dur = 0n;
    }
    sp.start = start;
    sp.end = start + dur > MAX_U64 ? MAX_U64 : start + dur;

    const refs = own(js, 'references') || [];
    let parent = refs.findIndex((r) => typeof own(r, 'refType') === 'string' && r.refType.toUpperCase() === 'CHILD_OF');
    if (parent < 0) parent = refs.findIndex((r) => typeof own(r, 'refType') === 'string' && r.refType.toUpperCase() === 'FOLLOWS_FROM');
    refs.forEach((ref, i) => {
      const rt = own(ref, 'traceID');
      const t = rt === undefined || rt === '' ? { id: sp.traceId } : jaegerID(rt, 32);
      if (t.err) return bad(`reference traceID: ${t.err}`);
      const s = jaegerID(own(ref, 'spanID'), 16);
      if (s.err) return bad(`reference spanID: ${s.err}`);
      if (i === parent && t.id === sp.traceId) {
        sp.parentId = s.id;
        return undefined;
      }
      sp.links.push({ traceId: t.id, spanId: s.id, traceState: '', flags: 0, attrs: [['opentracing.ref_type', typed('str', stringOr(own(ref, 'refType')).toLowerCase())]], dropped: 0 });
      return undefined;
    });
    const ps = own(js, 'parentSpanID');
    if (sp.parentId === '' && typeof ps === 'string' && ps !== '' && refs.length === 0) {
      const p = jaegerID(ps, 16);
      if (p.err) bad(`parentSpanID: ${p.err}`);
      else sp.parentId = p.id;
    }

    let statusCode = '', errorTag = false;
    for (const kv of own(js, 'tags') || []) {
      if (!isObj(kv) || typeof kv.key !== 'string') {
        bad('a tag has no string key; left out');
        continue;
      }
      const s = jaegerStr(kv);
      if (s !== null) {
        switch (kv.key) {
          case 'span.kind':
            if (JAEGER_SPAN_KINDS.has(s.toLowerCase())) {
              sp.kind = JAEGER_SPAN_KINDS.get(s.toLowerCase());
              continue;
            }
            break;
          case 'otel.status_code': statusCode = s.toUpperCase(); continue;
          case 'otel.status_description': sp.message = s; continue;
          case 'otel.scope.name': case 'otel.library.name': sp.scopeName = s; continue;
          case 'otel.scope.version': case 'otel.library.version': sp.scopeVersion = s; continue;
          case 'w3c.tracestate': sp.traceState = s; continue;
        }
      }
      if (kv.key === 'error') {
        const b = lenientBool(kv.value);
        if (b !== null) {
          errorTag = b;
          continue;
        }
      }
      let x = jaegerValue(kv, (m) => bad(`tag ${describe(kv.key)}: ${m}`));
      if (x.t === 'str' && table.stringsKeys.has(kv.key)) x = jsonStrings(x);
      sp.attrs.push([kv.key, x]);
    }
    switch (statusCode) {
      case 'OK': sp.status = 1; break;
      case 'ERROR': sp.status = 2; break;
      case '': case 'UNSET': if (errorTag) sp.status = 2; break;
      default: sp.attrs.push(['otel.status_code', typed('str', statusCode)]);
    }
    const warnings = own(js, 'warnings');
    if (Array.isArray(warnings) && warnings.length) sp.attrs.push(['jaeger.warnings', typed('arr', warnings.map((w) => typed('str', stringOr(w))))]);
    for (const l of own(js, 'logs') || []) {
      let ts = micros(own(l, 'timestamp'));
      if (ts === null) {
        bad('log timestamp is not a number of microseconds');
        ts = 0n;
      }
      const ev = { name: 'log', time: ts, attrs: [], dropped: 0 };
      const fields = own(l, 'fields');
      for (const f of Array.isArray(fields) ? fields : []) {
        if (!isObj(f) || typeof f.key !== 'string') continue;
        if (f.key === 'event') {
          const s = jaegerStr(f);
          if (s !== null) {
            ev.name = s;
            continue;
          }
        }
        ev.attrs.push([f.key, jaegerValue(f, (m) => bad(`log field ${describe(f.key)}: ${m}`))]);
      }
      sp.events.push(ev);
    }
    return sp;
  }

  // jsonStrings reads a string that holds a JSON array of strings as that
  // list (how the OTLP -> Jaeger translation writes a string array), and
  // leaves any other string as it is.
  function jsonStrings(x) {
    if (!x.v.startsWith('[')) return x;
    try {
      const a = JSON.parse(x.v);
      if (Array.isArray(a) && a.every((s) => typeof s === 'string')) return typed('arr', a.map((s) => typed('str', s)));
    } catch (_) {
      // Not JSON: the string it is.
    }
    return x;
  }

  // Artifacts -------------------------------------------------------------------------

  const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
  function skipWS(s, i) {
    while (i < s.length && WS.has(s.charCodeAt(i))) i++;
    return i;
  }

  // skipValue returns the index just past the JSON value at i of a line
  // JSON.parse has accepted.
  function skipValue(s, i) {
    const c = s[i];
    if (c === '"') return endOfString(s, i);
    if (c === '{' || c === '[') {
      let depth = 0;
      for (let j = i; j < s.length; j++) {
        const d = s[j];
        if (d === '"') j = endOfString(s, j) - 1;
        else if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          if (--depth === 0) return j + 1;
        }
      }
      return s.length;
    }
    let j = i;
    while (j < s.length && !',}] \t\r\n'.includes(s[j])) j++;
    return j;
  }

  // rawMembers returns the source text of the top-level members of the
  // object on line that are named in want: JSON.parse loses the exact text
  // of an embedded JSON value (§5), and the text is what the span carried.
  function rawMembers(line, want) {
    const out = new Map();
    let i = skipWS(line, 0);
    if (line[i] !== '{') return out;
    i++;
    for (;;) {
      i = skipWS(line, i);
      if (i >= line.length || line[i] === '}') return out;
      if (line[i] === ',') {
        i++;
        continue;
      }
      const kEnd = endOfString(line, i);
      const raw = line.slice(i, kEnd);
      const key = raw.indexOf('\\') < 0 ? raw.slice(1, -1) : JSON.parse(raw);
      i = skipWS(line, skipWS(line, kEnd) + 1);
      const vEnd = skipValue(line, i);
      if (want.has(key)) out.set(key, line.slice(i, vEnd));
      i = vEnd;
    }
  }

  // tooDeep reports whether a line nests deeper than converter's reader
  // allows; it only has to look at lines long enough to.
  function tooDeep(line) {
    if (line.length <= 2 * MAX_DEPTH) return false;
    let depth = 0;
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i);
      if (c === 0x22) i = endOfString(line, i) - 1;
      else if (c === 0x7b || c === 0x5b) {
        if (++depth > MAX_DEPTH) return true;
      } else if (c === 0x7d || c === 0x5d) depth--;
    }
    return false;
  }

  // SHA-256, for the ids of records without OTel identity (§13), which
  // must be converter's so that the same file shows the same spans in the
  // viewer and in `agenttrace convert`. (crypto.subtle is asynchronous.)
  const SHA_K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);
  const SHA_H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const ror = (x, n) => (x >>> n) | (x << (32 - n));

  function sha256(bytes) {
    const n = bytes.length;
    const size = Math.ceil((n + 9) / 64) * 64;
    const buf = new Uint8Array(size);
    buf.set(bytes);
    buf[n] = 0x80;
    const view = new DataView(buf.buffer);
    view.setUint32(size - 8, Math.floor(n / 0x20000000));
    view.setUint32(size - 4, (n << 3) >>> 0);
    const h = new Uint32Array(SHA_H0);
    const w = new Uint32Array(64);
    for (let off = 0; off < size; off += 64) {
      for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + 4 * i);
      for (let i = 16; i < 64; i++) {
        const s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >>> 3);
        const s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >>> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
      }
      let [a, b, c, d, e, f, g, hh] = h;
      for (let i = 0; i < 64; i++) {
        const t1 = (hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + SHA_K[i] + w[i]) | 0;
        const t2 = ((ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        hh = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
      }
      h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
    }
    const out = new Uint8Array(32);
    const ov = new DataView(out.buffer);
    for (let i = 0; i < 8; i++) ov.setUint32(4 * i, h[i]);
    return out;
  }

  const toHex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  const fromHex = (s) => Uint8Array.from(s.match(/../g), (h) => parseInt(h, 16));

  // synthSpanID is converter's synthSpanID: SHA-256(trace id ‖ line number
  // as uint64 big-endian ‖ content), first 8 bytes.
  function synthSpanID(traceHex, lineNo, content) {
    const buf = new Uint8Array(24 + content.length);
    buf.set(fromHex(traceHex), 0);
    new DataView(buf.buffer).setBigUint64(16, BigInt(lineNo));
    buf.set(content, 24);
    return toHex(sha256(buf).subarray(0, 8));
  }

  // synthIDs is converter's synthIDs.derive: the trace and root span ids
  // of a file's records that have none, from the file's first line.
  function synthIDs(firstLine) {
    const pre = textEncoder.encode('agenttrace/synth\u0000');
    const fl = textEncoder.encode(firstLine);
    const buf = new Uint8Array(pre.length + fl.length);
    buf.set(pre);
    buf.set(fl, pre.length);
    const trace = toHex(sha256(buf).subarray(0, 16));
    return { trace, root: synthSpanID(trace, 0, textEncoder.encode('root')) };
  }

  const HEX32 = /^[0-9a-fA-F]{32}$/;
  const HEX16 = /^[0-9a-fA-F]{16}$/;
  const OP_OF_KIND = { call: 'execute_tool', inference: 'chat', agent: 'invoke_agent' };

  // An artifact line is read like converter reads it: back into a span,
  // its fields returned to the attributes they came from, and that span
  // read by spanRecord like any other. So the kind and every field are
  // recomputed (§12), and a record reads the same from any source.
  //
  // Typed values (§8) need the text of numbers, which JSON.parse loses
  // (12 is an int, 12.0 a double), so the members that hold them are read
  // from the line's text with the small parser below; JSON.parse has
  // already checked the line, so it only has to be right on valid JSON.

  class LineError extends Error {}

  // typedReader reads typed values from s, a slice of a valid JSON text.
  // Port of converter's decoder.value, object and tagged.
  function typedReader(s) {
    let i = 0;
    const ws = () => {
      while (i < s.length && WS.has(s.charCodeAt(i))) i++;
    };
    const str = () => {
      const j = endOfString(s, i);
      const raw = s.slice(i, j);
      i = j;
      return raw.indexOf('\\') < 0 ? raw.slice(1, -1) : JSON.parse(raw);
    };
    // members reads the object at i as a map, never as a tag. A repeated
    // key keeps its first place and takes the last value, as pdata's
    // PutEmpty does.
    const members = (depth) => {
      if (s[i] !== '{') throw new LineError('want an object');
      i++;
      const pairs = [];
      const at = new Map();
      for (;;) {
        ws();
        if (s[i] === '}') {
          i++;
          return pairs;
        }
        if (s[i] === ',') {
          i++;
          continue;
        }
        const k = str();
        ws();
        i++; // :
        const v = value(depth + 1);
        if (at.has(k)) pairs[at.get(k)][1] = v;
        else {
          at.set(k, pairs.length);
          pairs.push([k, v]);
        }
      }
    };
    const tag = (k, depth) => {
      ws();
      if (k === '@map') return typed('map', members(depth));
      const v = value(depth);
      if (k === '@bytes' && v.t === 'str') {
        const b = /^[A-Za-z0-9+/]*={0,2}$/.test(v.v) && v.v.length % 4 === 0 ? base64(v.v) : null;
        if (b !== null) return typed('bytes', b);
        throw new LineError('bad base64 in @bytes');
      }
      if (k === '@double' && v.t === 'str') {
        const f = { NaN: NaN, '+Inf': Infinity, Inf: Infinity, '-Inf': -Infinity }[v.v];
        if (f !== undefined) return typed('dbl', f);
        throw new LineError('bad @double');
      }
      throw new LineError(`unknown tag ${describe(k)}`);
    };
    const value = (depth) => {
      if (depth > MAX_DEPTH) throw new LineError(`nesting deeper than ${MAX_DEPTH}`);
      ws();
      const c = s[i];
      if (c === '"') return typed('str', str());
      if (c === '{') {
        // A tag is an object of exactly one '@' key; look ahead to tell.
        const start = i;
        i++;
        ws();
        if (s[i] === '"' && s[i + 1] === '@') {
          const k = str();
          ws();
          i++; // :
          ws();
          const v = i;
          i = skipValue(s, i);
          ws();
          if (s[i] === '}') {
            const end = i + 1;
            i = v;
            const x = tag(k, depth + 1);
            i = end;
            return x;
          }
        }
        i = start;
        return typed('map', members(depth));
      }
      if (c === '[') {
        i++;
        const arr = [];
        for (;;) {
          ws();
          if (s[i] === ']') {
            i++;
            return typed('arr', arr);
          }
          if (s[i] === ',') {
            i++;
            continue;
          }
          arr.push(value(depth + 1));
        }
      }
      if (c === 't') {
        i += 4;
        return typed('bool', true);
      }
      if (c === 'f') {
        i += 5;
        return typed('bool', false);
      }
      if (c === 'n') {
        i += 4;
        return EMPTY;
      }
      const start = i;
      i = skipValue(s, i);
      const text = s.slice(start, i);
      if (!/[.eE]/.test(text)) {
        const n = int64(text);
        if (n === null) throw new LineError(`integer ${text} out of range`);
        return typed('int', n);
      }
      return typed('dbl', Number(text));
    };
    return { value: () => value(1), members: () => (ws(), members(1)) };
  }

  // typedMembers reads an attribute map (attrs, resource, scope attrs): its
  // top level is a map whatever its keys (§8).
  const typedMembers = (text) => (text === undefined ? [] : typedReader(text).members());
  const typedValue = (text) => typedReader(text).value();

  // rawElements returns the source text of each element of a JSON array.
  function rawElements(text) {
    const out = [];
    let i = skipWS(text, 0) + 1;
    for (;;) {
      i = skipWS(text, i);
      if (i >= text.length || text[i] === ']') return out;
      if (text[i] === ',') {
        i++;
        continue;
      }
      const end = skipValue(text, i);
      out.push(text.slice(i, end));
      i = end;
    }
  }

  // putAttr sets an attribute like pcommon.Map's Put: in place when the key
  // is there, else at the end.
  function putAttr(pairs, k, x) {
    const i = pairs.findIndex((p) => p[0] === k);
    if (i >= 0) pairs[i][1] = x;
    else pairs.push([k, x]);
  }
  const getAttr = (pairs, k) => typedAttr(pairs, k);

  // scopeOf reads a scope object {name, version, attrs, dropped, schema_url}
  // as spanRecord and the OTLP reader give it.
  function scopeOf(o, raw) {
    const out = {};
    const name = own(o, 'name'), version = own(o, 'version');
    if (name !== undefined && typeof name !== 'string') throw new LineError('scope: name is not a string');
    if (version !== undefined && typeof version !== 'string') throw new LineError('scope: version is not a string');
    if (name) out.name = name;
    if (version) out.version = version;
    const attrs = typedMembers(rawMembers(raw, new Set(['attrs'])).get('attrs'));
    if (attrs.length) out.attrs = pairsObject(attrs);
    const dropped = own(o, 'dropped');
    if (dropped !== undefined && uint32(dropped) === null) throw new LineError('scope: dropped is not a uint32');
    if (dropped) out.dropped = dropped;
    const schema = own(o, 'schema_url');
    if (typeof schema === 'string' && schema) out.schema_url = schema;
    return out;
  }

  // resourceOf makes a resource as spans share it (see spanRecord).
  function resourceOf(pairs, dropped, schema) {
    return { attrs: pairs, obj: pairsObject(pairs), dropped: dropped || 0, schema: schema || '' };
  }

  const EMPTY_HEADER = Object.freeze({ res: resourceOf([]), scope: Object.freeze({}), start: 0n });

  // readHeader reads a meta line: port of converter's decodeMeta, with the
  // tool-dispatch budget shapes (§3). It returns { meta, res, scope, start }
  // or throws a LineError; fatal marks a version it must not read.
  function readHeader(o, line, lineNo) {
    const v = own(o, 'v');
    if (v !== undefined && (typeof v !== 'number' || int64(v) === null)) throw new LineError('v is not an integer');
    if (v > 1) {
      const e = new LineError(`unsupported artifact version: v=${v}, this reader knows v=1`);
      e.fatal = true;
      throw e;
    }
    if (!hasOwn(o, 'started_at')) throw new LineError('header has no "started_at"');
    const start = parseTime(o.started_at);
    if (typeof start === 'string') throw new LineError(start);
    const m = { v: 1, kind: 'meta', started_at: formatTime(start) };
    for (const k of ['producer', 'core_version', 'trace_id', 'conversation_id', 'service']) {
      const s = own(o, k);
      if (s !== undefined && typeof s !== 'string') throw new LineError(`${k} is not a string`);
      if (s) m[k] = s;
    }
    const raw = rawMembers(line, new Set(['resource', 'scope']));
    if (hasOwn(o, 'resource') && !isObj(o.resource)) throw new LineError('resource: not an object');
    const pairs = typedMembers(raw.get('resource'));
    const dropped = own(o, 'resource_dropped');
    if (dropped !== undefined && uint32(dropped) === null) throw new LineError('resource_dropped is not a uint32');
    const schema = stringOr(own(o, 'resource_schema_url'));
    if (hasOwn(o, 'scope') && !isObj(o.scope)) throw new LineError('scope: not an object');
    const scope = hasOwn(o, 'scope') ? scopeOf(o.scope, raw.get('scope')) : {};
    let tokens = 0, threshold = 0, hasBudget = false;
    const num = (x) => (typeof x === 'number' ? x : 0);
    if (hasOwn(o, 'budget_tokens')) {
      tokens = int64(o.budget_tokens);
      if (tokens === null) throw new LineError('budget_tokens is not an integer');
      hasBudget = true;
    }
    if (hasOwn(o, 'warn_threshold')) threshold = num(o.warn_threshold);
    const b = own(o, 'budget');
    if (typeof b === 'number') {
      tokens = Math.trunc(b);
      hasBudget = true;
    } else if (isObj(b)) {
      hasBudget = true;
      if (hasOwn(b, 'budget_tokens')) tokens = Math.trunc(num(b.budget_tokens));
      else if (hasOwn(b, 'tokens')) tokens = Math.trunc(num(b.tokens));
      if (hasOwn(b, 'warn_threshold')) threshold = num(b.warn_threshold);
    }
    if (hasBudget) m.budget = { budget_tokens: tokens, warn_threshold: threshold > 0 ? threshold : 0.8 };
    if (own(o, 'redacted') === true) m.redacted = true;
    // The header's budget and redaction are resource attributes in OTLP
    // (converter's putHeaderOwned): records that use this resource carry them.
    if (m.budget) {
      if (!getAttr(pairs, 'agenttrace.budget.tokens')) pairs.push(['agenttrace.budget.tokens', typed('int', m.budget.budget_tokens)]);
      if (!getAttr(pairs, 'agenttrace.budget.warn_threshold')) pairs.push(['agenttrace.budget.warn_threshold', typed('dbl', m.budget.warn_threshold)]);
    }
    if (m.redacted && !getAttr(pairs, 'agenttrace.redacted')) pairs.push(['agenttrace.redacted', typed('bool', true)]);
    const res = resourceOf(pairs, dropped, schema);
    m.resource = res.obj;
    if (res.dropped) m.resource_dropped = res.dropped;
    if (res.schema) m.resource_schema_url = res.schema;
    m.scope = scope;
    m.t0 = toMs(start);
    m.line = lineNo;
    return { meta: m, res, scope, start };
  }

  // The members of a record line that hold typed values or raw JSON text.
  const RAW_MEMBERS = new Set(['attrs', 'events', 'links', 'resource', 'scope', 'cost', 'finish_reasons', ...JSON_FIELDS]);

  // readSpan turns a record line into the span it stands for: port of
  // converter's decodeRecord and applyFields, and of fillIdentity for a
  // record without OTel identity (§13). It throws a LineError for a line
  // that is not a valid record.
  function readSpan(o, line, lineNo, st, table) {
    const name = own(o, 'name');
    if (name !== undefined && typeof name !== 'string') throw new LineError('name is not a string');
    const hasTrace = hasOwn(o, 'trace_id'), hasSpan = hasOwn(o, 'span_id');
    const id = (k, re, n) => {
      const v = own(o, k);
      if (v === undefined) return '';
      if (!(typeof v === 'string' && re.test(v))) throw new LineError(`${k} ${describe(v)}: want ${n} hex digits`);
      return v.toLowerCase();
    };
    const sp = {
      traceId: id('trace_id', HEX32, 32) || '0'.repeat(32), spanId: id('span_id', HEX16, 16) || ZERO_SPAN,
      parentId: id('parent_span_id', HEX16, 16), name: name || '', kind: 1, start: 0n, end: 0n, status: 0,
      message: '', attrs: [], events: [], links: [], traceState: '', flags: 0,
      dropped: { attrs: 0, events: 0, links: 0 }, res: st.header.res, scope: st.header.scope, line: lineNo,
    };
    if (hasOwn(o, 'span_kind')) {
      const k = o.span_kind;
      if (typeof k === 'string') {
        sp.kind = SPAN_KINDS.indexOf(k);
        if (sp.kind < 0) throw new LineError(`unknown span_kind ${describe(k)}`);
      } else {
        sp.kind = int64(k);
        if (sp.kind === null || sp.kind < -2147483648 || sp.kind > 2147483647) throw new LineError(`span_kind ${describe(k)} is not a span kind`);
      }
    }
    const time = (k) => {
      const t = parseTime(o[k]);
      if (typeof t === 'string') throw new LineError(`${k}: ${t}`);
      return t;
    };
    const hasStart = hasOwn(o, 'started_at'), hasEnd = hasOwn(o, 'finished_at');
    if (hasStart) sp.start = time('started_at');
    if (hasEnd) sp.end = time('finished_at');
    // Status (converter's applyStatus): status_code, else ok, else status.
    if (hasOwn(o, 'ok') && typeof o.ok !== 'boolean') throw new LineError('ok is not a boolean');
    if (hasOwn(o, 'status_code')) {
      sp.status = int64(o.status_code);
      if (sp.status === null || sp.status < -2147483648 || sp.status > 2147483647) throw new LineError('status_code is not a 32-bit integer');
    } else if (o.ok === false) sp.status = 2;
    else if (own(o, 'status') === 'ok') sp.status = 1;
    const message = own(o, 'message');
    if (message !== undefined && typeof message !== 'string') throw new LineError('message is not a string');
    sp.message = message || '';
    sp.traceState = stringOr(own(o, 'trace_state'));
    if (hasOwn(o, 'flags')) {
      sp.flags = uint32(o.flags);
      if (sp.flags === null) throw new LineError('flags is not a uint32');
    }
    const dropped = own(o, 'dropped');
    for (const k of ['attrs', 'events', 'links']) {
      const n = own(dropped, k);
      if (n === undefined) continue;
      if (uint32(n) === null) throw new LineError(`dropped.${k} is not a uint32`);
      sp.dropped[k] = n;
    }

    let wanted = false;
    for (const k of RAW_MEMBERS) if (hasOwn(o, k)) wanted = true;
    const raw = wanted ? rawMembers(line, RAW_MEMBERS) : new Map();
    if (hasOwn(o, 'attrs') && !isObj(o.attrs)) throw new LineError('attrs is not an object');
    sp.attrs = typedMembers(raw.get('attrs'));

    // The fields go back to the attributes they came from (applyFields),
    // each under its alias or its canonical key.
    const aliases = isObj(own(o, 'aliases')) ? o.aliases : {};
    const structured = new Set(Array.isArray(own(o, 'structured')) ? o.structured : []);
    for (const f of table.fields) {
      let present, member;
      if (f.name.startsWith('usage.')) {
        member = f.name.slice(6);
        present = isObj(own(o, 'usage')) && hasOwn(o.usage, member);
      } else present = hasOwn(o, f.name);
      if (!present) continue;
      const key = typeof own(aliases, f.name) === 'string' ? aliases[f.name] : f.canonical;
      let x;
      switch (f.type) {
        case 'string': {
          const v = o[f.name];
          if (typeof v !== 'string') throw new LineError(`${f.name} is not a string`);
          // code "error" is what a failed span without error.type reads as.
          if (f.name === 'code' && (getAttr(sp.attrs, key) !== undefined || v === 'error')) continue;
          x = typed('str', v);
          break;
        }
        case 'int': {
          const n = int64(member ? o.usage[member] : o[f.name]);
          if (n === null) throw new LineError(`${f.name} is not a 64-bit integer`);
          x = typed('int', n);
          break;
        }
        case 'double':
          x = typeof o[f.name] === 'number' ? typed('dbl', o[f.name]) : typedValue(raw.get(f.name));
          if (typeof o[f.name] !== 'number' && !isObj(o[f.name])) throw new LineError(`${f.name} is not a number`);
          break;
        case 'strings': {
          x = typedValue(raw.get(f.name));
          // A finish reason read from a single-string key goes back as one.
          const src = f.sources.find((s) => s.key === key);
          if (src !== undefined && src.type === 'string' && x.t === 'arr' && x.v.length === 1) x = typed('str', asString(x.v[0]));
          break;
        }
        case 'json': {
          const v = o[f.name];
          if (structured.has(f.name)) x = typedValue(raw.get(f.name));
          else x = typed('str', typeof v === 'string' ? v : raw.get(f.name)); // embedded JSON: the string, byte for byte
          break;
        }
      }
      putAttr(sp.attrs, key, x);
    }

    const list = (k) => {
      const v = own(o, k);
      if (v !== undefined && !Array.isArray(v)) throw new LineError(`${k} is not an array`);
      const texts = v ? rawElements(raw.get(k)) : [];
      return (v || []).map((e, i) => {
        if (!isObj(e)) throw new LineError(`${k}: an element is not an object`);
        return [e, typedMembers(rawMembers(texts[i], new Set(['attrs'])).get('attrs'))];
      });
    };
    for (const [e, attrs] of list('events')) {
      const t = hasOwn(e, 'time') ? parseTime(e.time) : 0n;
      if (typeof t === 'string') throw new LineError(`event time: ${t}`);
      sp.events.push({ name: stringOr(own(e, 'name')), time: t, attrs, dropped: uint32(own(e, 'dropped')) || 0 });
    }
    for (const [l, attrs] of list('links')) {
      const lt = own(l, 'trace_id'), ls = own(l, 'span_id');
      if (!(typeof lt === 'string' && HEX32.test(lt) && typeof ls === 'string' && HEX16.test(ls))) throw new LineError('a link has no valid trace_id and span_id');
      sp.links.push({ traceId: lt.toLowerCase(), spanId: ls.toLowerCase(), traceState: stringOr(own(l, 'trace_state')), flags: uint32(own(l, 'flags')) || 0, attrs, dropped: uint32(own(l, 'dropped')) || 0 });
    }
    if (hasOwn(o, 'resource')) {
      if (!isObj(o.resource)) throw new LineError('resource: not an object');
      const rd = own(o, 'resource_dropped');
      if (rd !== undefined && uint32(rd) === null) throw new LineError('resource_dropped is not a uint32');
      sp.res = resourceOf(typedMembers(raw.get('resource')), rd, stringOr(own(o, 'resource_schema_url')));
    }
    if (hasOwn(o, 'scope')) {
      if (!isObj(o.scope)) throw new LineError('scope: not an object');
      sp.scope = scopeOf(o.scope, raw.get('scope'));
    }

    if (hasTrace && hasSpan) return sp;
    // converter's fillIdentity: ids from the file's content, a name, an
    // operation and the times the record left out.
    if (st.ids === null) st.ids = synthIDs(st.firstLine);
    if (!hasTrace) {
      sp.traceId = st.ids.trace;
      if (sp.parentId === '' || sp.parentId === ZERO_SPAN) {
        sp.parentId = st.ids.root;
        st.root.used = true;
      }
    }
    const kind = o.kind;
    if (!hasSpan) {
      sp.spanId = synthSpanID(sp.traceId, lineNo, textEncoder.encode(line));
      if (hasOwn(o, 'estimated_tokens')) {
        const est = int64(o.estimated_tokens);
        if (est === null) throw new LineError('estimated_tokens is not a 64-bit integer');
        if (!getAttr(sp.attrs, 'agenttrace.estimated_tokens')) sp.attrs.push(['agenttrace.estimated_tokens', typed('int', est)]);
      }
      if (!getAttr(sp.attrs, 'gen_ai.operation.name') && OP_OF_KIND[kind]) sp.attrs.push(['gen_ai.operation.name', typed('str', OP_OF_KIND[kind])]);
    }
    if (name === undefined) {
      const op = getAttr(sp.attrs, 'gen_ai.operation.name');
      sp.name = op ? asString(op) : kind;
      for (const k of ['gen_ai.tool.name', 'gen_ai.agent.name', 'gen_ai.request.model']) {
        const x = getAttr(sp.attrs, k);
        if (x !== undefined) {
          sp.name += ' ' + asString(x);
          break;
        }
      }
    }
    if (hasOwn(o, 'elapsed_ms')) {
      const ms = o.elapsed_ms;
      const ns = typeof ms === 'number' && ms >= 0 && ms < 1.8e13 ? BigInt(Math.trunc(ms * 1e6)) : 0n;
      if (!hasStart && hasEnd) sp.start = sp.end > ns ? sp.end - ns : 0n;
      else if (hasStart && !hasEnd) sp.end = sp.start + ns > MAX_U64 ? MAX_U64 : sp.start + ns;
    }
    if (sp.start > 0n && (st.root.start === 0n || sp.start < st.root.start)) st.root.start = sp.start;
    if (sp.end > st.root.end) st.root.end = sp.end;
    return sp;
  }

  // artifactReader reads an artifact a line at a time, keeping what the
  // lines after the header depend on (the header, the ids of a
  // tool-dispatch file). readArtifact feeds it a whole file; follow (the
  // live page) feeds it lines as they arrive.
  function artifactReader(table) {
    const st = { header: EMPTY_HEADER, headerSeen: false, firstLine: null, ids: null, root: { used: false, start: 0n, end: 0n } };
    const a = { st, meta: null, summary: null, records: [], unknown: new Map(), stopped: false };
    // line reads one line; torn says it is the last one and had no newline.
    a.line = (ctx, raw, lineNo, torn) => {
      if (a.stopped) return;
      const line = raw.endsWith('\r') ? raw.replace(/\r+$/, '') : raw;
      if (GO_BLANK.test(line)) return;
      if (st.firstLine === null) st.firstLine = line;
      const bad = (m) => ctx.problem(lineNo, (torn ? 'torn last line (cut short by a crash?): ' : '') + m);
      let o;
      try {
        o = JSON.parse(line);
      } catch (e) {
        bad(`invalid record: ${e.message}`);
        return;
      }
      if (!isObj(o)) {
        bad('invalid record: not a JSON object');
        return;
      }
      const kind = own(o, 'kind');
      if (typeof kind !== 'string' || kind === '') {
        bad('invalid record: no "kind"');
        return;
      }
      if (kind === 'meta') {
        st.headerSeen = true;
        try {
          const h = readHeader(o, line, lineNo);
          if (a.meta !== null) ctx.problem(lineNo, 'a second header: the lines after it use it');
          a.meta = h.meta;
          st.header = h;
        } catch (e) {
          if (!(e instanceof LineError)) throw e;
          if (e.fatal) {
            ctx.problem(lineNo, e.message);
            a.stopped = true;
            return;
          }
          bad(`header: ${e.message}`);
        }
        return;
      }
      if (!st.headerSeen) {
        st.headerSeen = true;
        ctx.problem(lineNo, 'first line is not a meta header');
      }
      if (kind === 'summary') {
        a.summary = o;
        return;
      }
      if (!KINDS.has(kind)) {
        const u = a.unknown.get(kind);
        if (u) u[0]++;
        else a.unknown.set(kind, [1, lineNo]);
        return;
      }
      try {
        if (tooDeep(line)) throw new LineError(`nesting deeper than ${MAX_DEPTH}`);
        a.records.push(spanRecord(readSpan(o, line, lineNo, st, table), table));
      } catch (e) {
        if (!(e instanceof LineError) && !(e instanceof SyntaxError)) throw e;
        bad(`invalid record: ${e.message}`);
      }
    };
    return a;
  }

  function readArtifact(text, ctx, table, fileName) {
    const a = artifactReader(table);
    const lines = text.split('\n');
    for (let i = 0; i < lines.length && !a.stopped; i++) a.line(ctx, lines[i], i + 1, i === lines.length - 1);
    for (const [kind, [n, line]] of a.unknown) {
      ctx.problem(line, `${n} line${n === 1 ? '' : 's'} of unknown kind ${describe(kind)} skipped`);
    }
    if (a.st.root.used) a.records.push(spanRecord(syntheticRoot(a.st), table));
    if (a.meta === null && a.records.length === 0 && a.summary === null) return [];
    return [{ name: fileName, meta: a.meta, records: a.records, summary: a.summary }];
  }

  // follow reads a growing artifact line by line, for a live page: seed it
  // with the header the page already shows (JSON.stringify of a run's meta
  // is a header line), then push each line as it arrives, with its line
  // number. push returns the records that line made, its problems, and the
  // header and trailer as they stand.
  function follow(fileName, dialects) {
    const file = String(fileName);
    const a = artifactReader(compileTable(dialects));
    const push = (line, lineNo) => {
      const ctx = newContext(file);
      const before = a.records.length;
      try {
        a.line(ctx, String(line), lineNo, false);
      } catch (e) {
        ctx.problem(lineNo, `cannot read: ${e && e.message ? e.message : String(e)}`);
      }
      return { records: a.records.splice(before), problems: ctx.problems, meta: a.meta, summary: a.summary };
    };
    return Object.freeze({ push });
  }

  // syntheticRoot is converter's rootRecord: the invoke_agent span that the
  // records of a file without trace ids hang under.
  function syntheticRoot(st) {
    let start = st.root.start;
    const hs = st.header.start;
    if (hs > 0n && (start === 0n || hs < start)) start = hs;
    return {
      traceId: st.ids.trace, spanId: st.ids.root, parentId: '', name: 'invoke_agent', kind: 1,
      start, end: st.root.end > start ? st.root.end : start, status: 0, message: '',
      attrs: [['gen_ai.operation.name', typed('str', 'invoke_agent')], ['agenttrace.synthesized', typed('bool', true)]],
      events: [], links: [], traceState: '', flags: 0, dropped: { attrs: 0, events: 0, links: 0 },
      res: st.header.res, scope: st.header.scope, line: 0,
    };
  }

  // Detection and parse ------------------------------------------------------------

  // detect tells the format from the content, like converter.Detect and
  // importer.Detect: the keys of the first line's object, or of the whole
  // document when the first line holds no complete value. When it had to
  // parse the whole document, it hands it on as doc.
  function detect(text) {
    let i = 0;
    while (i < text.length && WS.has(text.charCodeAt(i))) i++;
    if (i === text.length) return { format: 'unknown', why: 'empty file' };
    let line = 1;
    for (let j = text.indexOf('\n'); j >= 0 && j < i; j = text.indexOf('\n', j + 1)) line++;
    if (text[i] !== '{' && text[i] !== '[') return { format: 'unknown', why: 'not a JSON object or array', line };
    const nl = text.indexOf('\n', i);
    const first = text.slice(i, nl < 0 ? text.length : nl);
    const onlyLine = GO_BLANK.test(text.slice(nl < 0 ? text.length : nl));
    const keys = (v) => {
      if (Array.isArray(v)) return 'jaeger';
      if (!isObj(v)) return null;
      if (hasOwn(v, 'resourceSpans') || hasOwn(v, 'resource_spans')) return 'otlp';
      if (hasOwn(v, 'kind') || hasOwn(v, 'v')) return 'artifact';
      if (hasOwn(v, 'data') || hasOwn(v, 'traceID') || hasOwn(v, 'spans') || hasOwn(v, 'processes')) return 'jaeger';
      return null;
    };
    let o;
    try {
      o = JSON.parse(first);
    } catch (_) {
      o = undefined;
    }
    if (o !== undefined) {
      const doc = onlyLine ? { value: o, line, text } : undefined;
      switch (keys(o)) {
        case 'otlp': return { format: onlyLine ? 'otlp-json' : 'otlp-jsonl', doc };
        case 'artifact': return { format: 'artifact' };
        case 'jaeger': return { format: 'jaeger', doc };
      }
      return { format: 'unknown', why: 'a JSON value with none of the keys of an artifact line, OTLP/JSON or Jaeger JSON', line };
    }
    if (/^\{\s*"(kind|v)"\s*:/.test(first)) return { format: 'artifact' }; // a torn first line
    try {
      const v = JSON.parse(text);
      const doc = { value: v, line: 1, text };
      switch (keys(v)) {
        case 'otlp': return { format: 'otlp-json', doc };
        case 'jaeger': return { format: 'jaeger', doc };
      }
      return { format: 'unknown', why: 'a JSON document with none of the keys of OTLP/JSON or Jaeger JSON', line };
    } catch (e) {
      // Sniff the keys to say which format is broken.
      const head = text.slice(0, 65536);
      if (/"resource_?[sS]pans"\s*:/.test(head)) return { format: 'otlp-json' };
      if (text[i] === '[' || /"(traceID|data)"\s*:/.test(head)) return { format: 'jaeger' };
      return { format: 'unknown', why: `not JSON: ${e.message}`, line: errorLine(e, text, 1) };
    }
  }

  function parse(text, fileName, dialects) {
    const file = typeof fileName === 'string' ? fileName : String(fileName);
    const ctx = newContext(file);
    let format = 'unknown', runs = [];
    try {
      if (typeof text !== 'string') throw new TypeError('input is not text');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      const table = compileTable(dialects);
      const d = detect(text);
      format = d.format;
      if (format !== 'artifact' && format !== 'unknown') for (const m of table.messages) ctx.problem(0, m);
      switch (format) {
        case 'artifact':
          runs = readArtifact(text, ctx, table, file);
          break;
        case 'otlp-json': case 'otlp-jsonl':
          runs = spanRuns(readOTLP(text, ctx, d.doc), table, file);
          break;
        case 'jaeger':
          runs = spanRuns(readJaeger(text, ctx, table, d.doc), table, file);
          break;
        default:
          ctx.problem(d.line || 1, `not an agenttrace artifact, OTLP/JSON or Jaeger JSON: ${d.why}`);
      }
    } catch (e) {
      // A limit of the engine (memory, stack) or a bug: report it, never throw.
      runs = [];
      ctx.problem(1, `cannot read: ${e && e.message ? e.message : String(e)}`);
    }
    if (ctx.more) ctx.problems.push({ file, line: 0, message: `${ctx.more} more problems not listed` });
    return { format, runs, problems: ctx.problems };
  }

  return Object.freeze({ parse, follow, version: 1 });
})();
