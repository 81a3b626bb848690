package pricing

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agenttrace/agenttrace/semconv"
)

//go:embed prices.json
var embedded []byte

// DataFile names the vendored data in errors about it.
const DataFile = "pricing/prices.json"

// A Table is a loaded price data set. Lookups are cached (a model id is
// matched against the data once, not once per model call), and a Table is
// safe for concurrent use.
type Table struct {
	// Version is the genai-prices release the data comes from.
	Version   string
	providers []*provider
	byID      map[string]*provider
	cache     *lru.Cache[lookupKey, *Model]
	// last is the last model call's provider and model as the span
	// named them, with what they were priced as: a run, or a batch of
	// runs, mostly names one model, and a tally made per artifact (one
	// per trace in a store of runs) prices its first call here, with
	// one atomic load and two string compares instead of the cache's
	// lock, the names' normalizing and two hashes. One entry, so it
	// holds no more than the cache does.
	last atomic.Pointer[lastLookup]
}

// lastLookup is Table.last's entry.
type lastLookup struct {
	provider, model string // as the span named them
	m               *Model // nil: the data does not price it
}

type provider struct {
	id, name      string
	providerMatch *matcher
	modelMatch    *matcher
	fallback      []string
	models        []*Model
}

// Model is one model of the data: its ids and its prices over time.
type Model struct {
	// Provider and ID are the data's ids, which may differ from what a
	// span calls them (gpt-4o-2024-08-06 is priced as gpt-4o).
	Provider, ID, Name string
	match              matcher
	periods            []period
}

type lookupKey struct{ provider, model string }

// cacheSize bounds the lookup cache: a long-running exporter sees
// whatever model names its traffic carries.
const cacheSize = 4096

var (
	defaultOnce  sync.Once
	defaultTable *Table
	defaultErr   error
)

// Default returns the table of the vendored data, loaded on first use.
func Default() (*Table, error) {
	defaultOnce.Do(func() { defaultTable, defaultErr = Load(embedded, DataFile) })
	return defaultTable, defaultErr
}

// Load reads price data in the form refresh.sh writes; name says where it
// came from, for errors.
func Load(data []byte, name string) (*Table, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadData, name, err)
	}
	if len(f.Providers) == 0 {
		return nil, fmt.Errorf("%w: %s: no providers", ErrBadData, name)
	}
	cache, err := lru.New[lookupKey, *Model](cacheSize)
	if err != nil {
		return nil, fmt.Errorf("pricing: lookup cache: %w", err)
	}
	t := &Table{Version: f.Version, byID: make(map[string]*provider, len(f.Providers)), cache: cache}
	for _, jp := range f.Providers {
		where := fmt.Sprintf("%s: provider %q", name, jp.ID)
		p := &provider{id: jp.ID, name: jp.Name, fallback: jp.Fallback}
		if len(jp.ProviderMatch) > 0 && string(jp.ProviderMatch) != "null" {
			m, err := parseMatcher(jp.ProviderMatch, where+": provider_match")
			if err != nil {
				return nil, err
			}
			p.providerMatch = &m
		}
		if len(jp.ModelMatch) > 0 && string(jp.ModelMatch) != "null" {
			m, err := parseMatcher(jp.ModelMatch, where+": model_match")
			if err != nil {
				return nil, err
			}
			p.modelMatch = &m
		}
		for _, jm := range jp.Models {
			mw := fmt.Sprintf("%s model %q", where, jm.ID)
			m, err := parseMatcher(jm.Match, mw+": match")
			if err != nil {
				return nil, err
			}
			ps, err := parsePeriods(jm.Prices, mw)
			if err != nil {
				return nil, err
			}
			p.models = append(p.models, &Model{Provider: jp.ID, ID: jm.ID, Name: jm.Name, match: m, periods: ps})
		}
		t.providers = append(t.providers, p)
		t.byID[p.id] = p
	}
	return t, nil
}

// providerAliases maps the provider names the GenAI conventions use (as
// semconv.NormalizeProvider leaves them) to the data's provider ids where
// the data's own provider_match does not already take them: the
// conventions write x_ai and gcp.gemini where the data says x-ai and
// google; Azure's and Bedrock's names lead to their own lists, which fall
// back to the model makers' prices.
var providerAliases = map[string]string{
	"x_ai":               "x-ai",
	"gcp.gemini":         "google",
	"gcp.vertex_ai":      "google",
	"gcp.gen_ai":         "google",
	"azure.ai.openai":    "azure",
	"azure.ai.inference": "azure",
	"aws.bedrock":        "aws",
	"mistral_ai":         "mistral",
}

// Lookup finds the model a span's provider and model name are priced as,
// or nil when the data does not know it. provider may be empty. Matching
// follows the data's calculator: the provider by id or its
// provider_match (else by the model's model_match), then the provider's
// models in order, then its fallback providers', then the same with a
// dated id's date written with dashes (-20250514 → -2025-05-14). When a
// named provider does not know the model, every provider whose
// model_match takes it is tried too: OpenAI-compatible clients call
// other makers' models with provider "openai".
func (t *Table) Lookup(provider, model string) *Model {
	model = strings.ToLower(strings.TrimSpace(model))
	provider = strings.ToLower(strings.TrimSpace(provider))
	if model == "" {
		return nil
	}
	k := lookupKey{provider, model}
	if m, ok := t.cache.Get(k); ok {
		return m
	}
	m := t.lookup(provider, model)
	t.cache.Add(k, m)
	return m
}

// spanModel is Lookup(semconv.NormalizeProvider(provider), model), for
// the provider and model a span names: what [Table.UsageCost] and the
// Pricer price with. remember says whether a miss replaces t.last (an
// allocation): a Pricer that switches models, as one whose run
// alternates two does on every call, keeps its own entry and passes
// false.
func (t *Table) spanModel(provider, model string, remember bool) *Model {
	if l := t.last.Load(); l != nil && l.provider == provider && l.model == model {
		return l.m
	}
	m := t.Lookup(semconv.NormalizeProvider(provider), model)
	if remember {
		t.last.Store(&lastLookup{provider: provider, model: model, m: m})
	}
	return m
}

func (t *Table) lookup(provider, model string) *Model {
	if provider == "litellm" {
		// LiteLLM names the provider in the model: "anthropic/claude-…".
		if p, rest, ok := strings.Cut(model, "/"); ok && t.findProvider(p) != nil {
			provider, model = p, rest
		}
	}
	if m := t.lookupDated(provider, model); m != nil {
		return m
	}
	// A provider named in the model id ("anthropic/claude-…", as LiteLLM,
	// OpenRouter and the trajectories harnesses write, with any provider
	// or none beside it), once the id as a whole is no model.
	if p, rest, ok := strings.Cut(model, "/"); ok && rest != "" && t.findProvider(p) != nil {
		return t.lookupDated(p, rest)
	}
	return nil
}

// lookupDated is lookupIn, then again with the id's dates dashed.
func (t *Table) lookupDated(provider, model string) *Model {
	if m := t.lookupIn(provider, model); m != nil {
		return m
	}
	if d := dashDates(model); d != model {
		return t.lookupIn(provider, d)
	}
	return nil
}

func (t *Table) lookupIn(provider, model string) *Model {
	if provider != "" {
		if p := t.findProvider(provider); p != nil {
			if m := t.inProvider(p, model, true); m != nil {
				return m
			}
		}
	}
	for _, p := range t.providers {
		if p.modelMatch != nil && p.modelMatch.match(model) {
			if m := t.inProvider(p, model, true); m != nil {
				return m
			}
		}
	}
	return nil
}

func (t *Table) findProvider(name string) *provider {
	if id, ok := providerAliases[name]; ok {
		name = id
	}
	if p := t.byID[name]; p != nil {
		return p
	}
	for _, p := range t.providers {
		if p.providerMatch != nil && p.providerMatch.match(name) {
			return p
		}
	}
	return nil
}

func (t *Table) inProvider(p *provider, model string, fallback bool) *Model {
	for _, m := range p.models {
		if m.match.match(model) {
			return m
		}
	}
	if fallback {
		for _, id := range p.fallback {
			if fp := t.byID[id]; fp != nil {
				if m := t.inProvider(fp, model, false); m != nil {
					return m
				}
			}
		}
	}
	return nil
}

var datedID = regexp.MustCompile(`-(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(-|:|$)`)

// dashDates writes a model id's compact dates with dashes, as the data's
// calculator retries them.
func dashDates(model string) string {
	return datedID.ReplaceAllStringFunc(model, func(s string) string {
		d, err := time.Parse("20060102", s[1:9])
		if err != nil {
			return s
		}
		return "-" + d.Format(time.DateOnly) + s[9:]
	})
}

// At returns the model's prices in force at at (the model call's start):
// the data records price changes by date and by time of day.
func (m *Model) At(at time.Time) *Prices { return pick(m.periods, at) }

// Cost is what usage u costs at prices p, in dollars. u counts as the
// conventions count: Input includes CacheRead and CacheCreation, Output
// includes Reasoning. A part the data prices apart is charged at its own
// price and taken out of its whole; a part it does not price stays in the
// whole. A tiered price is chosen by the prompt's input tokens. A
// per-request price counts the call as one request. A usage whose parts
// exceed its whole (a producer's inconsistent counts) charges the whole's
// rest as zero rather than negative.
func (p *Prices) Cost(u semconv.Usage) float64 {
	in := u.Input
	var usd float64
	rest := u.Input
	if p.cacheRead.set {
		usd += p.cacheRead.at(in) * float64(u.CacheRead)
		rest -= u.CacheRead
	}
	if p.cacheWrite.set {
		usd += p.cacheWrite.at(in) * float64(u.CacheCreation)
		rest -= u.CacheCreation
	}
	usd += p.input.at(in) * float64(max(rest, 0))
	out := u.Output
	if p.reasoning.set {
		usd += p.reasoning.at(in) * float64(u.Reasoning)
		out -= u.Reasoning
	}
	usd += p.output.at(in) * float64(max(out, 0))
	usd /= 1e6
	if p.requestsK.set {
		usd += p.requestsK.at(in) / 1e3
	}
	return usd
}
