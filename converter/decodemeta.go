package converter

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
	s.reset(line)
	m := NewMeta(time.Time{})
	m.Producer = ""
	m.Version = 0
	var resRaw, scopeRaw []byte
	var resDropped uint32
	var budget Budget
	hasBudget, hasStart := false, false
	if !s.open('{') {
		return nil, s.err
	}
	for first := true; s.more(&first, '}'); {
		switch string(s.key()) {
		case "v":
			m.Version = int(s.int())
		case "started_at":
			ns := d.timestamp()
			m.StartedAt = UnixNano(ns)
			hasStart = true
		case "producer":
			m.Producer = s.str()
		case "core_version":
			m.CoreVersion = s.str()
		case "trace_id":
			m.TraceID = s.str()
		case "conversation_id":
			m.ConversationID = s.str()
		case "service":
			m.Service = s.str()
		case "resource":
			resRaw = s.skip()
		case "resource_dropped":
			resDropped = d.uint32()
		case "resource_schema_url":
			m.ResourceSchemaURL = s.str()
		case "scope":
			scopeRaw = s.skip()
		case "budget_tokens":
			budget.Tokens, hasBudget = s.int(), true
		case "warn_threshold":
			budget.WarnThreshold = s.float()
		case "budget":
			if s.peek() != '{' {
				budget.Tokens, hasBudget = int64(s.float()), true
				break
			}
			hasBudget = true
			s.open('{')
			for first := true; s.more(&first, '}'); {
				switch string(s.key()) {
				case "budget_tokens", "tokens":
					budget.Tokens = int64(s.float())
				case "budget_usd":
					if usd := s.float(); ValidUSD(usd) {
						budget.USD = usd
					}
				case "warn_threshold":
					budget.WarnThreshold = s.float()
				default:
					s.skipValue() // spent, overflowed: recomputed from the records
				}
			}
		case "redacted":
			m.Redacted = s.boolean()
		case "secrets_scanned":
			m.SecretsScanned = s.boolean()
		default:
			s.skipValue()
		}
	}
	s.end()
	if s.err != nil {
		return nil, s.err
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
		s.reset(resRaw)
		d.attrs(m.Resource.Attributes())
		if s.err != nil {
			return nil, fmt.Errorf("resource: %w", s.err)
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

// decodeSummary decodes a trailer line.
func (d *decoder) decodeSummary(line []byte) (*Summary, error) {
	s := &d.sc
	s.reset(line)
	sum := &Summary{}
	if !s.open('{') {
		return nil, s.err
	}
	for first := true; s.more(&first, '}'); {
		switch string(s.key()) {
		case "finished_at":
			sum.FinishedAt = UnixNano(d.timestamp())
		case "complete":
			sum.Complete = s.boolean()
		case "records":
			sum.Records = s.int()
		case "calls":
			sum.Calls = s.int()
		case "inferences":
			sum.Inferences = s.int()
		case "agents":
			sum.Agents = s.int()
		case "spans":
			sum.Spans = s.int()
		case "errors":
			sum.Errors = s.int()
		case "dropped":
			sum.Dropped = s.int()
		case "truncated":
			sum.Truncated = s.int()
		case "tokens":
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				t := &sum.Tokens
				switch string(s.key()) {
				case "input":
					t.Input = s.int()
				case "output":
					t.Output = s.int()
				case "cache_read":
					t.CacheRead = s.int()
				case "cache_creation":
					t.CacheCreation = s.int()
				case "reasoning":
					t.Reasoning = s.int()
				case "total":
					t.Total = s.int()
				default:
					s.skipValue()
				}
			}
		case "budget":
			if s.literal("null") {
				break
			}
			b := &BudgetStatus{}
			sum.Budget = b
			if !s.open('{') {
				break
			}
			for first := true; s.more(&first, '}'); {
				switch string(s.key()) {
				case "budget_tokens":
					b.BudgetTokens = s.int()
				case "spent":
					b.Spent = s.int()
				case "remaining":
					b.Remaining = s.int()
				case "over_budget":
					b.OverBudget = s.boolean()
				case "near_budget":
					b.NearBudget = s.boolean()
				case "warn_threshold":
					b.WarnThreshold = s.float()
				case "budget_usd":
					b.cost().BudgetUSD = s.float()
				case "spent_usd":
					b.cost().SpentUSD = s.float()
				case "remaining_usd":
					b.cost().RemainingUSD = s.float()
				case "over_budget_usd":
					b.cost().OverBudgetUSD = s.boolean()
				case "near_budget_usd":
					b.cost().NearBudgetUSD = s.boolean()
				case "unpriced_calls":
					b.cost().UnpricedCalls = s.int()
				default:
					s.skipValue()
				}
			}
		default:
			s.skipValue()
		}
	}
	s.end()
	if s.err != nil {
		return nil, s.err
	}
	return sum, nil
}
