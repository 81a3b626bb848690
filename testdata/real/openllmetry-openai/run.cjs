// OpenLLMetry's openai instrumentation (content tracing on, its default),
// registered before the SDK is required, exporting over OTLP/HTTP.
const setupTraces = require("../harness/setup-traces.cjs");
const { OpenAIInstrumentation } = require("@traceloop/instrumentation-openai");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const provider = setupTraces(require, env, [new OpenAIInstrumentation({ traceContent: true })]);
  const OpenAI = require("openai");
  const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
  console.error(`  -> ${await runOpenAI(OpenAI, env.SCENARIO, env.openaiBaseURL)}`);
  await provider.forceFlush();
  await provider.shutdown();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
