// OpenAI Agents JS (@openai/agents, Responses API by default). The SDK has no
// OTel exporter of its own (its tracing goes to OpenAI's trace ingest in its
// own format); OpenLIT's openai-agents instrumentation is a TracingProcessor
// that replaces the SDK's processors (setTraceProcessors) and turns the
// agent's trace into OTel spans. openlit.init() as its README shows, before
// @openai/agents is loaded: it also instruments the openai SDK the agent uses
// (so each model call is seen twice) and exports OTLP/HTTP JSON only.
const openlit = require("openlit").default;
// openlit's own OTel packages (not direct dependencies here).
const fromOpenlit = require("node:module").createRequire(require.resolve("openlit"));
const api = fromOpenlit("@opentelemetry/api");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const { PROMPTS, TOOL, OPENAI } = await import("../harness/script.mjs");
  // pricingJson: openlit otherwise downloads its price list from the
  // internet (unreachable here): OpenAI's list prices per 1k tokens.
  const pricingJson = { chat: { [OPENAI.model]: { promptPrice: 0.00015, completionPrice: 0.0006, cacheReadPrice: 0.000075 } } };
  openlit.init({ otlpEndpoint: env.sinkBase, applicationName: `capture-${env.LIB}`, disableMetrics: true, pricingJson });
  const agents = require("@openai/agents");
  const OpenAI = require("openai");
  const { z } = require("zod");
  agents.setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-test-not-a-key", baseURL: env.openaiBaseURL, maxRetries: 0 }));
  const weather = agents.tool({
    name: TOOL.name,
    description: TOOL.description,
    parameters: z.object({ city: z.string() }),
    execute: async () => TOOL.result,
  });
  const behaviour = env.SCENARIO.replace(/^responses-/, "");
  const run = async () => {
    switch (behaviour) {
      case "tool-loop": {
        const agent = new agents.Agent({ name: "weather-agent", instructions: PROMPTS.system, model: OPENAI.model, tools: [weather] });
        const r = await agents.run(agent, PROMPTS.toolLoop);
        return r.finalOutput;
      }
      case "stream": {
        const agent = new agents.Agent({ name: "summarizer", instructions: PROMPTS.streamSystem, model: OPENAI.model });
        const r = await agents.run(agent, PROMPTS.stream, { stream: true });
        let text = "";
        for await (const t of r.toTextStream()) text += t;
        await r.completed;
        return text;
      }
      case "fail": {
        const agent = new agents.Agent({ name: "weather-agent", model: OPENAI.model });
        try {
          await agents.run(agent, PROMPTS.fail);
        } catch (e) {
          return `error ${e.status ?? e.message}`;
        }
        throw new Error("fail scenario did not fail");
      }
      default:
        throw new Error(`unknown scenario ${env.SCENARIO}`);
    }
  };
  try {
    console.error(`  -> ${await run()}`);
  } finally {
    await agents.getGlobalTraceProvider?.().forceFlush?.();
    const tp = api.trace.getTracerProvider().getDelegate?.() ?? api.trace.getTracerProvider();
    await tp.forceFlush?.();
    await tp.shutdown?.();
    const lp = fromOpenlit("@opentelemetry/api-logs").logs.getLoggerProvider();
    await lp.forceFlush?.();
    await lp.shutdown?.();
  }
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
