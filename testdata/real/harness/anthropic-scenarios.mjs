// The scenarios, written against the @anthropic-ai/sdk as an application
// would use it. Shared by every capture that instruments the Anthropic SDK.
import { PROMPTS, TOOL, ANTHROPIC } from "./script.mjs";

export const toolDef = {
  name: TOOL.name,
  description: TOOL.description,
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

export async function runAnthropic(Anthropic, scenario, baseURL, hooks = {}) {
  const tool = hooks.tool || ((name, args, fn) => fn());
  const client = new Anthropic({ apiKey: "sk-ant-test-not-a-key", baseURL, maxRetries: 0 });
  switch (scenario) {
    case "tool-loop": {
      const messages = [{ role: "user", content: PROMPTS.toolLoop }];
      const r1 = await client.messages.create({
        model: ANTHROPIC.model, max_tokens: 1024, system: PROMPTS.system, messages, tools: [toolDef],
      });
      messages.push({ role: "assistant", content: r1.content });
      const results = [];
      for (const block of r1.content) {
        if (block.type !== "tool_use") continue;
        const result = await tool(block.name, block.input, async () => TOOL.result);
        results.push({ type: "tool_result", tool_use_id: block.id, content: result });
      }
      messages.push({ role: "user", content: results });
      const r2 = await client.messages.create({
        model: ANTHROPIC.model, max_tokens: 1024, system: PROMPTS.system, messages, tools: [toolDef],
      });
      return r2.content.map((b) => b.text || "").join("");
    }
    case "stream": {
      const stream = await client.messages.create({
        model: ANTHROPIC.model,
        max_tokens: 1024,
        system: [{ type: "text", text: PROMPTS.streamSystem, cache_control: { type: "ephemeral" } }],
        messages: [{ role: "user", content: PROMPTS.stream }],
        stream: true,
      });
      let text = "";
      for await (const ev of stream) if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") text += ev.delta.text;
      return text;
    }
    case "fail": {
      try {
        await client.messages.create({ model: ANTHROPIC.model, max_tokens: 1024, messages: [{ role: "user", content: PROMPTS.fail }] });
      } catch (e) {
        return `error ${e.status}`;
      }
      throw new Error("fail scenario did not fail");
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}
