package main

import "github.com/spf13/cobra"

func newServeCmd(e *env) *cobra.Command {
	_ = e
	return &cobra.Command{Use: "serve", Short: "(being written)", Hidden: true}
}
