package converter

// TruncatedPrefix begins the key of the marker attribute a Writer adds
// when it cuts a value short to keep a line within the line limit: the
// marker for attribute K is TruncatedPrefix + K, an int holding K's
// original length in bytes (for a structured value, the length of its
// typed encoding; see [ContentSize]). So a reader knows that, and by how
// much, a value is incomplete, and nothing is lost silently.
const TruncatedPrefix = "agenttrace.truncated."
