// Traceloop's node-server-sdk as its docs show: traceloop.initialize with
// instrumentModules, a workflow around a task around the model calls, and
// the tool run as a withTool span. The SDK exports OTLP/HTTP protobuf to
// <baseUrl>/v1/traces itself (ENCODING=pb, as it ships); ENCODING=json
// passes its documented `exporter` option with the OTLP/HTTP JSON exporter.
const traceloop = require("@traceloop/node-server-sdk");
const OpenAI = require("openai");
const Anthropic = require("@anthropic-ai/sdk");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const opts = {
    appName: `capture-${env.LIB}`,
    apiKey: "tl-test-not-a-key",
    baseUrl: env.sinkBase,
    disableBatch: false,
    traceContent: true,
    traceloopSyncEnabled: false,
    silenceInitializationMessage: true,
    instrumentModules: { openAI: OpenAI.OpenAI, anthropic: Anthropic },
  };
  if (env.ENCODING === "json") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-http");
    opts.exporter = new OTLPTraceExporter({ url: env.tracesURL, headers: { Authorization: "Bearer tl-test-not-a-key" } });
  }
  traceloop.initialize(opts);
  const anthropic = env.SCENARIO.startsWith("anthropic-");
  const scenario = env.SCENARIO.replace(/^anthropic-/, "");
  const hooks = { tool: (name, args, fn) => traceloop.withTool({ name }, fn) };
  const out = await traceloop.withWorkflow({ name: "weather_workflow" }, () =>
    traceloop.withTask({ name: `${scenario}_task` }, async () => {
      if (anthropic) {
        const { runAnthropic } = await import("../harness/anthropic-scenarios.mjs");
        return runAnthropic(Anthropic, scenario, env.anthropicBaseURL, hooks);
      }
      const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
      return runOpenAI(OpenAI, scenario, env.openaiBaseURL, hooks);
    }),
  );
  console.error(`  -> ${out}`);
  await traceloop.forceFlush();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
