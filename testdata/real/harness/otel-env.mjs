// Where a capture run sends things: the fake model API and the OTLP sink.
const need = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set (run through harness/capture-lib.sh)`);
  return v;
};
export const LIB = need("LIB");
export const SCENARIO = need("SCENARIO");
export const ENCODING = need("ENCODING"); // pb | json
export const BASE = need("FAKE_BASE");
// OpenAI-style base URL (the SDK appends /chat/completions, /embeddings).
export const openaiBaseURL = `${BASE}/m/${LIB}/${SCENARIO}/${ENCODING}/v1`;
// Anthropic-style base URL (the SDK appends /v1/messages).
export const anthropicBaseURL = `${BASE}/m/${LIB}/${SCENARIO}/${ENCODING}`;
export const sinkBase = `${BASE}/sink/${LIB}/${SCENARIO}`;
export const tracesURL = `${sinkBase}/v1/traces`;
export const logsURL = `${sinkBase}/v1/logs`;
