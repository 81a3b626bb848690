// OpenLIT JS as its README shows: openlit.init({ otlpEndpoint }) before the
// openai SDK is loaded. openlit builds its own NodeTracerProvider with the
// OTLP/HTTP JSON exporter (it has no protobuf option, hence json only) and
// sends its GenAI events as OTLP logs to the same endpoint; metrics are
// switched off (disableMetrics) so that the sink keeps traces and logs only.
const openlit = require("openlit").default;
const api = require("@opentelemetry/api");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const { OPENAI } = await import("../harness/script.mjs");
  // otlpEndpoint is a base: openlit appends /v1/traces and /v1/logs.
  // pricingJson: openlit otherwise downloads its price list from the
  // internet (unreachable here); these are OpenAI's list prices per 1k
  // tokens in openlit's pricing.json shape, so gen_ai.usage.cost is realistic.
  const pricingJson = {
    chat: { [OPENAI.model]: { promptPrice: 0.00015, completionPrice: 0.0006, cacheReadPrice: 0.000075 } },
    embeddings: { [OPENAI.embeddingModel]: 0.00002 },
  };
  openlit.init({ otlpEndpoint: env.sinkBase, applicationName: `capture-${env.LIB}`, disableMetrics: true, pricingJson });
  const OpenAI = require("openai");
  const { runOpenAI } = await import("../harness/openai-scenarios.mjs");
  try {
    console.error(`  -> ${await runOpenAI(OpenAI, env.SCENARIO, env.openaiBaseURL)}`);
  } finally {
    const tp = api.trace.getTracerProvider().getDelegate?.() ?? api.trace.getTracerProvider();
    await tp.forceFlush?.();
    await tp.shutdown?.();
    const lp = require("@opentelemetry/api-logs").logs.getLoggerProvider();
    await lp.forceFlush?.();
    await lp.shutdown?.();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
