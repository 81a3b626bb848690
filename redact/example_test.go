package redact_test

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/agenttrace/agenttrace/redact"
)

func Example() {
	r := redact.New([]string{"password"}, true)

	sp := ptrace.NewSpan()
	sp.Attributes().PutStr("gen_ai.tool.call.arguments", `{"user": "bob", "password": "hunter2"}`)
	sp.Attributes().PutStr("http.request.header.authorization", "Bearer abcdefghijklmnopqrstuvwxyz")
	sp.Attributes().PutStr("gen_ai.request.model", "gpt-4o")

	fmt.Println(r.Span(sp))
	for k, v := range sp.Attributes().All() {
		fmt.Println(k, v.Str())
	}
	// Output:
	// true
	// gen_ai.tool.call.arguments {"user":"bob","password":"[REDACTED]"}
	// http.request.header.authorization Bearer [REDACTED]
	// gen_ai.request.model gpt-4o
}
