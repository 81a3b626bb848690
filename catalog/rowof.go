package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/converter"
	"github.com/agenttrace/agenttrace/importer"
	"github.com/agenttrace/agenttrace/report"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// ErrNoRun is returned by [RowOf] for a stream that holds no run: no
// record could be read, and no header says when a run started.
var ErrNoRun = errors.New("no run: no readable record or header")

// Source says where an artifact stream comes from.
type Source struct {
	// Name names the stream in errors ("runs/abc.jsonl").
	Name string
	// Keys are the run's objects; the first names the run (see [RunOf]).
	Keys []string
	// Bytes is the objects' summed size.
	Bytes int64
	// Size is the stream's own size when the caller knows it (a local
	// file's; 0 when not): it is read into one block of that size
	// (artifact.WithSize).
	Size int64
}

// RowOf reads an artifact stream (a run's generations merged) and returns
// its row. The numbers are those `agenttrace tokens --json` prints for the
// same stream: the records are read by artifact.Reader and reported by
// report.Tokens exactly as the tokens command reads and reports one
// artifact (its header's budget, its trailer for what it dropped, its log
// records), so the two never disagree. Lines that cannot be read are
// skipped as tokens skips them and counted in Row.Problems.
func RowOf(r io.Reader, src Source) (Row, error) {
	var logs []artifact.LogRecord
	var problems int64
	rd := artifact.NewReader(r, artifact.WithSource(src.Name), artifact.WithSize(src.Size),
		artifact.WithProblemHandler(func(*artifact.LineError) { problems++ }),
		artifact.WithLogs(func(l *artifact.LogRecord) { logs = append(logs, *l) }))
	var recs []artifact.Record
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Row{}, fmt.Errorf("catalog: %w", err)
		}
		recs = append(recs, *rec)
	}
	meta, sum := rd.Meta(), rd.Summary()
	if meta == nil || (len(recs) == 0 && meta.StartedAt.IsZero()) {
		return Row{}, fmt.Errorf("catalog: %s: %w (%d bad lines)", src.Name, ErrNoRun, problems)
	}
	rep := tokensOf(recs, meta, sum, logs)
	row := Row{
		TraceID: meta.TraceID, ConversationID: meta.ConversationID, Service: meta.Service,
		Started: meta.StartedAt, Version: int32(meta.Version),
		Keys: slices.Clone(src.Keys), Bytes: src.Bytes, Problems: problems,
		Complete: sum != nil && sum.Complete,
	}
	if len(src.Keys) > 0 {
		row.Run = RunOf(src.Keys[0])
	}
	row.setReport(rep)
	row.setNames(recs, logs)
	row.Ended = ended(recs, sum)
	if !row.Ended.IsZero() && !row.Started.IsZero() {
		row.DurationMS = max(row.Ended.Sub(row.Started).Milliseconds(), 0)
	}
	row.own()
	return row, nil
}

// tokensOf is the tokens command's report of one artifact: its records
// ordered and linked as the command orders them, its header's budget
// through the store's header policy, its trailer and its log records.
func tokensOf(file []artifact.Record, meta *artifact.Meta, sum *artifact.Summary, logs []artifact.LogRecord) *report.TokenReport {
	recs := slices.Clone(file)
	importer.AsOneRun(recs)
	opts := store.HeaderOptions{Whole: true, Redacted: meta.Redacted}
	if meta.Budget != nil {
		b := *meta.Budget
		opts.Budget = &b
	}
	header := store.Header(store.Key{Kind: store.KindRun}, recs, opts)
	ropts := []report.Option{report.WithTop(0), report.WithLogs(logs)}
	if sum != nil {
		ropts = append(ropts, report.WithTrailer(sum, file))
	}
	return report.Tokens(recs, header, ropts...)
}

// setReport copies the report's numbers.
func (r *Row) setReport(rep *report.TokenReport) {
	c := rep.Records
	r.Calls, r.Inferences, r.Agents, r.Spans = c.Call, c.Inference, c.Agent, c.Span
	r.Records, r.Errors = c.Total(), rep.Errors
	r.Dropped, r.Truncated = rep.Dropped, rep.Truncated
	t := rep.Tokens
	r.InputTokens, r.OutputTokens, r.TotalTokens = t.Input, t.Output, t.Total
	r.CacheReadTokens, r.CacheCreationTokens, r.ReasoningTokens = t.CacheRead, t.CacheCreation, t.Reasoning
	if rep.CostUSD != nil {
		v := *rep.CostUSD
		r.CostUSD = &v
	}
	r.CostUnknown = rep.CostUnknown
	if b := rep.Budget; b != nil {
		r.BudgetTokens, r.BudgetSpent = b.BudgetTokens, b.Spent
		r.OverBudget, r.NearBudget = b.OverBudget, b.NearBudget
		if cb := b.CostBudget; cb != nil {
			r.BudgetUSD, r.SpentUSD = cb.BudgetUSD, cb.SpentUSD
			r.OverBudgetUSD, r.NearBudgetUSD = cb.OverBudgetUSD, cb.NearBudgetUSD
		}
	}
	r.Models = make([]string, 0, len(rep.ByModel))
	for _, m := range rep.ByModel {
		r.Models = append(r.Models, m.Model)
	}
	r.Tools = make([]string, 0, len(rep.ByTool))
	for _, t := range rep.ByTool {
		r.Tools = append(r.Tools, t.Tool)
	}
}

// setNames sets what names the run for people: its earliest local root's
// name, its earliest agent's name, and its first prompt.
func (r *Row) setNames(recs []artifact.Record, logs []artifact.LogRecord) {
	var rd semconv.Reading
	var rootAt, agentAt uint64
	for i := range recs {
		sp := recs[i].Span
		at := uint64(sp.StartTimestamp())
		if artifact.IsLocalRoot(sp) && (r.RootName == "" || at < rootAt) {
			r.RootName, rootAt = sp.Name(), at
		}
		recs[i].Read(&rd)
		if rd.Kind != semconv.Agent || (r.Agent != "" && at >= agentAt) {
			continue
		}
		if name := cmp.Or(rd.Str(semconv.FieldAgent), sp.Name()); name != "" {
			r.Agent, agentAt = name, at
		}
	}
	r.FirstPrompt = firstPrompt(recs, logs)
}

// firstPrompt is the first user message of the earliest model call, as
// `agenttrace messages` normalizes it, cut to PromptChars characters.
// The calls are taken earliest first and normalized one at a time: the
// first call has the prompt in most runs, and normalizing every call's
// messages was most of a row's cost.
func firstPrompt(recs []artifact.Record, logs []artifact.LogRecord) string {
	byStart := func(i, j int) int {
		return cmp.Compare(recs[i].Span.StartTimestamp(), recs[j].Span.StartTimestamp())
	}
	for mc := range converter.NewBatch(converter.LogsAsEvents(recs, logs)).ModelCallsBy(byStart) {
		for _, m := range mc.Conversation.Input {
			if m.Role != semconv.RoleUser {
				continue
			}
			if text := strings.TrimSpace(m.Text()); text != "" {
				return cut(text, PromptChars)
			}
		}
	}
	return ""
}

// cut keeps the first n characters of s.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// ended is the latest span end, else the trailer's finished_at.
func ended(recs []artifact.Record, sum *artifact.Summary) time.Time {
	var end uint64
	for i := range recs {
		end = max(end, uint64(recs[i].Span.EndTimestamp()))
	}
	if end != 0 {
		return time.Unix(0, int64(end)).UTC()
	}
	if sum != nil {
		return sum.FinishedAt
	}
	return time.Time{}
}
