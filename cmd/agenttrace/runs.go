package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/catalog"
	"github.com/agenttrace/agenttrace/report"
)

// runsFlags are the runs command's flags.
type runsFlags struct {
	asJSON, overBudget, asc bool
	since, until, olderThan string
	service, search, sort   string
	minCost                 float64
	limit, offset           int
}

func newRunsCmd(e *env) *cobra.Command {
	var fl runsFlags
	cmd := &cobra.Command{
		Use:   "runs LOCATION",
		Short: "List runs from the catalog of a folder or a bucket",
		Long: `Runs lists the runs of a folder of artifacts, or of a bucket prefix (a
gocloud URL: s3://, gs://, azblob://, file://), from its catalog (see
agenttrace catalog --help and docs/catalog.md): one line per run, newest
first, with its service, name (its root span's, its agent's, its first
prompt), records, errors, tokens, cost and budget. The numbers are those
agenttrace tokens prints for each run. It reads the catalog, not the
artifacts: a folder of a hundred thousand runs lists in well under a
second.

--since and --until bound when runs started: an age ("36h", "7d") or a
date ("2026-12-05", or an RFC 3339 time). --older-than lists the runs
that ended longer ago than an age: what a retention of that max_age
removes. --over-budget keeps the runs over their token or cost budget,
--min-cost the runs that cost at least that many dollars, --search those
whose names, ids, first prompt, models or tools hold a text.

--sort orders by started (the default), cost or tokens, largest first
(--asc: smallest first); --limit (0: all) and --offset page. --json prints
{"total": <runs selected>, "runs": [<row>, ...]}, rows as the catalog's
columns (docs/catalog.md).`,
		Example: `  agenttrace runs ./runs --since 24h --over-budget
  agenttrace runs ./runs --sort cost --limit 10 --json
  agenttrace runs ./runs --older-than 30d`,
		Args: argsAtLeast(1, "location (a folder or a bucket URL)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("one location, not %d", len(args))
			}
			return e.runs(ctxOf(cmd), args[0], fl)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&fl.asJSON, "json", false, "print one JSON object")
	f.StringVar(&fl.since, "since", "", "runs started since an age or date")
	f.StringVar(&fl.until, "until", "", "runs started before an age or date")
	f.StringVar(&fl.olderThan, "older-than", "", "runs that ended longer ago than an age")
	f.StringVar(&fl.service, "service", "", "runs of this service.name")
	f.StringVar(&fl.search, "search", "", "runs whose names, ids, prompt, models or tools hold this text")
	f.BoolVar(&fl.overBudget, "over-budget", false, "runs over their token or cost budget")
	f.Float64Var(&fl.minCost, "min-cost", 0, "runs that cost at least this many `dollars`")
	f.StringVar(&fl.sort, "sort", "started", "order: started, cost or tokens")
	f.BoolVar(&fl.asc, "asc", false, "smallest (oldest) first")
	f.IntVar(&fl.limit, "limit", 50, "list at most this many runs (0: all)")
	f.IntVar(&fl.offset, "offset", 0, "skip this many runs first")
	return cmd
}

// query turns the flags into a catalog query.
func (fl *runsFlags) query(now time.Time) (catalog.Filter, catalog.Sort, error) {
	f := catalog.Filter{Service: fl.service, OverBudget: fl.overBudget, MinCost: fl.minCost, Search: fl.search, Now: now}
	var err error
	by, err := catalog.ParseSort(fl.sort)
	if err != nil {
		return f, catalog.Sort{}, usageErrorf("--sort: %w", err)
	}
	for _, w := range []struct {
		name, val string
		to        *time.Time
	}{{"since", fl.since, &f.Since}, {"until", fl.until, &f.Until}} {
		if w.val == "" {
			continue
		}
		if *w.to, err = parseWhen(w.val, now); err != nil {
			return f, catalog.Sort{}, usageErrorf("--%s %w", w.name, err)
		}
	}
	if fl.olderThan != "" {
		if f.OlderThan, err = parseAge(fl.olderThan); err != nil {
			return f, catalog.Sort{}, usageErrorf("--older-than %w", err)
		}
	}
	switch {
	case fl.limit < 0:
		return f, catalog.Sort{}, usageErrorf("--limit %d: want 0 or more", fl.limit)
	case fl.offset < 0:
		return f, catalog.Sort{}, usageErrorf("--offset %d: want 0 or more", fl.offset)
	case fl.minCost < 0:
		return f, catalog.Sort{}, usageErrorf("--min-cost %g: want 0 or more", fl.minCost)
	}
	return f, catalog.Sort{By: by, Desc: !fl.asc}, nil
}

// runsPage is runs --json.
type runsPage struct {
	Total int           `json:"total"`
	Runs  []catalog.Row `json:"runs"`
}

func (e *env) runs(ctx context.Context, loc string, fl runsFlags) error {
	f, s, err := fl.query(time.Now())
	if err != nil {
		return err
	}
	dest, done, err := e.catalogDest(ctx, loc)
	if err != nil {
		return err
	}
	defer done()
	p, err := catalog.Query(ctx, dest, f, s, fl.offset, fl.limit)
	if err != nil {
		return invalidError(fmt.Errorf("%s: %w", loc, err))
	}
	if fl.asJSON {
		return e.printJSON(runsPage{Total: p.Total, Runs: p.Rows})
	}
	return e.writeRuns(p, fl.offset)
}

// catalogDest is the catalog of a location: a folder, or a bucket prefix
// (a gocloud URL), that has one. done closes what it opened.
func (e *env) catalogDest(ctx context.Context, loc string) (dest catalog.Dest, done func(), err error) {
	if strings.Contains(loc, "://") {
		b, dest, err := openBucketCatalog(ctx, loc)
		if err != nil {
			return nil, nil, err
		}
		objs, err := dest.List(ctx, "catalog/")
		if err == nil && len(objs) == 0 {
			err = invalidError(fmt.Errorf("%s has no catalog yet: make one with 'agenttrace catalog build %s'", b, b))
		}
		if err != nil {
			b.Close()
			return nil, nil, err
		}
		return dest, func() { b.Close() }, nil
	}
	fi, err := os.Stat(loc)
	if err != nil {
		return nil, nil, ioError(err)
	}
	if !fi.IsDir() {
		return nil, nil, usageErrorf("%s: not a folder", loc)
	}
	if _, err := os.Stat(loc + "/catalog"); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, invalidError(fmt.Errorf("%s has no catalog yet: make one with 'agenttrace catalog build %s'", loc, loc))
	}
	return catalog.Dir(loc), func() {}, nil
}

// writeRuns prints a page as a table.
func (e *env) writeRuns(p catalog.Page, offset int) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tSERVICE\tNAME\tRECORDS\tERRORS\tTOKENS\tCOST\tBUDGET\tRUN")
	for i := range p.Rows {
		r := &p.Rows[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", r.Started.UTC().Format("2006-01-02 15:04:05"),
			orDash(r.Service), orDash(runName(r)), r.Records, r.Errors, report.Thousands(r.TotalTokens),
			report.Dollars(r.CostUSD), budgetCell(r), r.Run)
	}
	if err := tw.Flush(); err != nil {
		return writeError("standard output", err)
	}
	_, err := fmt.Fprintf(e.stdout, "%d–%d of %d runs\n", min(offset+1, offset+len(p.Rows)), offset+len(p.Rows), p.Total)
	if err != nil {
		return writeError("standard output", err)
	}
	return nil
}

// runName names a run for people: its root span's name, else its agent's,
// with the first prompt, quoted and cut short, when it has one.
func runName(r *catalog.Row) string {
	name := r.RootName
	if name == "" {
		name = r.Agent
	}
	if r.FirstPrompt != "" {
		p := strings.Join(strings.Fields(r.FirstPrompt), " ")
		if len([]rune(p)) > 40 {
			p = string([]rune(p)[:39]) + "…"
		}
		name = strings.TrimSpace(name + " “" + p + "”")
	}
	return name
}

// budgetCell says where a run stands against its budgets.
func budgetCell(r *catalog.Row) string {
	switch {
	case r.OverBudget || r.OverBudgetUSD:
		return "over"
	case r.NearBudget || r.NearBudgetUSD:
		return "near"
	case r.BudgetTokens > 0 || r.BudgetUSD > 0:
		return "ok"
	}
	return "-"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
