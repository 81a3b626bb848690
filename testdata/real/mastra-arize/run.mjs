// Mastra (current release) with @mastra/observability and @mastra/arize's
// ArizeExporter, pointed at the sink as at a self-hosted Phoenix collector
// (endpoint = PHOENIX_COLLECTOR_ENDPOINT's value). It converts Mastra's spans
// to OpenInference attributes and exports OTLP/HTTP protobuf only (its
// exporter extends the proto exporter), hence pb payloads only. Agent, tool
// and scenarios as in ../mastra/run.mjs.
import { Mastra } from "@mastra/core/mastra";
import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { Observability } from "@mastra/observability";
import { ArizeExporter } from "@mastra/arize";
import { z } from "zod";
import * as env from "../harness/otel-env.mjs";
import { PROMPTS, TOOL, OPENAI } from "../harness/script.mjs";

const exporter = new ArizeExporter({ endpoint: env.tracesURL, projectName: `capture-${env.LIB}`, signals: { traces: true, logs: false } });
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
