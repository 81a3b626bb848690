// The Anthropic TypeScript SDK's own OpenTelemetry spans: no instrumentation
// library, only a NodeTracerProvider registered globally (the SDK uses the
// global provider by default). Scenarios named content-* set
// ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content (the SDK's switch for
// recording message content; the default is metadata_only).
const setupTraces = require("../harness/setup-traces.cjs");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const content = env.SCENARIO.startsWith("content-");
  if (content) process.env.ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE = "content";
  const provider = setupTraces(require, env);
  const Anthropic = require("@anthropic-ai/sdk");
  const { runAnthropic } = await import("../harness/anthropic-scenarios.mjs");
  try {
    console.error(`  -> ${await runAnthropic(Anthropic, env.SCENARIO.replace(/^content-/, ""), env.anthropicBaseURL)}`);
  } finally {
    await provider.forceFlush();
    await provider.shutdown();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
