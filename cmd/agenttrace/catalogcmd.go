package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/catalog"
)

func newCatalogCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Build and compact a run catalog",
		Long: `A run catalog is one row per run, written beside the artifacts as
Parquet files under <location>/catalog/dt=YYYY-MM-DD/ (the day each run
started): its ids, service, names and first prompt, times, records,
errors, tokens, cost and budget, models, tools and objects, the numbers
of agenttrace tokens. agenttrace runs lists from it; DuckDB, ClickHouse
and Athena query it as they are (docs/catalog.md).

The collector exporter and serve --otlp keep their folder's catalog as
they finalize runs. catalog build makes one for a folder written
otherwise (or rebuilds one); catalog compact merges a catalog's small
files.`,
	}
	cmd.AddCommand(newCatalogBuildCmd(e), newCatalogCompactCmd(e))
	return cmd
}

func newCatalogBuildCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "build LOCATION",
		Short: "Rebuild the catalog of a folder or a bucket from its artifacts",
		Long: `Build reads every artifact (*.jsonl) of the folder LOCATION, or every run
of a bucket prefix (a gocloud URL; generations merged), and writes its
catalog anew, replacing the files of the old one once the new one is
written, so that a reader meanwhile never misses a run. An artifact that
holds no readable run is named on standard error and left out (exit 1).`,
		Example: `  agenttrace catalog build ./runs
  agenttrace catalog build 's3://runs/prod?region=us-east-1'`,
		Args: argsAtLeast(1, "location (a folder or a bucket URL)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("one location, not %d", len(args))
			}
			st, err := e.buildCatalog(ctxOf(cmd), args[0])
			if err != nil {
				return err
			}
			for _, f := range st.Failed {
				fmt.Fprintln(e.stderr, f)
			}
			fmt.Fprintf(e.stdout, "%s: %d runs cataloged (%d old catalog files replaced)\n", args[0], st.Runs, st.Removed)
			if len(st.Failed) > 0 {
				return errFindings
			}
			return nil
		},
	}
}

func newCatalogCompactCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "compact LOCATION",
		Short: "Merge a catalog's small files",
		Long: `Compact merges, in each day of the catalog of LOCATION, its small files
into files of bounded size, keeping each run's latest row. It writes the
merged files before it deletes the ones they replace: runs listing it
meanwhile see every run once.`,
		Example: `  agenttrace catalog compact ./runs`,
		Args:    argsAtLeast(1, "location (a folder or a bucket URL)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErrorf("one location, not %d", len(args))
			}
			dest, done, err := e.catalogDest(ctxOf(cmd), args[0])
			if err != nil {
				return err
			}
			defer done()
			st, err := catalog.Compact(ctxOf(cmd), dest, catalog.WriterOptions{})
			if err != nil {
				return ioError(err)
			}
			fmt.Fprintf(e.stdout, "%s: %d catalog files merged into %d (%d runs)\n", args[0], st.Merged, st.Written, st.Rows)
			return nil
		},
	}
}

// ctxOf is the command's context, or the background one.
func ctxOf(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// buildCatalog rebuilds the catalog of a folder or a bucket prefix.
func (e *env) buildCatalog(ctx context.Context, loc string) (catalog.BuildStats, error) {
	if !strings.Contains(loc, "://") {
		st, err := catalog.Build(ctx, loc, catalog.WriterOptions{})
		if err != nil {
			return st, ioError(err)
		}
		return st, nil
	}
	b, dest, err := openBucketCatalog(ctx, loc)
	if err != nil {
		return catalog.BuildStats{}, err
	}
	defer b.Close()
	st, err := buildBucketCatalog(ctx, b, dest)
	if err != nil {
		return st, ioError(err)
	}
	return st, nil
}
