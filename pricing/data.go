package pricing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dlclark/regexp2"
)

// ErrBadData is wrapped by every error about price data that does not
// follow the genai-prices schema, so a caller can tell bad data from a
// missing file.
var ErrBadData = errors.New("pricing: bad price data")

// file is prices.json as refresh.sh writes it.
type file struct {
	Source    string         `json:"source"`
	Version   string         `json:"version"`
	Providers []jsonProvider `json:"providers"`
}

type jsonProvider struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	ProviderMatch json.RawMessage `json:"provider_match"`
	ModelMatch    json.RawMessage `json:"model_match"`
	Fallback      []string        `json:"fallback_model_providers"`
	Models        []jsonModel     `json:"models"`
}

type jsonModel struct {
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Match  json.RawMessage `json:"match"`
	Prices json.RawMessage `json:"prices"`
}

type jsonConditional struct {
	Constraint *jsonConstraint            `json:"constraint"`
	Prices     map[string]json.RawMessage `json:"prices"`
}

type jsonConstraint struct {
	Type      string `json:"type"`
	StartDate string `json:"start_date"`
	StartTime string `json:"start_time"`
	EndTime   string `json:"end_time"`
}

// matcher is the data's MatchLogic: equals, starts_with, ends_with and
// contains compare case-insensitively; regex is an ECMAScript expression
// (the data uses lookaheads, which Go's regexp lacks, hence regexp2).
type matcher struct {
	op   string // "equals", "starts_with", "ends_with", "contains", "regex", "and", "or"
	s    string // lowercased operand
	re   *regexp2.Regexp
	subs []matcher
}

func parseMatcher(raw json.RawMessage, where string) (matcher, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		return matcher{}, fmt.Errorf("%w: %s: a match is an object with one key, got %s", ErrBadData, where, raw)
	}
	for op, v := range m {
		switch op {
		case "and", "or":
			var subs []json.RawMessage
			if err := json.Unmarshal(v, &subs); err != nil {
				return matcher{}, fmt.Errorf("%w: %s: %s wants a list: %w", ErrBadData, where, op, err)
			}
			out := matcher{op: op, subs: make([]matcher, 0, len(subs))}
			for _, s := range subs {
				sm, err := parseMatcher(s, where)
				if err != nil {
					return matcher{}, err
				}
				out.subs = append(out.subs, sm)
			}
			return out, nil
		case "equals", "starts_with", "ends_with", "contains", "regex":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				return matcher{}, fmt.Errorf("%w: %s: %s wants a string: %w", ErrBadData, where, op, err)
			}
			if op == "regex" {
				re, err := regexp2.Compile(s, regexp2.ECMAScript)
				if err != nil {
					return matcher{}, fmt.Errorf("%w: %s: regex %q: %w", ErrBadData, where, s, err)
				}
				// No MatchTimeout: it starts a clock goroutine that outlives
				// every caller, and the data's expressions are anchored
				// prefixes, reviewed when refresh.sh brings new ones.
				return matcher{op: op, re: re}, nil
			}
			return matcher{op: op, s: strings.ToLower(s)}, nil
		default:
			return matcher{}, fmt.Errorf("%w: %s: unknown match %q", ErrBadData, where, op)
		}
	}
	panic("unreachable")
}

// match reports whether id, already lowercased and trimmed as the data's
// calculator does before matching, matches.
func (m *matcher) match(id string) bool {
	switch m.op {
	case "equals":
		return id == m.s
	case "starts_with":
		return strings.HasPrefix(id, m.s)
	case "ends_with":
		return strings.HasSuffix(id, m.s)
	case "contains":
		return strings.Contains(id, m.s)
	case "regex":
		ok, err := m.re.MatchString(id)
		return err == nil && ok
	case "and":
		for i := range m.subs {
			if !m.subs[i].match(id) {
				return false
			}
		}
		return len(m.subs) > 0
	case "or":
		for i := range m.subs {
			if m.subs[i].match(id) {
				return true
			}
		}
	}
	return false
}

// tier is a price that applies from a prompt size on.
type tier struct {
	start int64
	price float64
}

// price is one price per unit (per million tokens, or per thousand
// requests), perhaps tiered by the prompt's input tokens.
type price struct {
	set   bool
	base  float64
	tiers []tier // ascending by start
}

// at is the price for a prompt of input tokens: a tier applies to all of
// the unit's usage once input exceeds its start, as the data's calculator
// has it.
func (p price) at(input int64) float64 {
	v := p.base
	for _, t := range p.tiers {
		if input > t.start {
			v = t.price
		}
	}
	return v
}

// Prices are one model's prices in a period, in dollars per million tokens
// (RequestsK per thousand requests). A part priced apart (cache reads,
// cache writes, reasoning) has Has* set; otherwise it is charged as part
// of its whole.
type Prices struct {
	input, cacheRead, cacheWrite, output, reasoning, requestsK price
}

// priceKeys maps the data's price keys to the units this package counts.
// Keys for usage agenttrace never records (audio, images, searches,
// pages) price nothing here: their usage is zero, so they add nothing and
// take nothing from their wholes.
func (p *Prices) slot(key string) *price {
	switch key {
	case "input_mtok":
		return &p.input
	case "cache_read_mtok":
		return &p.cacheRead
	case "cache_write_mtok":
		return &p.cacheWrite
	case "output_mtok":
		return &p.output
	case "output_reasoning_mtok":
		return &p.reasoning
	case "requests_kcount":
		return &p.requestsK
	}
	return nil
}

func parsePrices(raw map[string]json.RawMessage, where string) (Prices, error) {
	var ps Prices
	for k, v := range raw {
		var pr price
		var n float64
		if err := json.Unmarshal(v, &n); err == nil {
			pr = price{set: true, base: n}
		} else {
			var t struct {
				Base  *float64 `json:"base"`
				Tiers []struct {
					Start *int64   `json:"start"`
					Price *float64 `json:"price"`
				} `json:"tiers"`
			}
			if err := json.Unmarshal(v, &t); err != nil || t.Base == nil {
				return Prices{}, fmt.Errorf("%w: %s: price %s is neither a number nor tiered prices: %s", ErrBadData, where, k, v)
			}
			pr = price{set: true, base: *t.Base}
			for _, x := range t.Tiers {
				if x.Start == nil || x.Price == nil || *x.Start < 0 || *x.Price < 0 {
					return Prices{}, fmt.Errorf("%w: %s: price %s has a tier without a start and a price of 0 or more", ErrBadData, where, k)
				}
				pr.tiers = append(pr.tiers, tier{start: *x.Start, price: *x.Price})
			}
			sortTiers(pr.tiers)
		}
		if pr.base < 0 {
			return Prices{}, fmt.Errorf("%w: %s: price %s is negative", ErrBadData, where, k)
		}
		if s := ps.slot(k); s != nil {
			*s = pr
		}
	}
	return ps, nil
}

func sortTiers(ts []tier) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].start < ts[j-1].start; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// period is a model's prices with the constraint that selects them.
type period struct {
	kind     string // "" (always), "start_date", "time_of_date"
	from     time.Time
	dayStart int // seconds after midnight UTC, for time_of_date
	dayEnd   int
	prices   Prices
}

func (p *period) applies(at time.Time) bool {
	switch p.kind {
	case "":
		return true
	case "start_date":
		return !at.Before(p.from)
	case "time_of_date":
		u := at.UTC()
		s := u.Hour()*3600 + u.Minute()*60 + u.Second()
		if p.dayEnd < p.dayStart { // spans midnight
			return s >= p.dayStart || s < p.dayEnd
		}
		return s >= p.dayStart && s < p.dayEnd
	}
	return false
}

// dayTime parses the data's time of day ("08:30:00Z", "16:30:00+08:00")
// into seconds after midnight UTC.
func dayTime(s string) (int, error) {
	for _, layout := range []string{"15:04:05Z07:00", "15:04:05.999999999Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			_, off := t.Zone()
			sec := t.Hour()*3600 + t.Minute()*60 + t.Second() - off
			return ((sec % 86400) + 86400) % 86400, nil
		}
	}
	return 0, fmt.Errorf("time of day %q", s)
}

func parsePeriods(raw json.RawMessage, where string) ([]period, error) {
	if len(raw) > 0 && raw[0] == '{' {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("%w: %s: prices: %w", ErrBadData, where, err)
		}
		ps, err := parsePrices(m, where)
		if err != nil {
			return nil, err
		}
		return []period{{prices: ps}}, nil
	}
	var cs []jsonConditional
	if err := json.Unmarshal(raw, &cs); err != nil || len(cs) == 0 {
		return nil, fmt.Errorf("%w: %s: prices are neither an object nor a list of conditional prices", ErrBadData, where)
	}
	out := make([]period, 0, len(cs))
	for _, c := range cs {
		ps, err := parsePrices(c.Prices, where)
		if err != nil {
			return nil, err
		}
		p := period{prices: ps}
		if k := c.Constraint; k != nil {
			switch {
			case k.Type == "start_date" || k.Type == "" && k.StartDate != "":
				d, err := time.Parse(time.DateOnly, k.StartDate)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: start_date %q: %w", ErrBadData, where, k.StartDate, err)
				}
				p.kind, p.from = "start_date", d
			case k.Type == "time_of_date" || k.Type == "" && k.StartTime != "":
				s, err1 := dayTime(k.StartTime)
				e, err2 := dayTime(k.EndTime)
				if err := errors.Join(err1, err2); err != nil {
					return nil, fmt.Errorf("%w: %s: %w", ErrBadData, where, err)
				}
				p.kind, p.dayStart, p.dayEnd = "time_of_date", s, e
			default:
				return nil, fmt.Errorf("%w: %s: unknown price constraint %q", ErrBadData, where, k.Type)
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// pick returns the prices in force at at: the last period whose
// constraint holds, else the first, as the data's calculator chooses.
func pick(ps []period, at time.Time) *Prices {
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].applies(at) {
			return &ps[i].prices
		}
	}
	return &ps[0].prices
}
