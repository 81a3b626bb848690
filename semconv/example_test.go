package semconv_test

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/semconv"
)

// An OpenInference LLM span reads like a GenAI chat span: same kind, same
// fields, with the keys they came from.
func ExampleRead() {
	attrs := pcommon.NewMap()
	attrs.PutStr("openinference.span.kind", "LLM")
	attrs.PutStr("llm.model_name", "gpt-4.1")
	attrs.PutInt("llm.token_count.prompt", 1873)
	attrs.PutInt("llm.token_count.completion", 71)

	var r semconv.Reading
	semconv.Read(&r, "ChatOpenAI", attrs, false)
	fmt.Println(r.Kind, r.Dialect, r.Model(), r.Usage().Total())
	fmt.Println(r.Source(semconv.FieldInputTokens))
	// Output:
	// inference openinference gpt-4.1 1944
	// llm.token_count.prompt
}
