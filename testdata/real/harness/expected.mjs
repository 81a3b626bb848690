// Derives a library's expected.json (ground truth) from the fake server's
// log of what it was asked and what usage it returned (payloads/model-log.jsonl),
// the sink's log of what was exported (payloads/sink-log.jsonl) and the
// script (script.mjs). Never from agenttrace's output.
//
// Token classes are given as the GenAI semantic conventions mean them:
//   input          = all input tokens, INCLUDING cache reads and cache writes
//                    (OpenAI prompt_tokens; Anthropic input_tokens +
//                    cache_read_input_tokens + cache_creation_input_tokens)
//   output         = all output tokens, including reasoning
//   cache_read     = OpenAI prompt_tokens_details.cached_tokens (Responses:
//                    input_tokens_details.cached_tokens); Anthropic cache_read_input_tokens
//   cache_creation = Anthropic cache_creation_input_tokens (OpenAI: 0)
//   reasoning      = OpenAI completion_tokens_details.reasoning_tokens (Anthropic: 0)
// Gemini (usageMetadata): input = promptTokenCount (includes
// cachedContentTokenCount = cache_read); output = candidatesTokenCount +
// thoughtsTokenCount (the API reports thoughts apart); reasoning = thoughtsTokenCount.
// A call whose usage never reached the client (usage_sent false) still lists
// its wire usage but contributes nothing to "tokens".
//
// Usage: node expected.mjs LIBDIR > LIBDIR/expected.json
import fs from "node:fs";
import path from "node:path";
import { PROMPTS, TOOL, ANSWERS } from "./script.mjs";

const libdir = path.resolve(process.argv[2]);
const lib = path.basename(libdir);
const readLines = (f) =>
  fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
const modelLog = readLines(path.join(libdir, "payloads", "model-log.jsonl"));
const sinkLog = readLines(path.join(libdir, "payloads", "sink-log.jsonl"));

const zero = () => ({ input: 0, output: 0, cache_read: 0, cache_creation: 0, reasoning: 0 });

function tokens(e) {
  const t = zero();
  const u = e.usage;
  if (!u || e.status !== 200) return t;
  if (isGemini(e.api)) {
    t.input = u.promptTokenCount;
    t.cache_read = u.cachedContentTokenCount || 0;
    t.reasoning = u.thoughtsTokenCount || 0;
    t.output = (u.candidatesTokenCount || 0) + t.reasoning;
  } else if (e.api === "/v1/messages") {
    t.cache_read = u.cache_read_input_tokens || 0;
    t.cache_creation = u.cache_creation_input_tokens || 0;
    t.input = u.input_tokens + t.cache_read + t.cache_creation;
    t.output = u.output_tokens;
  } else if (e.api === "/v1/responses") {
    t.input = u.input_tokens;
    t.output = u.output_tokens;
    t.cache_read = u.input_tokens_details?.cached_tokens || 0;
    t.reasoning = u.output_tokens_details?.reasoning_tokens || 0;
  } else if (e.api === "/v1/embeddings") {
    t.input = u.prompt_tokens;
  } else {
    t.input = u.prompt_tokens;
    t.output = u.completion_tokens;
    t.cache_read = u.prompt_tokens_details?.cached_tokens || 0;
    t.reasoning = u.completion_tokens_details?.reasoning_tokens || 0;
  }
  return t;
}

function isGemini(api) {
  return api.startsWith("/v1beta/models/");
}

function kind(api) {
  return api === "/v1/embeddings" || /:(batchEmbedContents|embedContent)$/.test(api) ? "embeddings" : "chat";
}

function provider(api) {
  return api === "/v1/messages" ? "anthropic" : isGemini(api) ? "gcp.gemini" : "openai";
}

function callsOf(entries) {
  return entries.map((e) => {
    const c = {
      operation: kind(e.api),
      provider: provider(e.api),
      api: e.api,
      stream: !!e.stream,
      status: e.status,
      request_model: e.request_model ?? null,
      response_model: e.response_model ?? null,
      finish_reason: e.finish_reason ?? null,
      tool_calls: (e.tool_calls || []).map((t) => ({ name: t.name, id: t.id, arguments: t.arguments })),
      usage_sent: e.status === 200 ? e.usage_sent !== false : false,
      tokens: tokens(e),
      wire_usage: e.usage ?? null,
    };
    if (e.text != null) c.text = e.text;
    if (e.inputs != null) c.embedding_inputs = e.inputs;
    if (e.error) c.error = e.error;
    return c;
  });
}

function sum(calls) {
  const t = zero();
  for (const c of calls) if (c.usage_sent) for (const k of Object.keys(t)) t[k] += c.tokens[k];
  return t;
}

function comparable(calls) {
  return JSON.stringify(calls.map((c) => ({ ...c })));
}

const scenarioNames = [...new Set([...modelLog.map((e) => e.scenario), ...sinkLog.map((s) => s.file.split(".")[0])])];
const scenarios = {};
for (const name of scenarioNames) {
  const encs = [...new Set(modelLog.filter((e) => e.scenario === name).map((e) => e.enc))];
  const byEnc = Object.fromEntries(encs.map((enc) => [enc, callsOf(modelLog.filter((e) => e.scenario === name && e.enc === enc))]));
  const ref = byEnc.pb || byEnc[encs[0]] || [];
  for (const enc of encs) {
    if (comparable(byEnc[enc]) !== comparable(ref)) {
      process.stderr.write(`${lib}/${name}: the ${enc} run asked the server something else than the reference run\n`);
      process.exitCode = 1;
    }
  }
  const payloads = {};
  for (const s of sinkLog.filter((s) => s.file.split(".")[0] === name)) {
    const enc = s.file.endsWith(".json") ? "json" : "pb";
    const signal = s.file.split(".")[1];
    ((payloads[enc] ||= {})[signal] ||= []).push(`payloads/${s.file}`);
  }
  const b = ["tool-loop", "stream", "fail", "embed"].find((x) => name.includes(x));
  const tools = {};
  for (const c of ref) for (const t of c.tool_calls) tools[t.name] = (tools[t.name] || 0) + 1;
  const chat = ref.filter((c) => c.operation === "chat");
  const sc = {
    payloads,
    model_calls: ref.length,
    chat_calls: chat.length,
    embedding_calls: ref.length - chat.length,
    failed_model_calls: ref.filter((c) => c.status !== 200).length,
    tool_calls: Object.values(tools).reduce((a, n) => a + n, 0),
    tools,
    models: {
      request: [...new Set(ref.map((c) => c.request_model).filter(Boolean))],
      response: [...new Set(ref.map((c) => c.response_model).filter(Boolean))],
    },
    tokens: sum(ref),
    calls: ref,
  };
  if (b === "tool-loop") {
    Object.assign(sc, { system: PROMPTS.system, prompt: PROMPTS.toolLoop, answer: ANSWERS.toolLoop, tool_result: TOOL.result });
  } else if (b === "stream") {
    Object.assign(sc, { system: PROMPTS.streamSystem, prompt: PROMPTS.stream, answer: ANSWERS.stream });
  } else if (b === "fail") {
    Object.assign(sc, { prompt: PROMPTS.fail, answer: null });
  } else if (b === "embed") {
    Object.assign(sc, { embedding_inputs: PROMPTS.embeddings });
  }
  scenarios[name] = sc;
}

let pkg = {};
try {
  pkg = JSON.parse(fs.readFileSync(path.join(libdir, "package.json"), "utf8"));
} catch {}
let lock = {};
try {
  lock = JSON.parse(fs.readFileSync(path.join(libdir, "package-lock.json"), "utf8")).packages || {};
} catch {}
const versions = {};
for (const name of Object.keys(pkg.dependencies || {})) versions[name] = lock[`node_modules/${name}`]?.version || pkg.dependencies[name];
// A Go capture: the direct requirements of its go.mod.
try {
  const gomod = fs.readFileSync(path.join(libdir, "go.mod"), "utf8");
  for (const m of gomod.matchAll(/^\s+(\S+) (v\S+)\s*$/gm)) if (!m[0].includes("// indirect")) versions[m[1]] = m[2];
} catch {}

// capture.json (optional, hand-written per library): what the payloads are
// known to lack or add compared with the ground truth, found by reading them.
let notes = {};
try {
  notes = JSON.parse(fs.readFileSync(path.join(libdir, "capture.json"), "utf8"));
} catch {}
for (const [name, extra] of Object.entries(notes.scenarios || {})) {
  if (scenarios[name]) scenarios[name].observed = extra;
}

const out = {
  library: lib,
  description: pkg.description || "",
  packages: versions,
  token_semantics:
    "GenAI semantic conventions: input includes cache_read and cache_creation; output includes reasoning; totals sum calls whose usage reached the client",
  source: "derived by harness/expected.mjs from payloads/model-log.jsonl (the fake server's log) and harness/script.mjs",
  notes: notes.notes || [],
  scenarios,
};
process.stdout.write(JSON.stringify(out, null, 2) + "\n");
