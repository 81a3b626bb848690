// Package pricing turns token usage into dollars with pydantic's
// genai-prices data, vendored in prices.json (MIT; see LICENSE beside it,
// and refresh.sh, which replaces both from a pinned release of the npm
// package @pydantic/genai-prices). No price is typed by hand here: the
// data says which model ids a provider's models match, what each costs per
// million tokens, how prices step up with prompt size (tiers), and when
// they changed (constraints by date and time of day). This package
// implements those rules as the data's own calculator (calcPrice in the
// package's JavaScript) does.
//
// Usage is counted as the GenAI conventions count it, which is also how
// the data counts it: input includes cache reads and cache writes, and
// output includes reasoning. A price the data gives for a part (cache
// reads, cache writes, reasoning) applies to that part, and the whole's
// price to the rest; a part the data does not price stays in the whole
// and is charged at the whole's price (reasoning at the output price for
// nearly every model, since the data prices reasoning apart for very few).
//
// A cost a span reports itself (gen_ai.usage.cost, OpenInference's
// llm.cost.total, Logfire's operation.cost, Langfuse's cost_details) is
// taken as it is and marked [FromSpan]: the producer knew its own prices.
// A model the data does not know has no cost, never a cost of zero.
package pricing
