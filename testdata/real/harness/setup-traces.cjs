// The usual Node OTel trace setup, loaded with the calling library's own
// require so that its pinned packages are used: NodeTracerProvider +
// BatchSpanProcessor + the OTLP/HTTP exporter for ENCODING (pb: protobuf
// exporter, json: JSON exporter), then registerInstrumentations.
module.exports = function setupTraces(req, env, instrumentations = []) {
  const { NodeTracerProvider } = req("@opentelemetry/sdk-trace-node");
  const { BatchSpanProcessor } = req("@opentelemetry/sdk-trace-base");
  const { resourceFromAttributes } = req("@opentelemetry/resources");
  const { OTLPTraceExporter } =
    env.ENCODING === "pb" ? req("@opentelemetry/exporter-trace-otlp-proto") : req("@opentelemetry/exporter-trace-otlp-http");
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": `capture-${env.LIB}` }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: env.tracesURL }))],
  });
  provider.register();
  if (instrumentations.length) {
    const { registerInstrumentations } = req("@opentelemetry/instrumentation");
    registerInstrumentations({ instrumentations, tracerProvider: provider });
  }
  return provider;
};
