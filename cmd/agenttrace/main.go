// Command agenttrace converts OpenTelemetry GenAI traces to and from the
// agenttrace JSONL artifact, validates artifacts, and reports where a
// run's tokens went.
//
// Run "agenttrace --help" for the commands.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A closed pipe on standard output is a write error, exit 2 with a
	// message, rather than death by SIGPIPE with no word.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
