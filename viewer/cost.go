package viewer

import (
	"fmt"
	"strings"

	"github.com/agenttrace/agenttrace/report"
)

// viewCosts is a run's cost as the page shows it, written here so that
// the page prints what `agenttrace tokens` prints (report.Dollars) and
// never invents a dollar figure: "unknown" when no model call has a
// known cost (never $0), "$X or more" when some calls have none.
type viewCosts struct {
	// Run is the cost card's value, Note its line below (how the run was
	// priced and what is missing from the sum).
	Run  string `json:"run"`
	Note string `json:"note"`
	// ByModel and ByAgent are the cost cells of the report's by_model and
	// by_agent rows, in their order.
	ByModel []string `json:"by_model"`
	ByAgent []string `json:"by_agent"`
}

// costsOf is rep's costs for the page.
func costsOf(rep *report.TokenReport) *viewCosts {
	v := &viewCosts{Run: CostText(rep.Cost), ByModel: make([]string, len(rep.ByModel)), ByAgent: make([]string, len(rep.ByAgent))}
	for i := range rep.ByModel {
		v.ByModel[i] = CostText(rep.ByModel[i].Cost)
	}
	for i := range rep.ByAgent {
		v.ByAgent[i] = CostText(rep.ByAgent[i].Cost)
	}
	var how []string
	if rep.PriceData != "" && rep.Cost.CostUSD != nil {
		how = append(how, "priced with "+rep.PriceData)
	}
	if n := rep.Cost.CostFromSpans; n > 0 {
		how = append(how, fmt.Sprintf("%d reported by the spans", n))
	}
	if n := rep.Cost.CostUnknown; n > 0 {
		how = append(how, fmt.Sprintf("%d model calls unpriced (%s)", n, strings.Join(rep.CostUnknownModels, ", ")))
	}
	if rep.FromTrailer {
		how = append(how, "for the records in the file")
	}
	v.Note = strings.Join(how, " · ")
	return v
}
