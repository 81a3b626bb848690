package main

import (
	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/artifact"
	"github.com/agenttrace/agenttrace/report"
)

func newTokensCmd(e *env) *cobra.Command {
	var (
		asJSON bool
		top    int
	)
	cmd := &cobra.Command{
		Use:   "tokens FILE...",
		Short: "Report where the tokens went",
		Long: `Tokens reports a run's token usage: totals, cost and budget, then
breakdowns by model, by agent (each model call counts toward its nearest
enclosing agent) and by tool, finish reasons, the largest responses, and
failures.

Cost is in dollars: a cost a span reports itself (gen_ai.usage.cost and
its kin) wins; otherwise the model call's usage is priced with pydantic's
genai-prices data, vendored with this agenttrace (the provider and model
matched as the data says, tiered and dated prices applied). A model the
data does not know has an unknown cost, never $0: --json writes null for
it, the total sums the known costs (a lower bound then) and
cost_unknown_models names the models without a price; null when no call
has a known cost.

A cost budget (the header's budget_usd: bridge.WithBudgetUSD, the
exporter's budget.usd, demo --budget-usd) is shown beside the token
budget, and --json's budget carries budget_usd, spent_usd (the known
dollars, as cost_usd), remaining_usd, over_budget_usd, near_budget_usd and
unpriced_calls (calls of unknown cost, not in spent_usd).

Inputs are artifacts or OTLP files, told apart by their content; several
are reported together. Only model calls count toward tokens: agent and
wrapper spans repeat their children's usage.

When an artifact's summary trailer accounts for records the file does not
hold (the producer dropped them: a full queue, a record cap), the totals
and the budget are the trailer's, and the report says how many records
were dropped: their details are not in the file, so the breakdowns cover
only the records that are. Values cut short at write time to fit the line
limit are counted too.

Evaluation results (gen_ai.evaluation.result, as span events or as log
records linked to the span) are summed up per evaluation name: results,
mean score, labels with their counts (--json: evaluations).`,
		Example: `  agenttrace tokens run.jsonl
  agenttrace tokens traces.json --json --top 10`,
		Args: argsAtLeast(1, "input (a file, or - for standard input)"),
		RunE: func(_ *cobra.Command, args []string) error {
			if top < 0 {
				return usageErrorf("--top %d: want 0 or more", top)
			}
			if err := checkStdin(args); err != nil {
				return err
			}
			return e.tokens(args, asJSON, top)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object instead of tables")
	cmd.Flags().IntVar(&top, "top", report.DefaultTop, "how many of the largest responses to list")
	e.redactFlags(cmd) // it prints names and values: the same secret scan as convert
	return cmd
}

func (e *env) tokens(paths []string, asJSON bool, top int) error {
	all, err := e.loadInputs(paths)
	if err != nil {
		return err
	}
	opts := append(trailerOptions(all), report.WithTop(top), report.WithLogs(all.logs)) // evaluation results sent as log records
	rep := report.Tokens(all.records, all.metaFor(all.records), opts...)
	if err := e.printReport(asJSON, rep); err != nil {
		return err
	}
	return e.noteSkipped(all)
}

// trailerOptions gives a report each artifact's trailer, so that records
// a producer dropped still count in its totals and budget, and the spans
// still in flight, so that a call that ended under an agent still running
// is that agent's.
func trailerOptions(all *inputs) []report.Option {
	var opts []report.Option
	var open []artifact.Record
	for _, src := range all.sources {
		if src.summary != nil {
			opts = append(opts, report.WithTrailer(src.summary, src.records))
		}
		open = append(open, src.inFlight...)
	}
	if len(open) > 0 {
		opts = append(opts, report.WithOpen(open))
	}
	return opts
}
