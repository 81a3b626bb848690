// OpenInference's openai instrumentation, set up as its README shows
// (registerInstrumentations before the SDK is required), exporting over
// OTLP/HTTP (protobuf or JSON by ENCODING) to the loopback sink.
const { NodeTracerProvider } = require("@opentelemetry/sdk-trace-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace-base");
const { resourceFromAttributes } = require("@opentelemetry/resources");
const { registerInstrumentations } = require("@opentelemetry/instrumentation");
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const { OTLPTraceExporter } =
    env.ENCODING === "pb" ? require("@opentelemetry/exporter-trace-otlp-proto") : require("@opentelemetry/exporter-trace-otlp-http");
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": `capture-${env.LIB}` }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: env.tracesURL }))],
  });
  provider.register();
  registerInstrumentations({ instrumentations: [new OpenAIInstrumentation()] });
  const OpenAI = require("openai");
  const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
  const out = await runOpenAI(OpenAI, env.SCENARIO, env.openaiBaseURL);
  console.error(`  -> ${out}`);
  await provider.forceFlush();
  await provider.shutdown();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
