// Genkit JS with @genkit-ai/compat-oai's openAI plugin, traces exported the
// way Genkit documents for a custom OTel backend: enableTelemetry() (genkit's
// NodeSDK) with a BatchSpanProcessor over the OTLP/HTTP exporter for ENCODING,
// flushTracing() at the end. Exporter and span processor are pinned to the
// OTel JS line genkit 1.42 builds its NodeSDK on (sdk 1.25 / exporters 0.52). GENKIT_ENV is left unset (production mode).
import { genkit, z } from "genkit";
import { enableTelemetry, flushTracing } from "genkit/tracing";
import { openAI } from "@genkit-ai/compat-oai/openai";
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import * as env from "../harness/otel-env.mjs";
import { PROMPTS, TOOL, OPENAI } from "../harness/script.mjs";

const { OTLPTraceExporter } =
  env.ENCODING === "pb" ? await import("@opentelemetry/exporter-trace-otlp-proto") : await import("@opentelemetry/exporter-trace-otlp-http");
await enableTelemetry({
  serviceName: `capture-${env.LIB}`,
  spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: env.tracesURL }))],
});
const ai = genkit({ plugins: [openAI({ apiKey: "sk-test-not-a-key", baseURL: env.openaiBaseURL, maxRetries: 0 })] });
const model = openAI.model(OPENAI.model);

async function run() {
  switch (env.SCENARIO) {
    case "tool-loop": {
      const weather = ai.defineTool(
        { name: TOOL.name, description: TOOL.description, inputSchema: z.object({ city: z.string() }), outputSchema: z.string() },
        async () => TOOL.result,
      );
      const r = await ai.generate({ model, system: PROMPTS.system, prompt: PROMPTS.toolLoop, tools: [weather], maxTurns: 2 });
      return r.text;
    }
    case "stream": {
      const { stream, response } = ai.generateStream({ model, system: PROMPTS.streamSystem, prompt: PROMPTS.stream });
      let text = "";
      for await (const c of stream) text += c.text;
      await response;
      return text;
    }
    case "fail":
      try {
        await ai.generate({ model, prompt: PROMPTS.fail });
      } catch (e) {
        return `error ${e.status ?? e.message}`;
      }
      throw new Error("fail scenario did not fail");
    case "embeddings": {
      // embedMany looks a plain ref up as an action only by its full name.
      const r = await ai.embedMany({ embedder: `openai/${OPENAI.embeddingModel}`, content: PROMPTS.embeddings, options: {} });
      return `${r.length} embeddings`;
    }
    default:
      throw new Error(`unknown scenario ${env.SCENARIO}`);
  }
}

try {
  console.error(`  -> ${await run()}`);
} finally {
  await flushTracing();
}
process.exit(0);
