// The scenarios, written against the openai SDK as an application would use
// it. Shared by every capture that instruments the openai SDK directly.
import { PROMPTS, TOOL, OPENAI } from "./script.mjs";

export const toolDef = {
  type: "function",
  function: {
    name: TOOL.name,
    description: TOOL.description,
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

// hooks.tool(name, args, fn) wraps the tool execution (libraries with a tool
// span helper use it); hooks.client(client) wraps the SDK client (Langfuse's
// observeOpenAI).
export const responsesToolDef = {
  type: "function",
  name: TOOL.name,
  description: TOOL.description,
  parameters: toolDef.function.parameters,
};

export async function runOpenAI(OpenAI, scenario, baseURL, hooks = {}) {
  const tool = hooks.tool || ((name, args, fn) => fn());
  const raw = new OpenAI({ apiKey: "sk-test-not-a-key", baseURL, maxRetries: 0 });
  const client = hooks.client ? hooks.client(raw) : raw;
  if (scenario.startsWith("responses-")) return runResponses(client, scenario.slice("responses-".length), tool);
  switch (scenario) {
    case "tool-loop": {
      const messages = [
        { role: "system", content: PROMPTS.system },
        { role: "user", content: PROMPTS.toolLoop },
      ];
      const r1 = await client.chat.completions.create({ model: OPENAI.model, messages, tools: [toolDef] });
      const msg = r1.choices[0].message;
      messages.push(msg);
      for (const tc of msg.tool_calls || []) {
        const args = JSON.parse(tc.function.arguments);
        const result = await tool(tc.function.name, args, async () => TOOL.result);
        messages.push({ role: "tool", tool_call_id: tc.id, content: result });
      }
      const r2 = await client.chat.completions.create({ model: OPENAI.model, messages, tools: [toolDef] });
      return r2.choices[0].message.content;
    }
    case "stream": {
      const stream = await client.chat.completions.create({
        model: OPENAI.model,
        messages: [
          { role: "system", content: PROMPTS.streamSystem },
          { role: "user", content: PROMPTS.stream },
        ],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content || "";
      return text;
    }
    case "fail": {
      try {
        await client.chat.completions.create({ model: OPENAI.model, messages: [{ role: "user", content: PROMPTS.fail }] });
      } catch (e) {
        return `error ${e.status}`;
      }
      throw new Error("fail scenario did not fail");
    }
    case "embeddings": {
      const r = await client.embeddings.create({ model: OPENAI.embeddingModel, input: PROMPTS.embeddings });
      return `${r.data.length} embeddings`;
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

// The same scenarios through the Responses API (client.responses.create).
async function runResponses(client, scenario, tool) {
  switch (scenario) {
    case "tool-loop": {
      const input = [{ role: "user", content: PROMPTS.toolLoop }];
      const r1 = await client.responses.create({ model: OPENAI.model, instructions: PROMPTS.system, input, tools: [responsesToolDef] });
      for (const item of r1.output) {
        if (item.type !== "function_call") continue;
        input.push(item);
        const result = await tool(item.name, JSON.parse(item.arguments), async () => TOOL.result);
        input.push({ type: "function_call_output", call_id: item.call_id, output: result });
      }
      const r2 = await client.responses.create({ model: OPENAI.model, instructions: PROMPTS.system, input, tools: [responsesToolDef] });
      return r2.output_text;
    }
    case "stream": {
      const stream = await client.responses.create({ model: OPENAI.model, instructions: PROMPTS.streamSystem, input: PROMPTS.stream, stream: true });
      let text = "";
      for await (const ev of stream) if (ev.type === "response.output_text.delta") text += ev.delta;
      return text;
    }
    case "fail": {
      try {
        await client.responses.create({ model: OPENAI.model, input: PROMPTS.fail });
      } catch (e) {
        return `error ${e.status}`;
      }
      throw new Error("fail scenario did not fail");
    }
    default:
      throw new Error(`unknown responses scenario ${scenario}`);
  }
}
