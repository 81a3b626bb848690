package server

import (
	"github.com/agenttrace/agenttrace/catalog"
)

// searchCols are the catalog's columns a list page filters and sorts on,
// and offers as choices (catalog.ListCols), and those a search across
// runs looks in (rowInfo's search text): a page reads them alone
// (catalog.ScanAs), then its own rows whole (catalog.Fetch), not every
// column of every run.
type searchCols struct {
	catalog.ListCols
	TraceID        string   `parquet:"trace_id"`
	ConversationID string   `parquet:"conversation_id"`
	RootName       string   `parquet:"root_name"`
	FirstPrompt    string   `parquet:"first_prompt"`
	Tools          []string `parquet:"tools,list"`
}

// row sets r to the columns c holds, the others zero: what rowInfo makes
// a list row of, for the filters, the order and the search.
func (c *searchCols) row(r *catalog.Row) {
	c.SetRow(r)
	r.TraceID, r.ConversationID, r.RootName, r.FirstPrompt, r.Tools = c.TraceID, c.ConversationID, c.RootName, c.FirstPrompt, c.Tools
}
