// Scripted fake model server and OTLP/HTTP sink on loopback, no dependencies.
//
// Model API (the library under test points its base URL here):
//   POST /m/<lib>/<scenario>/<enc>/v1/chat/completions   OpenAI Chat Completions (JSON and SSE)
//   POST /m/<lib>/<scenario>/<enc>/v1/embeddings         OpenAI Embeddings (float and base64)
//   POST /m/<lib>/<scenario>/<enc>/v1/responses          OpenAI Responses (JSON and SSE)
//   POST /m/<lib>/<scenario>/<enc>/v1/messages           Anthropic Messages (JSON and SSE)
//   POST /m/<lib>/<scenario>/<enc>/v1beta/models/<model>:generateContent        Gemini (JSON)
//   POST /m/<lib>/<scenario>/<enc>/v1beta/models/<model>:streamGenerateContent  Gemini (SSE with alt=sse, else a JSON array)
//   POST /m/<lib>/<scenario>/<enc>/v1beta/models/<model>:batchEmbedContents     Gemini embeddings (no usage, as the API)
//   POST /m/<lib>/<scenario>/<enc>/v1beta/models/<model>:embedContent           Gemini single embedding
// The scenario name selects the script (see script.mjs): names containing
// "tool-loop", "stream", "fail" or "embed". Every call is appended to
// <lib>/payloads/model-log.jsonl: what was asked and what usage was returned.
//
// OTLP sink (the library's own exporter points here):
//   POST /sink/<lib>/<scenario>/[anything/]v1/traces|logs
// saves the body exactly as received (gunzipped if Content-Encoding: gzip,
// which is logged) to <lib>/payloads/<scenario>.<signal>.<pb|json>.
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import { PROMPTS, TOOL, ANSWERS, OPENAI, ANTHROPIC, GEMINI } from "./script.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PORT = Number(process.env.FAKE_PORT || 47320);
const CREATED = 1764000000;
let seq = 0;

function payloadDir(lib) {
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(lib)) throw new Error(`bad lib name ${lib}`);
  const d = path.join(ROOT, lib, "payloads");
  fs.mkdirSync(d, { recursive: true });
  return d;
}

function appendLog(lib, file, obj) {
  fs.appendFileSync(path.join(payloadDir(lib), file), JSON.stringify(obj) + "\n");
}

function behaviour(scenario) {
  for (const b of ["tool-loop", "stream", "fail", "embed"]) if (scenario.includes(b)) return b;
  return "unknown";
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function sendJSON(res, status, obj, headers = {}) {
  const body = JSON.stringify(obj);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

function chunks(text) {
  const words = text.split(" ");
  const out = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(" ") + (i + 3 < words.length ? " " : ""));
  return out;
}

// ---------- OpenAI ----------

function openaiUsage(u) {
  return {
    prompt_tokens: u.prompt_tokens,
    completion_tokens: u.completion_tokens,
    total_tokens: u.prompt_tokens + u.completion_tokens,
    prompt_tokens_details: { cached_tokens: u.cached_tokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: u.reasoning_tokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

function openaiRateLimit(res) {
  sendJSON(
    res,
    429,
    {
      error: {
        message: "Rate limit reached for gpt-4o-mini in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1.",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    },
    { "x-should-retry": "false", "retry-after": "20", "x-request-id": "req_fail_1" },
  );
}

function openaiChat(req, res, body, ctx, log) {
  const b = ctx.behaviour;
  if (b === "fail") {
    openaiRateLimit(res);
    return log({ status: 429, error: "rate_limit_exceeded" });
  }
  let usage, message, finish, text = null, toolCalls = [];
  if (b === "tool-loop") {
    const hasToolResult = (body.messages || []).some((m) => m.role === "tool");
    if (!hasToolResult) {
      usage = OPENAI.toolCall1;
      toolCalls = [{ id: "call_weather_1", type: "function", function: { name: TOOL.name, arguments: JSON.stringify(TOOL.arguments) } }];
      message = { role: "assistant", content: null, tool_calls: toolCalls, refusal: null };
      finish = "tool_calls";
    } else {
      usage = OPENAI.toolCall2;
      text = ANSWERS.toolLoop;
      message = { role: "assistant", content: text, refusal: null };
      finish = "stop";
    }
  } else if (b === "stream") {
    usage = OPENAI.stream;
    text = ANSWERS.stream;
    message = { role: "assistant", content: text, refusal: null };
    finish = "stop";
  } else {
    sendJSON(res, 400, { error: { message: `scenario ${ctx.scenario} has no chat script`, type: "invalid_request_error" } });
    return log({ status: 400 });
  }
  const id = `chatcmpl-${ctx.scenario}-${ctx.callIndex}`;
  const includeUsage = !!(body.stream_options && body.stream_options.include_usage);
  const wireUsage = openaiUsage(usage);
  const entry = {
    status: 200,
    stream: !!body.stream,
    include_usage: includeUsage,
    usage_sent: !body.stream || includeUsage,
    response_model: OPENAI.responseModel,
    usage: wireUsage,
    text,
    tool_calls: toolCalls.map((t) => ({ name: t.function.name, arguments: t.function.arguments, id: t.id })),
    finish_reason: finish,
  };
  if (!body.stream) {
    sendJSON(res, 200, {
      id,
      object: "chat.completion",
      created: CREATED,
      model: OPENAI.responseModel,
      system_fingerprint: "fp_fake01",
      service_tier: "default",
      choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
      usage: wireUsage,
    });
    return log(entry);
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const base = { id, object: "chat.completion.chunk", created: CREATED, model: OPENAI.responseModel, system_fingerprint: "fp_fake01", service_tier: "default" };
  const send = (o) => res.write(`data: ${JSON.stringify(o)}\n\n`);
  const u = includeUsage ? { usage: null } : {};
  if (toolCalls.length) {
    send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: null, tool_calls: toolCalls.map((t, i) => ({ index: i, ...t })) }, logprobs: null, finish_reason: null }], ...u });
  } else {
    send({ ...base, choices: [{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }], ...u });
    for (const c of chunks(text)) send({ ...base, choices: [{ index: 0, delta: { content: c }, logprobs: null, finish_reason: null }], ...u });
  }
  send({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: finish }], ...u });
  if (includeUsage) send({ ...base, choices: [], usage: wireUsage });
  res.write("data: [DONE]\n\n");
  res.end();
  return log(entry);
}

// ---------- OpenAI Responses ----------

function responsesUsage(u) {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens },
    total_tokens: u.prompt_tokens + u.completion_tokens,
  };
}

function openaiResponses(req, res, body, ctx, log) {
  const b = ctx.behaviour;
  if (b === "fail") {
    openaiRateLimit(res);
    return log({ status: 429, error: "rate_limit_exceeded" });
  }
  const id = `resp_${ctx.scenario.replace(/[^a-z0-9]/g, "")}${ctx.callIndex}`;
  let usage, output, text = null, toolCalls = [], finish;
  if (b === "tool-loop") {
    const items = Array.isArray(body.input) ? body.input : [];
    if (!items.some((i) => i.type === "function_call_output")) {
      usage = OPENAI.toolCall1;
      toolCalls = [{ id: "fc_weather_1", call_id: "call_weather_1", name: TOOL.name, arguments: JSON.stringify(TOOL.arguments) }];
      output = toolCalls.map((t) => ({ type: "function_call", status: "completed", ...t }));
      finish = "tool_calls";
    } else {
      usage = OPENAI.toolCall2;
      text = ANSWERS.toolLoop;
      finish = "stop";
    }
  } else if (b === "stream") {
    usage = OPENAI.stream;
    text = ANSWERS.stream;
    finish = "stop";
  } else {
    sendJSON(res, 400, { error: { message: `scenario ${ctx.scenario} has no responses script`, type: "invalid_request_error" } });
    return log({ status: 400 });
  }
  const msgId = `msg_${id}`;
  if (text != null) output = [{ type: "message", id: msgId, status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] }];
  const wireUsage = responsesUsage(usage);
  const response = (status, out, u) => ({
    id, object: "response", created_at: CREATED, status, background: false, error: null, incomplete_details: null,
    instructions: body.instructions ?? null, max_output_tokens: null, model: OPENAI.responseModel, output: out,
    parallel_tool_calls: true, previous_response_id: null, reasoning: { effort: null, summary: null }, service_tier: "default",
    store: true, temperature: 1, text: { format: { type: "text" } }, tool_choice: "auto", tools: body.tools || [], top_p: 1,
    truncation: "disabled", usage: u, user: null, metadata: {},
  });
  const entry = {
    status: 200, stream: !!body.stream, usage_sent: true, response_model: OPENAI.responseModel, usage: wireUsage, text,
    tool_calls: toolCalls.map((t) => ({ name: t.name, arguments: t.arguments, id: t.call_id })), finish_reason: finish,
  };
  if (!body.stream) {
    sendJSON(res, 200, response("completed", output, wireUsage));
    return log(entry);
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  let n = 0;
  const ev = (type, o) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...o })}\n\n`);
  ev("response.created", { response: response("in_progress", [], null) });
  ev("response.in_progress", { response: response("in_progress", [], null) });
  output.forEach((item, oi) => {
    if (item.type === "message") {
      ev("response.output_item.added", { output_index: oi, item: { ...item, status: "in_progress", content: [] } });
      ev("response.content_part.added", { item_id: item.id, output_index: oi, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
      for (const c of chunks(text)) ev("response.output_text.delta", { item_id: item.id, output_index: oi, content_index: 0, delta: c, logprobs: [] });
      ev("response.output_text.done", { item_id: item.id, output_index: oi, content_index: 0, text, logprobs: [] });
      ev("response.content_part.done", { item_id: item.id, output_index: oi, content_index: 0, part: item.content[0] });
    } else {
      ev("response.output_item.added", { output_index: oi, item: { ...item, status: "in_progress", arguments: "" } });
      ev("response.function_call_arguments.delta", { item_id: item.id, output_index: oi, delta: item.arguments });
      ev("response.function_call_arguments.done", { item_id: item.id, output_index: oi, arguments: item.arguments });
    }
    ev("response.output_item.done", { output_index: oi, item });
  });
  ev("response.completed", { response: response("completed", output, wireUsage) });
  res.end();
  return log(entry);
}

function embeddingVector(i) {
  const v = [];
  for (let k = 0; k < 8; k++) v.push(Math.round(Math.sin(i * 8 + k + 1) * 1e4) / 1e4);
  return v;
}

function openaiEmbeddings(req, res, body, ctx, log) {
  if (ctx.behaviour === "fail") {
    openaiRateLimit(res);
    return log({ status: 429, error: "rate_limit_exceeded" });
  }
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const n = inputs.length;
  const tokens = n * OPENAI.embeddingTokensPerInput;
  const b64 = body.encoding_format === "base64";
  const data = inputs.map((_, i) => {
    const v = embeddingVector(i);
    return { object: "embedding", index: i, embedding: b64 ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v };
  });
  const usage = { prompt_tokens: tokens, total_tokens: tokens };
  sendJSON(res, 200, { object: "list", data, model: OPENAI.embeddingModel, usage });
  return log({ status: 200, inputs: n, encoding_format: body.encoding_format || "float", response_model: OPENAI.embeddingModel, usage });
}

// ---------- Anthropic ----------

function anthropicUsage(u) {
  return {
    input_tokens: u.input_tokens,
    cache_creation_input_tokens: u.cache_creation_input_tokens,
    cache_read_input_tokens: u.cache_read_input_tokens,
    output_tokens: u.output_tokens,
    service_tier: "standard",
  };
}

function anthropicMessages(req, res, body, ctx, log) {
  const b = ctx.behaviour;
  if (b === "fail") {
    sendJSON(
      res,
      429,
      { type: "error", error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your per-minute rate limit." } },
      { "x-should-retry": "false", "retry-after": "20", "request-id": "req_fail_1" },
    );
    return log({ status: 429, error: "rate_limit_error" });
  }
  let usage, content, stop, text = null, toolCalls = [];
  if (b === "tool-loop") {
    const hasToolResult = (body.messages || []).some(
      (m) => Array.isArray(m.content) && m.content.some((c) => c.type === "tool_result"),
    );
    if (!hasToolResult) {
      usage = ANTHROPIC.toolCall1;
      toolCalls = [{ type: "tool_use", id: "toolu_weather_1", name: TOOL.name, input: TOOL.arguments }];
      content = toolCalls;
      stop = "tool_use";
    } else {
      usage = ANTHROPIC.toolCall2;
      text = ANSWERS.toolLoop;
      content = [{ type: "text", text }];
      stop = "end_turn";
    }
  } else if (b === "stream") {
    usage = ANTHROPIC.stream;
    text = ANSWERS.stream;
    content = [{ type: "text", text }];
    stop = "end_turn";
  } else {
    sendJSON(res, 400, { type: "error", error: { type: "invalid_request_error", message: `scenario ${ctx.scenario} has no messages script` } });
    return log({ status: 400 });
  }
  const id = `msg_${ctx.scenario.replace(/[^a-z0-9]/g, "")}${ctx.callIndex}`;
  const wireUsage = anthropicUsage(usage);
  const entry = {
    status: 200,
    stream: !!body.stream,
    usage_sent: true,
    response_model: ANTHROPIC.responseModel,
    usage: wireUsage,
    text,
    tool_calls: toolCalls.map((t) => ({ name: t.name, arguments: JSON.stringify(t.input), id: t.id })),
    finish_reason: stop,
  };
  if (!body.stream) {
    sendJSON(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model: ANTHROPIC.responseModel,
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: wireUsage,
    });
    return log(entry);
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const ev = (type, o) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`);
  ev("message_start", {
    message: {
      id, type: "message", role: "assistant", model: ANTHROPIC.responseModel, content: [], stop_reason: null, stop_sequence: null,
      usage: { ...wireUsage, output_tokens: 1 },
    },
  });
  content.forEach((c, i) => {
    if (c.type === "text") {
      ev("content_block_start", { index: i, content_block: { type: "text", text: "" } });
      for (const part of chunks(c.text)) ev("content_block_delta", { index: i, delta: { type: "text_delta", text: part } });
    } else {
      ev("content_block_start", { index: i, content_block: { type: "tool_use", id: c.id, name: c.name, input: {} } });
      ev("content_block_delta", { index: i, delta: { type: "input_json_delta", partial_json: JSON.stringify(c.input) } });
    }
    ev("content_block_stop", { index: i });
  });
  ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  ev("message_stop", {});
  res.end();
  return log(entry);
}

// ---------- Gemini ----------

function geminiUsage(u) {
  const usage = {
    promptTokenCount: u.promptTokenCount,
    candidatesTokenCount: u.candidatesTokenCount,
    totalTokenCount: u.promptTokenCount + u.candidatesTokenCount + u.thoughtsTokenCount,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: u.promptTokenCount }],
  };
  if (u.cachedContentTokenCount) {
    usage.cachedContentTokenCount = u.cachedContentTokenCount;
    usage.cacheTokensDetails = [{ modality: "TEXT", tokenCount: u.cachedContentTokenCount }];
  }
  if (u.thoughtsTokenCount) usage.thoughtsTokenCount = u.thoughtsTokenCount;
  return usage;
}

function geminiRateLimit(res) {
  sendJSON(
    res,
    429,
    {
      error: {
        code: 429,
        message: "Resource has been exhausted (e.g. check quota).",
        status: "RESOURCE_EXHAUSTED",
      },
    },
    { "retry-after": "20" },
  );
}

// api: /v1beta/models/<model>:<method>
function gemini(req, res, body, ctx, log, api, query) {
  const m = /^\/v1beta\/models\/([^:/]+):(\w+)$/.exec(api);
  const model = m[1];
  const method = m[2];
  if (ctx.behaviour === "fail") {
    geminiRateLimit(res);
    return log({ status: 429, error: "RESOURCE_EXHAUSTED", request_model: model });
  }
  if (method === "batchEmbedContents" || method === "embedContent") {
    const reqs = method === "embedContent" ? [body] : body.requests || [];
    const embeddings = reqs.map((_, i) => ({ values: embeddingVector(i) }));
    sendJSON(res, 200, method === "embedContent" ? { embedding: embeddings[0] } : { embeddings });
    return log({ status: 200, inputs: reqs.length, request_model: model, response_model: null, usage: null, usage_sent: false });
  }
  const b = ctx.behaviour;
  let usage, parts, finish = "STOP", text = null, toolCalls = [];
  if (b === "tool-loop") {
    const hasToolResult = (body.contents || []).some((c) => (c.parts || []).some((p) => p.functionResponse));
    if (!hasToolResult) {
      usage = GEMINI.toolCall1;
      toolCalls = [{ name: TOOL.name, args: TOOL.arguments }];
      parts = toolCalls.map((t) => ({ functionCall: t }));
    } else {
      usage = GEMINI.toolCall2;
      text = ANSWERS.toolLoop;
      parts = [{ text }];
    }
  } else if (b === "stream") {
    usage = GEMINI.stream;
    text = ANSWERS.stream;
    parts = [{ text }];
  } else {
    sendJSON(res, 400, { error: { code: 400, message: `scenario ${ctx.scenario} has no gemini script`, status: "INVALID_ARGUMENT" } });
    return log({ status: 400, request_model: model });
  }
  const wireUsage = geminiUsage(usage);
  const responseId = `gemini-${ctx.scenario.replace(/[^a-z0-9]/g, "")}${ctx.callIndex}`;
  const streamed = method === "streamGenerateContent";
  const entry = {
    status: 200,
    stream: streamed,
    usage_sent: true,
    request_model: model,
    response_model: GEMINI.responseModel,
    usage: wireUsage,
    text,
    // Gemini function calls carry no id; the name is what links the response.
    tool_calls: toolCalls.map((t) => ({ name: t.name, arguments: JSON.stringify(t.args), id: null })),
    finish_reason: finish,
  };
  const candidate = (p, fin) => ({ content: { role: "model", parts: p }, ...(fin ? { finishReason: fin } : {}), index: 0 });
  if (!streamed) {
    sendJSON(res, 200, { candidates: [candidate(parts, finish)], usageMetadata: wireUsage, modelVersion: GEMINI.responseModel, responseId });
    return log(entry);
  }
  // Every chunk carries the prompt count; the last one the whole usage.
  const pieces = text != null ? chunks(text).map((c) => [{ text: c }]) : [parts];
  const out = pieces.map((p, i) => {
    const last = i === pieces.length - 1;
    const u = last ? wireUsage : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount, promptTokensDetails: wireUsage.promptTokensDetails };
    return { candidates: [candidate(p, last ? finish : null)], usageMetadata: u, modelVersion: GEMINI.responseModel, responseId };
  });
  if (query.get("alt") === "sse") {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    for (const o of out) res.write(`data: ${JSON.stringify(o)}\r\n\r\n`);
    res.end();
  } else sendJSON(res, 200, out);
  return log(entry);
}

// ---------- OTLP sink ----------

const written = new Set();

function sink(req, res, raw, parts) {
  const [lib, scenario] = parts;
  const signal = parts[parts.length - 1];
  if (!["traces", "logs", "metrics"].includes(signal)) {
    res.writeHead(404).end();
    return;
  }
  let body = raw;
  const enc = req.headers["content-encoding"] || "";
  if (enc === "gzip") body = zlib.gunzipSync(raw);
  const ct = req.headers["content-type"] || "";
  const ext = ct.includes("json") ? "json" : ct.includes("protobuf") ? "pb" : "bin";
  const dir = payloadDir(lib);
  let name = `${scenario}.${signal}.${ext}`;
  for (let n = 2; written.has(path.join(dir, name)); n++) name = `${scenario}.${signal}.${n}.${ext}`;
  written.add(path.join(dir, name));
  fs.writeFileSync(path.join(dir, name), body);
  const headers = { ...req.headers };
  if (headers.authorization) headers.authorization = "(redacted)";
  appendLog(lib, "sink-log.jsonl", { file: name, path: req.url, content_type: ct, content_encoding: enc, bytes: body.length, user_agent: headers["user-agent"] });
  if (ext === "json") sendJSON(res, 200, {});
  else {
    res.writeHead(200, { "content-type": ct || "application/x-protobuf", "content-length": 0 });
    res.end();
  }
}

// ---------- dispatch ----------

const calls = new Map();

const server = http.createServer(async (req, res) => {
  try {
    const raw = await readBody(req);
    const url = new URL(req.url, "http://x");
    const parts = url.pathname.split("/").filter(Boolean);
    if (req.method === "GET" && url.pathname === "/health") return sendJSON(res, 200, { ok: true });
    if (parts[0] === "sink" && parts.length >= 4) return sink(req, res, raw, parts.slice(1));
    if (parts[0] === "m" && parts.length >= 5) {
      const [, lib, scenario, enc] = parts;
      const api = "/" + parts.slice(4).join("/");
      const body = raw.length ? JSON.parse(raw.toString("utf8")) : {};
      const key = `${lib}/${scenario}/${enc}`;
      const callIndex = (calls.get(key) || 0) + 1;
      calls.set(key, callIndex);
      const ctx = { lib, scenario, enc, behaviour: behaviour(scenario), callIndex };
      const log = (entry) =>
        appendLog(lib, "model-log.jsonl", {
          seq: ++seq, scenario, enc, call: callIndex, api: api, request_model: body.model, ...entry, request: body,
        });
      if (api === "/v1/chat/completions") return openaiChat(req, res, body, ctx, log);
      if (api === "/v1/embeddings") return openaiEmbeddings(req, res, body, ctx, log);
      if (api === "/v1/responses") return openaiResponses(req, res, body, ctx, log);
      if (api === "/v1/messages") return anthropicMessages(req, res, body, ctx, log);
      if (/^\/v1beta\/models\/[^:/]+:\w+$/.test(api)) return gemini(req, res, body, ctx, log, api, url.searchParams);
    }
    process.stderr.write(`fake server: unhandled ${req.method} ${req.url}\n`);
    sendJSON(res, 404, { error: { message: `not found: ${req.url}` } });
  } catch (e) {
    process.stderr.write(`fake server: ${e.stack}\n`);
    if (!res.headersSent) sendJSON(res, 500, { error: { message: String(e) } });
  }
});

server.listen(PORT, "127.0.0.1", () => process.stdout.write(`listening ${PORT}\n`));
for (const s of ["SIGTERM", "SIGINT"]) process.on(s, () => server.close(() => process.exit(0)));
export { PROMPTS };
