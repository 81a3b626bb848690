// Test-only: sends a GenAI-shaped agent run to an OTLP endpoint with the
// OpenTelemetry JavaScript SDK's own exporters, as an agent written in
// TypeScript would. Used by internal/otlpe2e (go test).
//
//   node send.js <proto|json|grpc> <endpoint URL>
//
// The agent span starts, its model and tool calls end and are exported
// one by one (SimpleSpanProcessor) and flushed; the script prints
// "children sent <trace id>" and waits for a line on stdin before it ends
// the agent span, so a test can look at the run while it is running.
'use strict';

const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
const { SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { context, trace, SpanStatusCode } = require('@opentelemetry/api');

const [protocol, endpoint] = process.argv.slice(2);
let exporter;
switch (protocol) {
  case 'proto': {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
    exporter = new OTLPTraceExporter({ url: endpoint + '/v1/traces' });
    break;
  }
  case 'json': {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter({ url: endpoint + '/v1/traces' });
    break;
  }
  case 'grpc': {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-grpc');
    const { credentials } = require('@grpc/grpc-js');
    exporter = new OTLPTraceExporter({ url: endpoint, credentials: credentials.createInsecure() });
    break;
  }
  default:
    console.error('usage: node send.js <proto|json|grpc> <endpoint URL>');
    process.exit(2);
}

const provider = new NodeTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'js-agent-' + protocol }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const tracer = provider.getTracer('otlpe2e-js', '1.0.0');

function chat(parent, input, output, text) {
  const ctx = trace.setSpan(context.active(), parent);
  const span = tracer.startSpan('chat gpt-4o', {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.input_tokens': input,
      'gen_ai.usage.output_tokens': output,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: text }] }]),
    },
  }, ctx);
  span.end();
}

function tool(parent, name, ok) {
  const ctx = trace.setSpan(context.active(), parent);
  const span = tracer.startSpan('execute_tool ' + name, {
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': 'call_' + name,
      'gen_ai.tool.call.arguments': JSON.stringify({ city: 'Lisbon' }),
    },
  }, ctx);
  if (!ok) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream timeout' });
    span.setAttribute('error.type', 'timeout');
  }
  span.end();
}

async function main() {
  const agent = tracer.startSpan('invoke_agent planner', {
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'planner', 'gen_ai.provider.name': 'openai' },
  });
  chat(agent, 1200, 80, 'Plan a weekend in Lisbon');
  tool(agent, 'search_flights', false);
  tool(agent, 'search_trains', true);
  chat(agent, 1500, 300, 'Here are the trains');
  await provider.forceFlush();
  process.stdout.write('children sent ' + agent.spanContext().traceId + '\n');
  await new Promise((resolve) => {
    process.stdin.once('data', resolve);
    process.stdin.once('end', resolve);
  });
  agent.end();
  await provider.forceFlush();
  await provider.shutdown();
  process.stdout.write('done\n');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
