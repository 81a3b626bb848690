package judge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/judge"
)

// A run recorded by the tool-dispatch trace (seed 000's format): launch an
// app, then snapshot and click in the session it returned.
const recordedRun = `{"v":1,"kind":"meta","started_at":1767261600000,"core_version":"0.9.1"}
{"kind":"call","tool":"launch","ok":true,"started_at":1767261600100,"elapsed_ms":900,"args":{"app":"demo"},"result":{"_meta":{"session_id":"s-41"}}}
{"kind":"call","tool":"snapshot","ok":true,"started_at":1767261601100,"elapsed_ms":40,"args":{"sessionId":"s-41"},"result":{"refs":12}}
{"kind":"call","tool":"click","ok":false,"code":"REF_NOT_FOUND","started_at":1767261601200,"elapsed_ms":3,"args":{"sessionId":"s-41","ref":"e9"}}
`

// ExampleReplay re-dispatches a recorded run through today's tools. The
// recorded session id is defunct; replay learns the new one from the
// launch's result and rewrites the later calls' arguments with it.
func ExampleReplay() {
	recs, err := readRecords(strings.NewReader(recordedRun))
	if err != nil {
		panic(err)
	}
	tools := func(_ context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		fmt.Printf("%s %s\n", tool, args)
		switch tool {
		case "launch":
			return json.RawMessage(`{"_meta":{"session_id":"s-97"}}`), nil
		case "snapshot":
			return json.RawMessage(`{"refs":14}`), nil
		}
		return nil, &judge.CallError{Code: "REF_NOT_FOUND", Message: "no element e9"}
	}
	rep, err := judge.Replay(context.Background(), recs, tools)
	if err != nil {
		panic(err)
	}
	fmt.Println()
	if err := rep.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// launch {"app":"demo"}
	// snapshot {"sessionId":"s-97"}
	// click {"ref":"e9","sessionId":"s-97"}
	//
	// Replay  every replayed call matched
	// Calls    3: 3 matched, 0 diverged, 0 not replayable, 0 skipped
	// Ids      s-41 -> s-97
}

// ExampleReplay_dryRun checks a recorded run against today's schemas
// without running anything: here the click tool now wants a selector.
func ExampleReplay_dryRun() {
	recs, err := readRecords(strings.NewReader(recordedRun))
	if err != nil {
		panic(err)
	}
	validate := func(_ context.Context, tool string, args json.RawMessage) error {
		if tool == "click" && !strings.Contains(string(args), `"selector"`) {
			return &judge.CallError{Code: "BAD_ARGUMENT", Message: "selector is required"}
		}
		return nil
	}
	rep, err := judge.Replay(context.Background(), recs, nil, judge.WithDryRun(validate))
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(rep.Counts)
	fmt.Println(string(out))
	// Output:
	// {"calls":3,"matched":2,"diverged":1,"not_replayable":0,"skipped":0}
}

// readRecords reads an artifact's records.
func readRecords(r io.Reader) ([]artifact.Record, error) {
	rd := artifact.NewReader(r)
	var recs []artifact.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, err
		}
		recs = append(recs, *rec)
	}
}
