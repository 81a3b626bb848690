// Langfuse's documented setup for the Vercel AI SDK: LangfuseSpanProcessor on
// a NodeTracerProvider, experimental_telemetry on every AI SDK call, the run
// wrapped in a Langfuse observation with session and user propagated. The
// processor POSTs to <sink>/api/public/otel/v1/traces as it would to Langfuse
// (ENCODING=json: its default exporter; pb: its `exporter` option with the
// OTLP protobuf exporter).
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import * as env from "../harness/otel-env.mjs";
import { runVercel } from "../harness/vercel-scenarios.mjs";

const publicKey = "pk-lf-test-not-a-key";
const secretKey = "sk-lf-test-not-a-key";
const params = { publicKey, secretKey, baseUrl: env.sinkBase, exportMode: "batched", environment: "capture" };
if (env.ENCODING === "pb") {
  params.exporter = new OTLPTraceExporter({
    url: `${env.sinkBase}/api/public/otel/v1/traces`,
    headers: { Authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}` },
  });
}
const provider = new NodeTracerProvider({ spanProcessors: [new LangfuseSpanProcessor(params)] });
provider.register();
const { startActiveObservation, propagateAttributes } = await import("@langfuse/tracing");
try {
  const out = await propagateAttributes({ sessionId: "capture-session-1", userId: "capture-user-1" }, () =>
    startActiveObservation(`agent-${env.SCENARIO}`, async (agent) => {
      const r = await runVercel({ ai, createOpenAI, createAnthropic }, env.SCENARIO, env);
      agent.update({ output: r });
      return r;
    }, { asType: "agent" }),
  );
  console.error(`  -> ${out}`);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
