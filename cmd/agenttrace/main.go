// Command agenttrace converts OpenTelemetry GenAI traces to and from the
// agenttrace JSONL artifact, validates artifacts, and reports where a
// run's tokens went.
//
// Run "agenttrace --help" for the commands.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
