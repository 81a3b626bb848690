// Test-only: the Model Context Protocol TypeScript SDK's client (from npm,
// pinned in package-lock.json) starts `agenttrace mcp DIR` and speaks to
// it over stdio, as a coding agent does. Used by internal/mcpe2e (go test).
//
//   node client.mjs <agenttrace binary> <dir> < calls.json
//
// calls.json is a JSON array of {"name": tool, "arguments": {...}}. The
// script prints one JSON line with the tools the server lists, then one
// line per call: {"name", "isError", "text", "structured"} (the answer's
// text and its structured content, as the client received them).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [binary, dir] = process.argv.slice(2);
let input = '';
for await (const chunk of process.stdin) input += chunk;
const calls = JSON.parse(input);

const transport = new StdioClientTransport({ command: binary, args: ['mcp', dir], stderr: 'inherit' });
const client = new Client({ name: 'agenttrace-mcpe2e', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
console.log(JSON.stringify({ tools: tools.map((t) => t.name) }));
for (const c of calls) {
  const res = await client.callTool({ name: c.name, arguments: c.arguments });
  const text = res.content.filter((p) => p.type === 'text').map((p) => p.text).join('');
  console.log(JSON.stringify({ name: c.name, isError: res.isError === true, text, structured: res.structuredContent ?? null }));
}
await client.close();
