package catalog

import "time"

// ListCols are the columns of a [Row] that a list of runs filters and
// sorts on, and offers as choices: the one list of them. An [Index] keeps
// these columns in memory (its column readers are derived from this
// type), and a caller that reads them alone (with [ScanAs], embedding
// ListCols in a projection of its own) reads the same.
type ListCols struct {
	Key
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

// SetRow sets r to the columns c holds, the others zero. r's slices and
// CostUSD are c's.
func (c *ListCols) SetRow(r *Row) {
	*r = Row{Run: c.Run, Keys: c.Keys, Service: c.Service, Agent: c.Agent, Models: c.Models,
		Started: c.Started, Ended: c.Ended, DurationMS: c.DurationMS, Records: c.Records, Errors: c.Errors,
		Problems: c.Problems, Complete: c.Complete, TotalTokens: c.TotalTokens, CostUSD: c.CostUSD,
		CostUnknown: c.CostUnknown, BudgetTokens: c.BudgetTokens, BudgetUSD: c.BudgetUSD,
		OverBudget: c.OverBudget, OverBudgetUSD: c.OverBudgetUSD, WrittenAt: c.WrittenAt}
}
