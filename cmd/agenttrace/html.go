package main

import "github.com/spf13/cobra"

func newHTMLCmd(e *env) *cobra.Command {
	_ = e
	return &cobra.Command{Use: "html", Short: "(being written)", Hidden: true}
}
