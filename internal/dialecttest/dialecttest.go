// Package dialecttest loads the dialect payloads in testdata/dialects and
// what agenttrace must read from each (<name>.expect.json), for the tests of
// every layer that reads them: the converter, the report and the CLI.
package dialecttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Expectation is what a payload must read as. The numbers were computed by
// hand from the payloads and the rules in docs/format.md.
type Expectation struct {
	// Records counts records by kind: call, inference, agent, span.
	Records map[string]int64 `json:"records"`
	// Tokens sums inference records only: input, output, cache_read,
	// cache_creation, reasoning.
	Tokens map[string]int64 `json:"tokens"`
	// Models are the distinct models of inference records, sorted.
	Models []string `json:"models"`
	// Tools are the tool names of call records, in start order.
	Tools []string `json:"tools"`
	// Errors counts spans whose status is Error.
	Errors int64 `json:"errors"`
}

// Case is one payload and its expectation.
type Case struct {
	Name    string // e.g. "openinference"
	Payload string // path of the OTLP/JSON payload
	Want    Expectation
}

// Cases loads every payload under testdata, the path of the repository's
// testdata folder relative to the test's package.
func Cases(t testing.TB, testdata string) []Case {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(testdata, "dialects", "*.expect.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no dialect expectations under %s", testdata)
	sort.Strings(files)
	cases := make([]Case, 0, len(files))
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		c := Case{Name: strings.TrimSuffix(filepath.Base(f), ".expect.json")}
		require.NoError(t, json.Unmarshal(raw, &c.Want), f)
		if c.Want.Tools == nil {
			c.Want.Tools = []string{}
		}
		c.Payload = strings.TrimSuffix(f, ".expect.json") + ".json"
		cases = append(cases, c)
	}
	return cases
}
