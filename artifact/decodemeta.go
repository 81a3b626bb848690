package artifact

import (
	"errors"
	"fmt"
	"time"
)

// decodeMeta decodes a header line. Besides the current fields it accepts
// the tool-dispatch trace's budget shapes: budget_tokens and warn_threshold
// at the top level, or "budget" as a number or an object.
func (d *decoder) decodeMeta(line []byte) (*Meta, error) {
	s := &d.sc
	s.Reset(line)
	m := NewMeta(time.Time{})
	m.Producer = ""
	m.Version = 0
	var resRaw, scopeRaw []byte
	var resDropped uint32
	var budget Budget
	hasBudget, hasStart := false, false
	if !s.Open('{') {
		return nil, s.Err
	}
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "v":
			m.Version = int(s.Int())
		case "started_at":
			ns := d.timestamp()
			m.StartedAt = UnixNano(ns)
			hasStart = true
		case "producer":
			m.Producer = s.Str()
		case "core_version":
			m.CoreVersion = s.Str()
		case "trace_id":
			m.TraceID = s.Str()
		case "conversation_id":
			m.ConversationID = s.Str()
		case "service":
			m.Service = s.Str()
		case "resource":
			resRaw = s.Skip()
		case "resource_dropped":
			resDropped = d.uint32()
		case "resource_schema_url":
			m.ResourceSchemaURL = s.Str()
		case "scope":
			scopeRaw = s.Skip()
		case "budget_tokens":
			budget.Tokens, hasBudget = s.Int(), true
		case "warn_threshold":
			budget.WarnThreshold = s.Float()
		case "budget":
			d.decodeBudget(&budget)
			hasBudget = true
		case "redacted":
			m.Redacted = s.Bool()
		case "secrets_scanned":
			m.SecretsScanned = s.Bool()
		default:
			s.SkipValue()
		}
	}
	s.End()
	if s.Err != nil {
		return nil, s.Err
	}
	if m.Version > Version {
		return nil, fmt.Errorf("%w: v=%d, this reader knows v=%d", ErrUnsupportedVersion, m.Version, Version)
	}
	if m.Version == 0 {
		m.Version = Version
	}
	if !hasStart {
		return nil, errors.New(`header has no "started_at"`)
	}
	if hasBudget {
		m.Budget = &budget
	}
	if resRaw != nil {
		s.Reset(resRaw)
		d.attrs(m.Resource.Attributes())
		if s.Err != nil {
			return nil, fmt.Errorf("resource: %w", s.Err)
		}
		m.Resource.SetDroppedAttributesCount(resDropped)
	}
	if scopeRaw != nil {
		schema, err := d.scopeInto(m.Scope, scopeRaw)
		if err != nil {
			return nil, fmt.Errorf("scope: %w", err)
		}
		m.ScopeSchemaURL = schema
	}
	putHeaderOwned(m)
	return m, nil
}

// decodeBudget reads a header's budget into b: a number of tokens (the
// older tool-dispatch traces' form) or an object.
func (d *decoder) decodeBudget(b *Budget) {
	s := &d.sc
	if s.Peek() != '{' {
		b.Tokens = int64(s.Float())
		return
	}
	s.Open('{')
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "budget_tokens", "tokens":
			b.Tokens = int64(s.Float())
		case "budget_usd":
			if usd := s.Float(); ValidUSD(usd) {
				b.USD = usd
			}
		case "warn_threshold":
			b.WarnThreshold = s.Float()
		default:
			s.SkipValue() // spent, overflowed: recomputed from the records
		}
	}
}

// decodeSummary decodes a trailer line.
func (d *decoder) decodeSummary(line []byte) (*Summary, error) {
	s := &d.sc
	s.Reset(line)
	sum := &Summary{}
	if !s.Open('{') {
		return nil, s.Err
	}
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "finished_at":
			sum.FinishedAt = UnixNano(d.timestamp())
		case "complete":
			sum.Complete = s.Bool()
		case "records":
			sum.Records = s.Int()
		case "calls":
			sum.Calls = s.Int()
		case "inferences":
			sum.Inferences = s.Int()
		case "agents":
			sum.Agents = s.Int()
		case "spans":
			sum.Spans = s.Int()
		case "errors":
			sum.Errors = s.Int()
		case "dropped":
			sum.Dropped = s.Int()
		case "truncated":
			sum.Truncated = s.Int()
		case "tokens":
			d.decodeTokens(&sum.Tokens)
		case "budget":
			sum.Budget = d.decodeBudgetStatus()
		default:
			s.SkipValue()
		}
	}
	s.End()
	if s.Err != nil {
		return nil, s.Err
	}
	return sum, nil
}

// decodeTokens reads a trailer's token totals into t.
func (d *decoder) decodeTokens(t *Tokens) {
	s := &d.sc
	if !s.Open('{') {
		return
	}
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "input":
			t.Input = s.Int()
		case "output":
			t.Output = s.Int()
		case "cache_read":
			t.CacheRead = s.Int()
		case "cache_creation":
			t.CacheCreation = s.Int()
		case "reasoning":
			t.Reasoning = s.Int()
		case "total":
			t.Total = s.Int()
		default:
			s.SkipValue()
		}
	}
}

// decodeBudgetStatus reads a trailer's budget: nil for null.
func (d *decoder) decodeBudgetStatus() *BudgetStatus {
	s := &d.sc
	if s.Literal("null") {
		return nil
	}
	b := &BudgetStatus{}
	if !s.Open('{') {
		return b
	}
	for first := true; s.More(&first, '}'); {
		switch string(s.Key()) {
		case "budget_tokens":
			b.BudgetTokens = s.Int()
		case "spent":
			b.Spent = s.Int()
		case "remaining":
			b.Remaining = s.Int()
		case "over_budget":
			b.OverBudget = s.Bool()
		case "near_budget":
			b.NearBudget = s.Bool()
		case "warn_threshold":
			b.WarnThreshold = s.Float()
		case "budget_usd":
			b.cost().BudgetUSD = s.Float()
		case "spent_usd":
			b.cost().SpentUSD = s.Float()
		case "remaining_usd":
			b.cost().RemainingUSD = s.Float()
		case "over_budget_usd":
			b.cost().OverBudgetUSD = s.Bool()
		case "near_budget_usd":
			b.cost().NearBudgetUSD = s.Bool()
		case "unpriced_calls":
			b.cost().UnpricedCalls = s.Int()
		default:
			s.SkipValue()
		}
	}
	return b
}
