// Strands Agents TS with its built-in telemetry: setupTracer({ provider })
// from @strands-agents/sdk/telemetry hands Strands the usual NodeTracerProvider
// (OTLP/HTTP protobuf or JSON by ENCODING; setupTracer({exporters:{otlp:true}})
// would build the same with the JSON exporter only). The model is Strands'
// OpenAIModel on Chat Completions (api 'chat'); responses-* scenarios use its
// default Responses API. latest-* scenarios set
// OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental (capture.sh does),
// Strands' switch to the current GenAI conventions; the others keep its default.
import { createRequire } from "node:module";
import { Agent, tool } from "@strands-agents/sdk";
import { OpenAIModel } from "@strands-agents/sdk/models/openai";
import { setupTracer } from "@strands-agents/sdk/telemetry";
import { z } from "zod";
import * as env from "../harness/otel-env.mjs";
import { PROMPTS, TOOL, OPENAI } from "../harness/script.mjs";

const require = createRequire(import.meta.url);
const provider = require("../harness/setup-traces.cjs")(require, env);
setupTracer({ provider });
const scenario = env.SCENARIO.replace(/^latest-/, "");
const viaResponses = scenario.startsWith("responses-");
const behaviour = scenario.replace(/^responses-/, "");
const model = new OpenAIModel({
  ...(viaResponses ? {} : { api: "chat" }),
  modelId: OPENAI.model,
  apiKey: "sk-test-not-a-key",
  clientConfig: { baseURL: env.openaiBaseURL, maxRetries: 0 },
});
const weather = tool({
  name: TOOL.name,
  description: TOOL.description,
  inputSchema: z.object({ city: z.string() }),
  callback: async () => TOOL.result,
});

async function run() {
  switch (behaviour) {
    case "tool-loop": {
      const agent = new Agent({ model, systemPrompt: PROMPTS.system, tools: [weather], printer: false });
      const r = await agent.invoke(PROMPTS.toolLoop);
      return String(r);
    }
    case "stream": {
      const agent = new Agent({ model, systemPrompt: PROMPTS.streamSystem, printer: false });
      let text = "";
      for await (const ev of agent.stream(PROMPTS.stream)) {
        const d = ev?.event?.delta ?? ev?.delta;
        if (ev?.type === "modelStreamUpdateEvent" && d?.type === "textDelta") text += d.text;
      }
      return text || "(streamed)";
    }
    case "fail":
      try {
        // retryStrategy null: Strands retries a throttled call 6 times by
        // default (its own backoff, regardless of the client's maxRetries).
        await new Agent({ model, printer: false, retryStrategy: null }).invoke(PROMPTS.fail);
      } catch (e) {
        return `error ${e.status ?? e.cause?.status ?? e.message}`;
      }
      throw new Error("fail scenario did not fail");
    default:
      throw new Error(`unknown scenario ${env.SCENARIO}`);
  }
}

try {
  console.error(`  -> ${await run()}`);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
