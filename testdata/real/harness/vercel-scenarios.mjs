// The scenarios, written against the Vercel AI SDK (ai v5 / v6 / v7) as an
// application would use it, with experimental_telemetry on (recordInputs and
// recordOutputs default to true). Shared by the ai-v* captures.
import { PROMPTS, TOOL, OPENAI, ANTHROPIC } from "./script.mjs";

export async function runVercel(mods, scenario, env, extra = {}) {
  scenario = scenario.replace(/^legacy-/, "");
  // responses-*: the OpenAI Responses API (openai.responses(), the provider's
  // default for openai(model)) instead of Chat Completions.
  const viaResponses = scenario.startsWith("responses-");
  scenario = scenario.replace(/^responses-/, "");
  const { ai, createOpenAI, createAnthropic } = mods;
  const createdOpenAI = createOpenAI({ apiKey: "sk-test-not-a-key", baseURL: env.openaiBaseURL });
  const openai = { chat: (m) => (viaResponses ? createdOpenAI.responses(m) : createdOpenAI.chat(m)), embedding: (m) => createdOpenAI.embedding(m) };
  // v5/v6: experimental_telemetry with isEnabled; v7: `telemetry` (on by
  // default once an integration is registered), passed in extra.telemetry.
  const telemetryOpt = extra.telemetry || {
    experimental_telemetry: { isEnabled: true, functionId: `capture-${scenario}`, metadata: { scenario } },
  };
  const common = { maxRetries: 0, ...telemetryOpt };
  const toolSchema = ai.jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
  switch (scenario) {
    case "tool-loop": {
      const r = await ai.generateText({
        ...common,
        model: openai.chat(OPENAI.model),
        system: PROMPTS.system,
        prompt: PROMPTS.toolLoop,
        tools: { [TOOL.name]: ai.tool({ description: TOOL.description, inputSchema: toolSchema, execute: async () => TOOL.result }) },
        stopWhen: ai.stepCountIs(2),
      });
      return r.text;
    }
    case "stream": {
      const r = ai.streamText({ ...common, model: openai.chat(OPENAI.model), system: PROMPTS.streamSystem, prompt: PROMPTS.stream });
      let text = "";
      for await (const t of r.textStream) text += t;
      await r.usage;
      return text;
    }
    case "stream-anthropic": {
      const anthropic = createAnthropic({ apiKey: "sk-ant-test-not-a-key", baseURL: `${env.anthropicBaseURL}/v1` });
      const system = { role: "system", content: PROMPTS.streamSystem, providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } };
      // v7 refuses system messages in `messages`; it takes them as `instructions`.
      const prompt = extra.instructions
        ? { instructions: system, messages: [{ role: "user", content: PROMPTS.stream }] }
        : { messages: [system, { role: "user", content: PROMPTS.stream }] };
      const r = ai.streamText({ ...common, model: anthropic(ANTHROPIC.model), ...prompt });
      let text = "";
      for await (const t of r.textStream) text += t;
      await r.usage;
      return text;
    }
    case "fail": {
      try {
        await ai.generateText({ ...common, model: openai.chat(OPENAI.model), prompt: PROMPTS.fail });
      } catch (e) {
        return `error ${e.statusCode ?? e.lastError?.statusCode ?? e.message}`;
      }
      throw new Error("fail scenario did not fail");
    }
    case "embeddings": {
      // Two values per provider call, so embedMany splits the batch of three
      // into two doEmbed calls (as it does past the provider's per-call limit).
      const model = openai.embedding(OPENAI.embeddingModel);
      const chunked = new Proxy(model, { get: (t, p) => (p === "maxEmbeddingsPerCall" ? 2 : Reflect.get(t, p, t)) });
      const r = await ai.embedMany({ ...common, model: chunked, values: PROMPTS.embeddings, maxParallelCalls: 1 });
      return `${r.embeddings.length} embeddings, usage ${JSON.stringify(r.usage)}`;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}
