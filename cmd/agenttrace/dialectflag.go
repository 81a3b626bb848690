package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/agenttrace/agenttrace/semconv"
)

// dialectFlag registers --dialect on root, for every command: each file
// (the embedded table's form, docs/dialects.md) is laid over the
// embedded dialect table before the command reads a span. The table is
// the process's (semconv.UseDialects); run restores the embedded one when
// the command ends, so in-process tests that do not pass the flag see
// the embedded table.
func (e *env) dialectFlag(root *cobra.Command) {
	root.PersistentFlags().StringArrayVar(&e.dialects, "dialect", nil,
		"a dialect file (YAML, docs/dialects.md) saying which keys and span names a library uses for model, usage, messages, tools and kinds; laid over the built-in table; repeatable")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if len(e.dialects) == 0 {
			return nil
		}
		if err := semconv.LoadDialects(e.dialects...); err != nil {
			if errors.Is(err, semconv.ErrDialect) {
				return invalidError(err)
			}
			return ioError(err)
		}
		return nil
	}
}

// restoreDialects puts the embedded dialect table back after a command
// that laid files over it.
func (e *env) restoreDialects() {
	if len(e.dialects) > 0 {
		_ = semconv.UseDialects() // restoring the embedded table cannot fail
	}
}
