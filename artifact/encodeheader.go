package artifact

import (
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/internal/jsonlex"
)

// AppendMeta appends m as the header line, newline included.
func AppendMeta(dst []byte, m *Meta) []byte {
	v := m.Version
	if v == 0 {
		v = Version
	}
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, int64(v), 10)
	dst = append(dst, `,"kind":"meta","started_at":`...)
	dst = appendTime(dst, m.StartedAt)
	for _, kv := range [...]struct{ k, v string }{
		{"producer", m.Producer}, {"core_version", m.CoreVersion}, {"trace_id", m.TraceID},
		{"conversation_id", m.ConversationID}, {"service", m.Service},
	} {
		if kv.v != "" {
			dst = appendField(dst, kv.k)
			dst = jsonlex.AppendString(dst, kv.v)
		}
	}
	if res := m.Resource; res != (pcommon.Resource{}) || m.ResourceSchemaURL != "" {
		if res == (pcommon.Resource{}) {
			res = pcommon.NewResource()
		}
		// The budget and redaction attributes are said by the fields below:
		// the first of each, as a map that repeats a key (OTLP input may)
		// keeps only one of them anyway.
		var skip [4]int32
		var owned [4]string
		n, i := 0, int32(0)
		for k, v := range res.Attributes().All() {
			i++
			if headerOwned(m, k, v) && !slices.Contains(owned[:n], k) {
				skip[n], owned[n] = i, k
				n++
			}
		}
		if res.Attributes().Len() > n || res.DroppedAttributesCount() > 0 || m.ResourceSchemaURL != "" {
			dst = append(dst, `,"resource":`...)
			dst = appendMap(dst, res.Attributes(), skip[:n])
			if d := res.DroppedAttributesCount(); d > 0 {
				dst = append(dst, `,"resource_dropped":`...)
				dst = strconv.AppendUint(dst, uint64(d), 10)
			}
			if m.ResourceSchemaURL != "" {
				dst = append(dst, `,"resource_schema_url":`...)
				dst = jsonlex.AppendString(dst, m.ResourceSchemaURL)
			}
		}
	}
	if sc := m.Scope; sc != (pcommon.InstrumentationScope{}) && (sc.Name() != "" || sc.Version() != "" || sc.Attributes().Len() > 0 || sc.DroppedAttributesCount() > 0) || m.ScopeSchemaURL != "" {
		if sc == (pcommon.InstrumentationScope{}) {
			sc = pcommon.NewInstrumentationScope()
		}
		dst = append(dst, `,"scope":`...)
		dst = appendScope(dst, sc, m.ScopeSchemaURL)
	}
	if b := m.Budget; b != nil {
		dst = append(dst, `,"budget":{"budget_tokens":`...)
		dst = strconv.AppendInt(dst, b.Tokens, 10)
		if b.USD > 0 {
			dst = append(dst, `,"budget_usd":`...)
			dst = strconv.AppendFloat(dst, b.USD, 'g', -1, 64)
		}
		dst = append(dst, `,"warn_threshold":`...)
		dst = strconv.AppendFloat(dst, b.Threshold(), 'g', -1, 64)
		dst = append(dst, '}')
	}
	if m.Redacted {
		dst = append(dst, `,"redacted":true`...)
	}
	if m.SecretsScanned {
		dst = append(dst, `,"secrets_scanned":true`...)
	}
	return append(dst, '}', '\n')
}

// AppendSummary appends s as the trailer line, newline included.
func AppendSummary(dst []byte, s *Summary) []byte {
	dst = append(dst, `{"kind":"summary","finished_at":`...)
	dst = appendTime(dst, s.FinishedAt)
	dst = append(dst, `,"complete":`...)
	dst = strconv.AppendBool(dst, s.Complete)
	for _, kv := range [...]struct {
		k string
		v int64
	}{{"records", s.Records}, {"calls", s.Calls}, {"inferences", s.Inferences}, {"agents", s.Agents}, {"spans", s.Spans}, {"errors", s.Errors}} {
		dst = appendField(dst, kv.k)
		dst = strconv.AppendInt(dst, kv.v, 10)
	}
	t := s.Tokens
	dst = append(dst, `,"tokens":{"input":`...)
	dst = strconv.AppendInt(dst, t.Input, 10)
	dst = append(dst, `,"output":`...)
	dst = strconv.AppendInt(dst, t.Output, 10)
	dst = append(dst, `,"cache_read":`...)
	dst = strconv.AppendInt(dst, t.CacheRead, 10)
	dst = append(dst, `,"cache_creation":`...)
	dst = strconv.AppendInt(dst, t.CacheCreation, 10)
	dst = append(dst, `,"reasoning":`...)
	dst = strconv.AppendInt(dst, t.Reasoning, 10)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, t.Total, 10)
	dst = append(dst, '}')
	if b := s.Budget; b != nil {
		dst = append(dst, `,"budget":{"budget_tokens":`...)
		dst = strconv.AppendInt(dst, b.BudgetTokens, 10)
		dst = append(dst, `,"spent":`...)
		dst = strconv.AppendInt(dst, b.Spent, 10)
		dst = append(dst, `,"remaining":`...)
		dst = strconv.AppendInt(dst, b.Remaining, 10)
		dst = append(dst, `,"over_budget":`...)
		dst = strconv.AppendBool(dst, b.OverBudget)
		dst = append(dst, `,"near_budget":`...)
		dst = strconv.AppendBool(dst, b.NearBudget)
		dst = append(dst, `,"warn_threshold":`...)
		dst = strconv.AppendFloat(dst, b.WarnThreshold, 'g', -1, 64)
		if c := b.CostBudget; c != nil {
			dst = appendCostBudget(dst, c)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"dropped":`...)
	dst = strconv.AppendInt(dst, s.Dropped, 10)
	if s.Truncated > 0 {
		dst = append(dst, `,"truncated":`...)
		dst = strconv.AppendInt(dst, s.Truncated, 10)
	}
	return append(dst, '}', '\n')
}

// appendCostBudget appends the cost budget's members of a trailer's
// budget, after the token budget's (docs/format.md §10).
func appendCostBudget(dst []byte, c *CostBudget) []byte {
	dst = append(dst, `,"budget_usd":`...)
	dst = strconv.AppendFloat(dst, c.BudgetUSD, 'g', -1, 64)
	dst = append(dst, `,"spent_usd":`...)
	dst = strconv.AppendFloat(dst, c.SpentUSD, 'g', -1, 64)
	dst = append(dst, `,"remaining_usd":`...)
	dst = strconv.AppendFloat(dst, c.RemainingUSD, 'g', -1, 64)
	dst = append(dst, `,"over_budget_usd":`...)
	dst = strconv.AppendBool(dst, c.OverBudgetUSD)
	dst = append(dst, `,"near_budget_usd":`...)
	dst = strconv.AppendBool(dst, c.NearBudgetUSD)
	dst = append(dst, `,"unpriced_calls":`...)
	return strconv.AppendInt(dst, c.UnpricedCalls, 10)
}
