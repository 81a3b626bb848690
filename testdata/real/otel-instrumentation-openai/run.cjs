// The official @opentelemetry/instrumentation-openai under the NodeSDK, as its
// README shows, with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true
// (set by capture.sh): spans go to /v1/traces, the GenAI events (message
// content) go out as log records to /v1/logs. Both OTLP/HTTP, protobuf or
// JSON by ENCODING; batch processors, flushed by sdk.shutdown().
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { BatchLogRecordProcessor } = require("@opentelemetry/sdk-logs");
const { OpenAIInstrumentation } = require("@opentelemetry/instrumentation-openai");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const pb = env.ENCODING === "pb";
  const { OTLPTraceExporter } = require(pb ? "@opentelemetry/exporter-trace-otlp-proto" : "@opentelemetry/exporter-trace-otlp-http");
  const { OTLPLogExporter } = require(pb ? "@opentelemetry/exporter-logs-otlp-proto" : "@opentelemetry/exporter-logs-otlp-http");
  const sdk = new NodeSDK({
    serviceName: `capture-${env.LIB}`,
    resourceDetectors: [],
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: env.tracesURL }) })],
    logRecordProcessors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: env.logsURL }) })],
    instrumentations: [new OpenAIInstrumentation()],
  });
  sdk.start();
  const OpenAI = require("openai");
  const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
  try {
    console.error(`  -> ${await runOpenAI(OpenAI, env.SCENARIO, env.openaiBaseURL)}`);
  } finally {
    await sdk.shutdown();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
