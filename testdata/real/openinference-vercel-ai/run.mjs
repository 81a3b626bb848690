// OpenInference's processor for the Vercel AI SDK, set up as its README shows:
// OpenInferenceBatchSpanProcessor (wrapping the OTLP/HTTP exporter for
// ENCODING) on a NodeTracerProvider, and ai v7's @ai-sdk/otel OpenTelemetry
// integration registered with the README's recommended options (usage,
// providerMetadata, embedding, ...), which add supplemental ai.* attributes.
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JSONExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OpenInferenceBatchSpanProcessor } from "@arizeai/openinference-vercel";
import { OpenTelemetry } from "@ai-sdk/otel";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import * as env from "../harness/otel-env.mjs";
import { runVercel } from "../harness/vercel-scenarios.mjs";

const Exporter = env.ENCODING === "pb" ? ProtoExporter : JSONExporter;
const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ "service.name": `capture-${env.LIB}`, "openinference.project.name": "capture" }),
  spanProcessors: [new OpenInferenceBatchSpanProcessor({ exporter: new Exporter({ url: env.tracesURL }) })],
});
provider.register();
ai.registerTelemetry(
  new OpenTelemetry({ usage: true, providerMetadata: true, embedding: true, reranking: true, runtimeContext: true, headers: true, toolChoice: true, schema: true }),
);
try {
  const telemetry = { telemetry: { functionId: `capture-${env.SCENARIO}` } };
  console.error(`  -> ${await runVercel({ ai, createOpenAI, createAnthropic }, env.SCENARIO, env, { telemetry, instructions: true })}`);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
