// Vercel AI SDK v7: OpenTelemetry is no longer built into `ai`; the
// @ai-sdk/otel integration is registered with registerTelemetry, as the v7
// docs show. OpenTelemetry() is the GenAI-semconv integration; scenarios
// named legacy-* register LegacyOpenTelemetry() (the v6-style ai.* spans)
// instead. Spans go to the global NodeTracerProvider (OTLP/HTTP by ENCODING).
import { createRequire } from "node:module";
import * as ai from "ai";
import { OpenTelemetry, LegacyOpenTelemetry } from "@ai-sdk/otel";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import * as env from "../harness/otel-env.mjs";
import { runVercel } from "../harness/vercel-scenarios.mjs";

const require = createRequire(import.meta.url);
const provider = require("../harness/setup-traces.cjs")(require, env);
const legacy = env.SCENARIO.startsWith("legacy-");
ai.registerTelemetry(legacy ? new LegacyOpenTelemetry() : new OpenTelemetry());
const telemetry = { telemetry: { functionId: `capture-${env.SCENARIO}` } };
try {
  console.error(`  -> ${await runVercel({ ai, createOpenAI, createAnthropic }, env.SCENARIO, env, { telemetry, instructions: true })}`);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
