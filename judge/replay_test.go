package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/internal/agentsim"
	"github.com/agenttrace/agenttrace/internal/artifacttest"
	"github.com/agenttrace/agenttrace/judge"
	"github.com/agenttrace/agenttrace/redact"
	"github.com/agenttrace/agenttrace/store"
)

// demoRun records the demo's agent the way `agenttrace demo` does (the SDK
// span processor writing an artifact), with a token budget when budget >
// 0, and returns its records.
func demoRun(t *testing.T, budget int64) []artifact.Record {
	t.Helper()
	dir := t.TempDir()
	opts := []bridge.Option{bridge.WithDirectory(dir, store.ByTrace)}
	if budget > 0 {
		opts = append(opts, bridge.WithBudget(budget))
	}
	p, err := bridge.New(opts...)
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(append(agentsim.TracerProviderOptions(1), sdktrace.WithSpanProcessor(p))...)
	agentsim.Run(context.Background(), tp, agentsim.Config{Guard: p.Guard})
	require.NoError(t, tp.Shutdown(context.Background()))
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	require.Len(t, paths, 1)
	recs, _ := artifacttest.Read(t, paths[0])
	return recs
}

// travelTools is today's version of the demo's tools: the flight search
// is still down (503), everything else answers. broken names a tool that
// now fails.
func travelTools(broken string) (judge.Dispatcher, *[]string) {
	var seen []string
	return func(_ context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		seen = append(seen, tool)
		if !json.Valid(args) {
			return nil, fmt.Errorf("%s: arguments are not JSON", tool)
		}
		switch tool {
		case broken:
			return nil, &judge.CallError{Code: "500", Message: tool + " is down"}
		case "search_flights":
			return nil, &judge.CallError{Code: "503", Message: "flights.example: 503 Service Unavailable"}
		case "search_trains", "search_hotels", "find_hotels":
			return json.RawMessage(`{"ok":true}`), nil
		}
		return nil, &judge.CallError{Code: "UNKNOWN_TOOL", Message: tool}
	}, &seen
}

// TestReplayDemo: the demo's run replays through today's tools with every
// call matched; with one tool changed, exactly that call diverges.
func TestReplayDemo(t *testing.T) {
	recs := demoRun(t, 0)
	dispatch, seen := travelTools("")
	rep, err := judge.Replay(context.Background(), recs, dispatch)
	require.NoError(t, err)
	assert.Equal(t, judge.ReplayCounts{Calls: 4, Matched: 4}, rep.Counts)
	assert.False(t, rep.Diverged)
	assert.Equal(t, []string{"search_trains", "search_flights", "find_hotels", "search_hotels"}, *seen, "in start order")

	dispatch, _ = travelTools("search_trains")
	rep, err = judge.Replay(context.Background(), recs, dispatch)
	require.NoError(t, err)
	assert.Equal(t, judge.ReplayCounts{Calls: 4, Matched: 3, Diverged: 1}, rep.Counts)
	assert.True(t, rep.Diverged)
	var diverged []string
	for _, c := range rep.Calls {
		if c.Status == judge.Diverged {
			diverged = append(diverged, fmt.Sprint(c.Recorded.Tool, " ", c.Fields))
			assert.Equal(t, &judge.ReplayOutcome{OK: false, Code: "500", Message: "search_trains is down"}, c.Replayed)
			assert.NotEmpty(t, c.Changes, "what the result was, and the error now")
		}
	}
	assert.Equal(t, []string{"search_trains [ok]"}, diverged)

	// The flight search answering again is a divergence too: its outcome
	// changed.
	dispatch, _ = travelTools("")
	rep, err = judge.Replay(context.Background(), recs, func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		if tool == "search_flights" {
			return json.RawMessage(`{"flights":[]}`), nil
		}
		return dispatch(ctx, tool, args)
	})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Counts.Diverged)
}

// TestReplayBudgetStopped: the call the budget stopped is skipped, not
// replayed: its outcome was the budget's.
func TestReplayBudgetStopped(t *testing.T) {
	recs := demoRun(t, 3000)
	dispatch, seen := travelTools("")
	rep, err := judge.Replay(context.Background(), recs, dispatch)
	require.NoError(t, err)
	assert.Equal(t, judge.ReplayCounts{Calls: 3, Matched: 2, Skipped: 1}, rep.Counts)
	assert.NotContains(t, *seen, "find_hotels")
}

// sessionRun is a run whose later calls use ids earlier results returned:
// a session, and an order inside a URL.
func sessionRun(t *testing.T, redacted bool) []artifact.Record {
	r := newRun("session", time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
	r.tool("c0", "", "launch", "", 0, 10, `{"app":"shop"}`, `{"session_id":"s-1f9c"}`)
	r.tool("c1", "", "create_order", "", 20, 30, `{"sessionId":"s-1f9c","sku":"tent-3"}`, `{"order":{"id":"ord_8Kq2vX7p"},"status":"s-1f9c-ok"}`)
	token := `"tok-live"`
	if redacted {
		token = `"[REDACTED]"`
	}
	r.tool("c2", "", "pay", "", 40, 50, `{"sessionId":"s-1f9c","url":"https://shop.example/orders/ord_8Kq2vX7p/pay","token":`+token+`}`, `{"paid":true}`)
	r.tool("c3", "", "close", "", 60, 70, `{"sessionId":"s-1f9c"}`, `{}`)
	return r.records()
}

// TestReplayIDMap: ids the recorded results returned and later arguments
// used are rewritten to the ids the new run returned.
func TestReplayIDMap(t *testing.T) {
	var got []string
	dispatch := func(_ context.Context, tool string, args json.RawMessage) (json.RawMessage, error) {
		got = append(got, tool+" "+string(args))
		switch tool {
		case "launch":
			return json.RawMessage(`{"session_id":"s-77aa"}`), nil
		case "create_order":
			return json.RawMessage(`{"order":{"id":"ord_Zz91mmQ0"},"status":"s-77aa-ok"}`), nil
		}
		return json.RawMessage(`{}`), nil
	}
	rep, err := judge.Replay(context.Background(), sessionRun(t, false), dispatch)
	require.NoError(t, err)
	assert.Equal(t, judge.ReplayCounts{Calls: 4, Matched: 4}, rep.Counts)
	assert.Equal(t, map[string]string{"s-1f9c": "s-77aa", "ord_8Kq2vX7p": "ord_Zz91mmQ0"}, rep.IDs,
		"status differs too, but no later call uses it")
	assert.Equal(t, []string{
		`launch {"app":"shop"}`,
		`create_order {"sessionId":"s-77aa","sku":"tent-3"}`,
		`pay {"sessionId":"s-77aa","token":"tok-live","url":"https://shop.example/orders/ord_Zz91mmQ0/pay"}`,
		`close {"sessionId":"s-77aa"}`,
	}, got)
	assert.Equal(t, []string{"args.sessionId", "args.url"}, rep.Calls[2].Rewritten)
}

// TestReplayRedacted: a call whose arguments were redacted is not
// replayable and is not run; the others are.
func TestReplayRedacted(t *testing.T) {
	var ran []string
	dispatch := func(_ context.Context, tool string, _ json.RawMessage) (json.RawMessage, error) {
		ran = append(ran, tool)
		return json.RawMessage(`{"session_id":"s-1f9c","order":{"id":"ord_8Kq2vX7p"}}`), nil
	}
	rep, err := judge.Replay(context.Background(), sessionRun(t, true), dispatch)
	require.NoError(t, err)
	assert.Equal(t, judge.ReplayCounts{Calls: 4, Matched: 3, NotReplayable: 1}, rep.Counts)
	assert.False(t, rep.Diverged)
	assert.Equal(t, []string{"launch", "create_order", "close"}, ran)
	assert.Equal(t, judge.NotReplayable, rep.Calls[2].Status)
	assert.Contains(t, rep.Calls[2].Reason, "redacted")
}

// TestReplayDryRun: a dry run validates arguments and dispatches nothing.
func TestReplayDryRun(t *testing.T) {
	validate := func(_ context.Context, tool string, args json.RawMessage) error {
		if tool == "pay" && !strings.Contains(string(args), `"amount"`) {
			return &judge.CallError{Code: "BAD_ARGUMENT", Message: "pay: amount is required"}
		}
		return nil
	}
	rep, err := judge.Replay(context.Background(), sessionRun(t, false), nil, judge.WithDryRun(validate))
	require.NoError(t, err)
	assert.True(t, rep.DryRun)
	assert.Equal(t, judge.ReplayCounts{Calls: 4, Matched: 3, Diverged: 1}, rep.Counts)
	assert.Equal(t, &judge.ReplayOutcome{Code: "BAD_ARGUMENT", Message: "pay: amount is required"}, rep.Calls[2].Replayed)
	assert.Empty(t, rep.IDs, "nothing ran, so no id was learned")

	_, err = judge.Replay(context.Background(), sessionRun(t, false), nil)
	assert.ErrorIs(t, err, judge.ErrNoDispatcher)
}

// TestReplayCodes: failures are compared on their code when the new one
// has a code, on success alone when it does not.
func TestReplayCodes(t *testing.T) {
	recs := seqRun("codes", []seqCall{{"click", `{"ref":"e9"}`, "REF_STALE"}})
	tests := []struct {
		name   string
		err    error
		status judge.ReplayStatus
	}{
		{"same code", &judge.CallError{Code: "REF_STALE"}, judge.Matched},
		{"wrapped", fmt.Errorf("click: %w", &judge.CallError{Code: "REF_STALE"}), judge.Matched},
		{"other code", &judge.CallError{Code: "REF_NOT_FOUND"}, judge.Diverged},
		{"no code", errors.New("it failed"), judge.Matched},
		{"success", nil, judge.Diverged},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := judge.Replay(context.Background(), recs, func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
				if tt.err != nil {
					return nil, tt.err
				}
				return json.RawMessage(`{"ok":true}`), nil
			})
			require.NoError(t, err)
			assert.Equal(t, tt.status, rep.Calls[0].Status)
		})
	}
}

// TestReplayCancel: a cancelled context stops the replay between calls,
// and the report holds the calls made.
func TestReplayCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	rep, err := judge.Replay(ctx, sessionRun(t, false), func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		if n++; n == 2 {
			cancel()
		}
		return json.RawMessage(`{}`), nil
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Len(t, rep.Calls, 2)
}

func TestReplayWriteText(t *testing.T) {
	dispatch, _ := travelTools("search_trains")
	rep, err := judge.Replay(context.Background(), demoRun(t, 0), dispatch)
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, rep.WriteText(&b))
	assert.True(t, strings.HasPrefix(b.String(), "Replay  diverged\nCalls    4: 3 matched, 1 diverged, 0 not replayable, 0 skipped\n\n[0] diverged (ok)\n  was    search_trains  ok  (span "), b.String())
	assert.Contains(t, b.String(), "  now    failed 500: search_trains is down\n")
}

// TestReplaySeesRedactPlaceholder: what replay and diff take for a
// redaction placeholder is what package redact writes, whole or inside a
// string the secret scan left ("Bearer [REDACTED]").
func TestReplaySeesRedactPlaceholder(t *testing.T) {
	for _, v := range []string{redact.Placeholder, "Bearer " + redact.Placeholder, "[redacted]"} {
		args, _ := json.Marshal(map[string]string{"auth": v})
		recs := seqRun("placeholder", []seqCall{{"call_api", string(args), ""}})
		rep, err := judge.Replay(context.Background(), recs, func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			t.Fatal("a redacted call must not run")
			return nil, nil
		})
		require.NoError(t, err)
		assert.Equal(t, judge.ReplayCounts{Calls: 1, NotReplayable: 1}, rep.Counts, v)
	}
}

// FuzzReplayResult: whatever a dispatcher returns, replay judges it
// without panicking and its report is JSON.
func FuzzReplayResult(f *testing.F) {
	f.Add([]byte(`{"session_id":"s-2"}`), false)
	f.Add([]byte(`not json`), false)
	f.Add([]byte(`"{\"a\":[1,2]}"`), true)
	f.Add([]byte{}, true)
	recs := seqRun("fuzz", []seqCall{{"launch", `{"app":"x"}`, ""}, {"use", `{"session":"s-1"}`, ""}})
	f.Fuzz(func(t *testing.T, result []byte, fail bool) {
		rep, err := judge.Replay(context.Background(), recs, func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
			if fail {
				return result, &judge.CallError{Code: string(result)}
			}
			return result, nil
		})
		require.NoError(t, err)
		require.Len(t, rep.Calls, 2)
		_, err = json.Marshal(rep)
		require.NoError(t, err)
	})
}
