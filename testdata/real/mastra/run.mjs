// Mastra (current release) with its own observability: @mastra/observability's
// Observability with @mastra/otel-exporter's OtelExporter, "custom" provider
// pointed at the sink (protocol http/protobuf for pb, http/json for json), as
// Mastra's docs set it up. The agent uses Mastra's model router with an
// OpenAI-compatible config (id openai/<model>, url, api chat).
import { Mastra } from "@mastra/core/mastra";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Observability } from "@mastra/observability";
import { OtelExporter } from "@mastra/otel-exporter";
import { z } from "zod";
import * as env from "../harness/otel-env.mjs";
import { PROMPTS, TOOL, OPENAI } from "../harness/script.mjs";

const exporter = new OtelExporter({
  provider: { custom: { endpoint: env.tracesURL, protocol: env.ENCODING === "pb" ? "http/protobuf" : "http/json" } },
  signals: { traces: true, logs: false },
});
const model = { id: `openai/${OPENAI.model}`, url: env.openaiBaseURL, apiKey: "sk-test-not-a-key", api: "chat" };
const weather = createTool({
  id: TOOL.name,
  description: TOOL.description,
  inputSchema: z.object({ city: z.string() }),
  execute: async () => TOOL.result,
});
const scenario = env.SCENARIO;
const instructions = scenario === "stream" ? PROMPTS.streamSystem : PROMPTS.system;
const agent = new Agent({ id: "weather-agent", name: "weather-agent", instructions, model, tools: scenario === "tool-loop" ? { [TOOL.name]: weather } : {} });
const mastra = new Mastra({
  agents: { weatherAgent: agent },
  observability: new Observability({ configs: { otel: { serviceName: `capture-${env.LIB}`, exporters: [exporter] } } }),
  logger: false,
});
const a = mastra.getAgent("weatherAgent");
const opts = { modelSettings: { maxRetries: 0 } };

async function run() {
  switch (scenario) {
    case "tool-loop":
      return (await a.generate(PROMPTS.toolLoop, { ...opts, maxSteps: 2 })).text;
    case "stream": {
      const r = await a.stream(PROMPTS.stream, opts);
      let text = "";
      for await (const t of r.textStream) text += t;
      return text;
    }
    case "fail":
      try {
        const r = await a.generate(PROMPTS.fail, opts);
        if (r.error) return `error ${r.error.statusCode ?? r.error.message}`;
      } catch (e) {
        return `error ${e.statusCode ?? e.cause?.statusCode ?? e.message}`;
      }
      throw new Error("fail scenario did not fail");
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

try {
  console.error(`  -> ${await run()}`);
} finally {
  await mastra.shutdown?.();
  await exporter.shutdown?.();
}
