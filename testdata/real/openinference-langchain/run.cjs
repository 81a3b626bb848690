// OpenInference's LangChain instrumentation as its README shows
// (manuallyInstrument on @langchain/core/callbacks/manager), with
// @langchain/openai's ChatOpenAI / OpenAIEmbeddings against the fake server.
// Scenarios named double-* ALSO register OpenInference's openai
// instrumentation, as a user running both would: every LangChain LLM span
// then has the openai SDK's LLM span as its child.
const setupTraces = require("../harness/setup-traces.cjs");
const { LangChainInstrumentation } = require("@arizeai/openinference-instrumentation-langchain");
const { OpenAIInstrumentation } = require("@arizeai/openinference-instrumentation-openai");

(async () => {
  const env = await import("../harness/otel-env.mjs");
  const { PROMPTS, TOOL, OPENAI } = await import("../harness/script.mjs");
  const double = env.SCENARIO.startsWith("double-");
  const provider = setupTraces(require, env, double ? [new OpenAIInstrumentation()] : []);
  const lc = new LangChainInstrumentation();
  lc.setTracerProvider(provider);
  lc.manuallyInstrument(require("@langchain/core/callbacks/manager"));

  const { ChatOpenAI, OpenAIEmbeddings } = require("@langchain/openai");
  const { tool } = require("@langchain/core/tools");
  const { SystemMessage, HumanMessage, ToolMessage } = require("@langchain/core/messages");
  const configuration = { baseURL: env.openaiBaseURL };
  const chat = new ChatOpenAI({ model: OPENAI.model, apiKey: "sk-test-not-a-key", configuration, maxRetries: 0 });
  const behaviour = ["tool-loop", "stream", "fail", "embed"].find((b) => env.SCENARIO.includes(b));

  let out;
  if (behaviour === "tool-loop") {
    const weather = tool(async () => TOOL.result, {
      name: TOOL.name,
      description: TOOL.description,
      schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    });
    const model = chat.bindTools([weather]);
    const messages = [new SystemMessage(PROMPTS.system), new HumanMessage(PROMPTS.toolLoop)];
    const ai1 = await model.invoke(messages);
    messages.push(ai1);
    for (const tc of ai1.tool_calls) {
      const result = await weather.invoke(tc.args);
      messages.push(new ToolMessage({ content: result, tool_call_id: tc.id }));
    }
    out = (await model.invoke(messages)).content;
  } else if (behaviour === "stream") {
    let text = "";
    for await (const chunk of await chat.stream([new SystemMessage(PROMPTS.streamSystem), new HumanMessage(PROMPTS.stream)])) text += chunk.content;
    out = text;
  } else if (behaviour === "fail") {
    try {
      await chat.invoke([new HumanMessage(PROMPTS.fail)]);
      throw new Error("fail scenario did not fail");
    } catch (e) {
      out = `error ${e.status ?? e.message}`;
    }
  } else if (behaviour === "embed") {
    // batchSize 2: the batch of three goes out as two embeddings requests.
    const emb = new OpenAIEmbeddings({ model: OPENAI.embeddingModel, apiKey: "sk-test-not-a-key", configuration, batchSize: 2, maxRetries: 0 });
    out = `${(await emb.embedDocuments(PROMPTS.embeddings)).length} embeddings`;
  }
  console.error(`  -> ${out}`);
  await provider.forceFlush();
  await provider.shutdown();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
