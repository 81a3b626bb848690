// OpenLLMetry's Anthropic instrumentation (content tracing on, its default),
// registered before the SDK is required, exporting over OTLP/HTTP.
const setupTraces = require("../harness/setup-traces.cjs");
const { AnthropicInstrumentation } = require("@traceloop/instrumentation-anthropic");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const provider = setupTraces(require, env, [new AnthropicInstrumentation({ traceContent: true })]);
  const Anthropic = require("@anthropic-ai/sdk");
  const { runAnthropic } = await import("../harness/anthropic-scenarios.mjs");
  console.error(`  -> ${await runAnthropic(Anthropic, env.SCENARIO, env.anthropicBaseURL)}`);
  await provider.forceFlush();
  await provider.shutdown();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
