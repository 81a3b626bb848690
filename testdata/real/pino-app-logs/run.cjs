// An application that logs with pino while it runs an agent: the official
// @opentelemetry/instrumentation-openai (message content on, as log records)
// and @opentelemetry/instrumentation-pino, whose log sending turns each pino
// line into an OTLP log record carrying the active span's trace and span id.
// The app opens its own invoke_agent span around the run and an execute_tool
// span around the tool, as applications without an agent framework do, and
// logs inside both. Spans and logs go out over OTLP/HTTP (protobuf or JSON by
// ENCODING) through the NodeSDK's batch processors, flushed by shutdown().
const { NodeSDK } = require("@opentelemetry/sdk-node");
const { BatchSpanProcessor } = require("@opentelemetry/sdk-trace");
const { BatchLogRecordProcessor } = require("@opentelemetry/sdk-logs");
const { OpenAIInstrumentation } = require("@opentelemetry/instrumentation-openai");
const { PinoInstrumentation } = require("@opentelemetry/instrumentation-pino");

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
    instrumentations: [new OpenAIInstrumentation(), new PinoInstrumentation()],
  });
  sdk.start();
  // Required after sdk.start() so the instrumentations patch them.
  const OpenAI = require("openai");
  const pino = require("pino");
  const { trace, SpanStatusCode } = require("@opentelemetry/api");
  // Log lines go to stderr here; instrumentation-pino also sends them as OTLP.
  const log = pino({ name: "weather-agent" }, pino.destination(2));
  const tracer = trace.getTracer("weather-agent", "1.0.0");
  const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
  const hooks = {
    tool: (name, args, fn) =>
      tracer.startActiveSpan(`execute_tool ${name}`, { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.call.arguments": JSON.stringify(args) } }, async (span) => {
        try {
          log.info({ tool: name, city: args.city }, "calling tool");
          const result = await fn();
          log.warn({ tool: name, source: "static table" }, "weather cache miss, answered from the static table");
          span.setAttribute("gen_ai.tool.call.result", result);
          return result;
        } finally {
          span.end();
        }
      }),
  };
  try {
    const out = await tracer.startActiveSpan("invoke_agent weather-agent", { attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "weather-agent" } }, async (span) => {
      try {
        log.info({ scenario: env.SCENARIO }, "agent run started");
        const r = await runOpenAI(OpenAI, env.SCENARIO, env.openaiBaseURL, hooks);
        log.info({ answer_chars: r.length }, "agent run finished");
        return r;
      } catch (e) {
        log.error({ err: e }, "agent run failed");
        span.setStatus({ code: SpanStatusCode.ERROR, message: String(e) });
        throw e;
      } finally {
        span.end();
      }
    });
    console.error(`  -> ${out}`);
  } finally {
    await sdk.shutdown();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
