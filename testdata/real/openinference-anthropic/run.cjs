// OpenInference's Anthropic instrumentation, registered before the SDK is
// required. The Anthropic SDK (1.x) also emits its own spans by default: the
// plain scenarios switch those off (ANTHROPIC_OPEN_TELEMETRY=false) to show
// OpenInference alone; double-* leave them on, as a user who installs the
// instrumentation on a current SDK gets.
const setupTraces = require("../harness/setup-traces.cjs");
const { AnthropicInstrumentation } = require("@arizeai/openinference-instrumentation-anthropic");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const double = env.SCENARIO.startsWith("double-");
  if (!double) process.env.ANTHROPIC_OPEN_TELEMETRY = "false";
  const provider = setupTraces(require, env, [new AnthropicInstrumentation()]);
  const Anthropic = require("@anthropic-ai/sdk");
  const { runAnthropic } = await import("../harness/anthropic-scenarios.mjs");
  try {
    console.error(`  -> ${await runAnthropic(Anthropic, env.SCENARIO.replace(/^double-/, ""), env.anthropicBaseURL)}`);
  } finally {
    await provider.forceFlush();
    await provider.shutdown();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
