// Vercel AI SDK with experimental_telemetry: the SDK's spans go to the global
// tracer provider (NodeTracerProvider, OTLP/HTTP exporter by ENCODING).
import { createRequire } from "node:module";
import * as ai from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import * as env from "../harness/otel-env.mjs";
import { runVercel } from "../harness/vercel-scenarios.mjs";

const require = createRequire(import.meta.url);
const provider = require("../harness/setup-traces.cjs")(require, env);
try {
  console.error(`  -> ${await runVercel({ ai, createOpenAI, createAnthropic }, env.SCENARIO, env)}`);
} finally {
  await provider.forceFlush();
  await provider.shutdown();
}
