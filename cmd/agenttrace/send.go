package main

import "github.com/spf13/cobra"

func newSendCmd(e *env) *cobra.Command {
	_ = e
	return &cobra.Command{Use: "send", Short: "(being written)", Hidden: true}
}
