// The fake model server's script: what each scenario answers and the FIXED
// token usage it reports for each call. expected.json files are derived from
// this script and from the server's log of what it was actually asked
// (never from agenttrace's output).
//
// Token classes follow the provider's own wire format here; the GenAI
// semantic-convention meaning (input INCLUDES cache reads and writes) is
// computed in expected.mjs.

export const PROMPTS = {
  system: "You are a concise weather assistant. Use the tools when needed.",
  toolLoop: "What is the weather in Paris today?",
  streamSystem:
    "You summarize documents. " +
    "The document: The Eiffel Tower was completed in 1889 for the World's Fair. ".repeat(8),
  stream: "Summarize the document in one sentence.",
  fail: "This request will be rate limited.",
  embeddings: ["alpha is the first letter", "beta is the second letter", "gamma is the third letter"],
};

export const TOOL = {
  name: "get_weather",
  description: "Current weather for a city",
  arguments: { city: "Paris" },
  result: "18 degrees Celsius and sunny",
};

export const ANSWERS = {
  toolLoop: "It is 18 degrees Celsius and sunny in Paris today.",
  stream: "The Eiffel Tower was finished in 1889 for the World's Fair.",
};

// OpenAI Chat Completions usage per call (prompt_tokens INCLUDES cached_tokens,
// completion_tokens INCLUDES reasoning_tokens, as the OpenAI API reports them).
export const OPENAI = {
  model: "gpt-4o-mini",
  responseModel: "gpt-4o-mini-2024-07-18",
  embeddingModel: "text-embedding-3-small",
  toolCall1: { prompt_tokens: 52, completion_tokens: 18, cached_tokens: 0, reasoning_tokens: 0 },
  toolCall2: { prompt_tokens: 91, completion_tokens: 14, cached_tokens: 0, reasoning_tokens: 0 },
  stream: { prompt_tokens: 1230, completion_tokens: 41, cached_tokens: 1024, reasoning_tokens: 16 },
  // Non-streamed answer to the stream scenario (some libraries cannot stream).
  embeddingTokensPerInput: 5,
};

// Anthropic Messages usage per call (input_tokens EXCLUDES cache reads and
// cache writes, as the Anthropic API reports them).
export const ANTHROPIC = {
  model: "claude-sonnet-4-5",
  responseModel: "claude-sonnet-4-5-20250929",
  toolCall1: { input_tokens: 61, output_tokens: 29, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  toolCall2: { input_tokens: 118, output_tokens: 17, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
  stream: { input_tokens: 25, output_tokens: 38, cache_read_input_tokens: 1100, cache_creation_input_tokens: 210 },
};

// Gemini API usageMetadata per call (generateContent / streamGenerateContent):
// promptTokenCount INCLUDES cachedContentTokenCount; candidatesTokenCount
// EXCLUDES thoughtsTokenCount (totalTokenCount = prompt + candidates + thoughts),
// as the Gemini API reports them. batchEmbedContents returns no usage.
export const GEMINI = {
  model: "gemini-2.5-flash",
  responseModel: "gemini-2.5-flash",
  embeddingModel: "gemini-embedding-001",
  toolCall1: { promptTokenCount: 57, candidatesTokenCount: 11, thoughtsTokenCount: 23, cachedContentTokenCount: 0 },
  toolCall2: { promptTokenCount: 98, candidatesTokenCount: 15, thoughtsTokenCount: 0, cachedContentTokenCount: 0 },
  stream: { promptTokenCount: 1236, candidatesTokenCount: 19, thoughtsTokenCount: 31, cachedContentTokenCount: 1012 },
};
