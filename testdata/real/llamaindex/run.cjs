// LlamaIndex.TS (llamaindex 0.12, @llamaindex/openai, @llamaindex/workflow's
// agent()) with OpenLLMetry's @traceloop/instrumentation-llamaindex, applied
// with manuallyInstrument(llamaindex, @llamaindex/openai) as its docs show for
// bundled / ESM setups. Spans go to the global NodeTracerProvider (OTLP/HTTP by ENCODING).
const { LlamaIndexInstrumentation } = require("@traceloop/instrumentation-llamaindex");

async function main() {
  const env = await import("../harness/otel-env.mjs");
  const { PROMPTS, TOOL, OPENAI } = await import("../harness/script.mjs");
  const inst = new LlamaIndexInstrumentation({ traceContent: true });
  const provider = require("../harness/setup-traces.cjs")(require, env, [inst]);
  const llamaindex = require("llamaindex");
  const liOpenAI = require("@llamaindex/openai");
  inst.manuallyInstrument(llamaindex, liOpenAI);
  const { agent } = require("@llamaindex/workflow");
  const { z } = require("zod");
  const llm = new liOpenAI.OpenAI({ model: OPENAI.model, apiKey: "sk-test-not-a-key", baseURL: env.openaiBaseURL, maxRetries: 0 });
  const run = async () => {
    switch (env.SCENARIO) {
      case "tool-loop": {
        const weather = llamaindex.tool({
          name: TOOL.name,
          description: TOOL.description,
          parameters: z.object({ city: z.string() }),
          execute: async () => TOOL.result,
        });
        const a = agent({ llm, tools: [weather], systemPrompt: PROMPTS.system });
        const r = await a.run(PROMPTS.toolLoop);
        return r.data.result;
      }
      case "stream": {
        const stream = await llm.chat({
          messages: [
            { role: "system", content: PROMPTS.streamSystem },
            { role: "user", content: PROMPTS.stream },
          ],
          stream: true,
        });
        let text = "";
        for await (const c of stream) text += c.delta;
        return text;
      }
      case "fail":
        try {
          await llm.chat({ messages: [{ role: "user", content: PROMPTS.fail }] });
        } catch (e) {
          return `error ${e.status ?? e.message}`;
        }
        throw new Error("fail scenario did not fail");
      case "embeddings": {
        const embed = new liOpenAI.OpenAIEmbedding({ model: OPENAI.embeddingModel, apiKey: "sk-test-not-a-key", baseURL: env.openaiBaseURL, maxRetries: 0 });
        const v = await embed.getTextEmbeddingsBatch(PROMPTS.embeddings);
        return `${v.length} embeddings`;
      }
      default:
        throw new Error(`unknown scenario ${env.SCENARIO}`);
    }
  };
  try {
    console.error(`  -> ${await run()}`);
  } finally {
    await provider.forceFlush();
    await provider.shutdown();
  }
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
