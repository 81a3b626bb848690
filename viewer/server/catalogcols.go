package server

import (
	"time"

	"github.com/agenttrace/agenttrace/catalog"
)

// listCols are the catalog's columns a list page filters and sorts on,
// and offers as choices: a page reads them alone (catalog.ScanAs), then
// its own rows whole (catalog.Fetch), not every column of every run.
type listCols struct {
	catalog.Key
	Keys          []string  `parquet:"keys,list"`
	Service       string    `parquet:"service"`
	Agent         string    `parquet:"agent"`
	Models        []string  `parquet:"models,list"`
	Started       time.Time `parquet:"started,timestamp(millisecond)"`
	Ended         time.Time `parquet:"ended,timestamp(millisecond)"`
	DurationMS    int64     `parquet:"duration_ms"`
	Records       int64     `parquet:"records"`
	Errors        int64     `parquet:"errors"`
	Problems      int64     `parquet:"problems"`
	Complete      bool      `parquet:"complete"`
	TotalTokens   int64     `parquet:"total_tokens"`
	CostUSD       *float64  `parquet:"cost_usd,optional"`
	CostUnknown   int64     `parquet:"cost_unknown"`
	BudgetTokens  int64     `parquet:"budget_tokens"`
	BudgetUSD     float64   `parquet:"budget_usd"`
	OverBudget    bool      `parquet:"over_budget"`
	OverBudgetUSD bool      `parquet:"over_budget_usd"`
}

// row sets r to the columns c holds, the others zero: what rowInfo makes
// a list row of, for the filters and the order.
func (c *listCols) row(r *catalog.Row) {
	*r = catalog.Row{Run: c.Run, Keys: c.Keys, Service: c.Service, Agent: c.Agent, Models: c.Models,
		Started: c.Started, Ended: c.Ended, DurationMS: c.DurationMS, Records: c.Records, Errors: c.Errors,
		Problems: c.Problems, Complete: c.Complete, TotalTokens: c.TotalTokens, CostUSD: c.CostUSD,
		CostUnknown: c.CostUnknown, BudgetTokens: c.BudgetTokens, BudgetUSD: c.BudgetUSD,
		OverBudget: c.OverBudget, OverBudgetUSD: c.OverBudgetUSD, WrittenAt: c.WrittenAt}
}

// searchCols are listCols and the columns a search across runs looks in
// (rowInfo's search text).
type searchCols struct {
	listCols
	TraceID        string   `parquet:"trace_id"`
	ConversationID string   `parquet:"conversation_id"`
	RootName       string   `parquet:"root_name"`
	FirstPrompt    string   `parquet:"first_prompt"`
	Tools          []string `parquet:"tools,list"`
}

func (c *searchCols) row(r *catalog.Row) {
	c.listCols.row(r)
	r.TraceID, r.ConversationID, r.RootName, r.FirstPrompt, r.Tools = c.TraceID, c.ConversationID, c.RootName, c.FirstPrompt, c.Tools
}
