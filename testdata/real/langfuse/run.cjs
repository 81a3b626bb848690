// Langfuse's own OTel integration: LangfuseSpanProcessor (@langfuse/otel) on a
// NodeTracerProvider, observeOpenAI (@langfuse/openai) around the openai
// client, and @langfuse/tracing observations for the agent and its tool.
// The processor's base URL points at the loopback sink, so it POSTs to
// <sink>/api/public/otel/v1/traces exactly as it would to Langfuse.
// ENCODING=json: the processor's own default exporter (OTLP/HTTP JSON, as it
// ships). ENCODING=pb: the processor's documented `exporter` option with the
// OTLP protobuf exporter, same URL and headers.
const { NodeTracerProvider } = require("@opentelemetry/sdk-trace-node");
const { LangfuseSpanProcessor } = require("@langfuse/otel");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const publicKey = "pk-lf-test-not-a-key";
  const secretKey = "sk-lf-test-not-a-key";
  const params = { publicKey, secretKey, baseUrl: env.sinkBase, exportMode: "batched", environment: "capture", release: "capture-1" };
  if (env.ENCODING === "pb") {
    const { OTLPTraceExporter } = require("@opentelemetry/exporter-trace-otlp-proto");
    params.exporter = new OTLPTraceExporter({
      url: `${env.sinkBase}/api/public/otel/v1/traces`,
      headers: { Authorization: `Basic ${Buffer.from(`${publicKey}:${secretKey}`).toString("base64")}` },
    });
  }
  const processor = new LangfuseSpanProcessor(params);
  const provider = new NodeTracerProvider({ spanProcessors: [processor] });
  provider.register();

  const { startActiveObservation, propagateAttributes } = require("@langfuse/tracing");
  const { observeOpenAI } = require("@langfuse/openai");
  const OpenAI = require("openai");
  const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
  const hooks = {
    client: (c) => observeOpenAI(c, { generationName: `openai-${env.SCENARIO}` }),
    tool: (name, args, fn) =>
      startActiveObservation(
        name,
        async (t) => {
          t.update({ input: args });
          const out = await fn();
          t.update({ output: out });
          return out;
        },
        { asType: "tool" },
      ),
  };
  try {
    const out = await propagateAttributes({ sessionId: "capture-session-1", userId: "capture-user-1" }, () =>
      startActiveObservation(
        `agent-${env.SCENARIO}`,
        async (agent) => {
          const r = await runOpenAI(OpenAI, env.SCENARIO, env.openaiBaseURL, hooks);
          agent.update({ output: r });
          return r;
        },
        { asType: "agent" },
      ),
    );
    console.error(`  -> ${out}`);
  } finally {
    await provider.forceFlush();
    await provider.shutdown();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
