// Vercel AI SDK v7 with the Google provider (@ai-sdk/google, Gemini API
// generateContent / streamGenerateContent / batchEmbedContents), the
// @ai-sdk/otel OpenTelemetry() integration registered as the v7 docs show.
// The scenarios are the ones of harness/vercel-scenarios.mjs, written against
// a Gemini model. Spans go to the global NodeTracerProvider (OTLP/HTTP by ENCODING).
import { createRequire } from "node:module";
import * as ai from "ai";
import { OpenTelemetry } from "@ai-sdk/otel";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import * as env from "../harness/otel-env.mjs";
import { PROMPTS, TOOL, GEMINI } from "../harness/script.mjs";

const require = createRequire(import.meta.url);
const provider = require("../harness/setup-traces.cjs")(require, env);
ai.registerTelemetry(new OpenTelemetry());
const google = createGoogleGenerativeAI({ apiKey: "gemini-test-not-a-key", baseURL: `${env.anthropicBaseURL}/v1beta` });
const common = { maxRetries: 0, telemetry: { functionId: `capture-${env.SCENARIO}` } };

async function run(scenario) {
  switch (scenario) {
    case "tool-loop": {
      const inputSchema = ai.jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
      const r = await ai.generateText({
        ...common,
        model: google(GEMINI.model),
        system: PROMPTS.system,
        prompt: PROMPTS.toolLoop,
        tools: { [TOOL.name]: ai.tool({ description: TOOL.description, inputSchema, execute: async () => TOOL.result }) },
        stopWhen: ai.stepCountIs(2),
      });
      return r.text;
    }
    case "stream": {
      const r = ai.streamText({ ...common, model: google(GEMINI.model), system: PROMPTS.streamSystem, prompt: PROMPTS.stream });
      let text = "";
      for await (const t of r.textStream) text += t;
      await r.usage;
      return text;
    }
    case "fail": {
      try {
        await ai.generateText({ ...common, model: google(GEMINI.model), prompt: PROMPTS.fail });
      } catch (e) {
        return `error ${e.statusCode ?? e.lastError?.statusCode ?? e.message}`;
      }
      throw new Error("fail scenario did not fail");
    }
    case "embeddings": {
      // Two values per provider call, so embedMany splits the batch of three
      // into two batchEmbedContents calls, as in the other AI SDK captures.
      const model = google.embedding(GEMINI.embeddingModel);
      const chunked = new Proxy(model, { get: (t, p) => (p === "maxEmbeddingsPerCall" ? 2 : Reflect.get(t, p, t)) });
      const r = await ai.embedMany({ ...common, model: chunked, values: PROMPTS.embeddings, maxParallelCalls: 1 });
      return `${r.embeddings.length} embeddings, usage ${JSON.stringify(r.usage)}`;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

try {
  console.error(`  -> ${await run(env.SCENARIO)}`);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
