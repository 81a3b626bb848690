package server_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agenttrace/agenttrace/viewer/server"
)

// Serve a directory of runs on loopback, find the live stream of one run
// from its viewer page, follow it, and shut down.
func Example() {
	dir, _ := os.MkdirTemp("", "agenttrace-serve")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.jsonl")
	_ = os.WriteFile(path, []byte(`{"v":1,"kind":"meta","started_at":"2026-05-04T14:03:07Z","service":"planner"}`+"\n"), 0o644)

	s, err := server.New(dir)
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0") // loopback only: Serve refuses anything else
	if err != nil {
		panic(err)
	}
	go s.Serve(ln)
	base := "http://" + ln.Addr().String()

	page, err := http.Get(base + "/run/run.jsonl")
	if err != nil {
		panic(err)
	}
	page.Body.Close()
	// The page follows the run from the first byte it does not show.
	live := strings.TrimPrefix(strings.Split(page.Header.Get("Link"), ">")[0], "<")
	fmt.Println(page.StatusCode, live)

	stream, err := http.Get(base + live)
	if err != nil {
		panic(err)
	}
	defer stream.Body.Close()
	// A producer appends a record; the stream sends it as one event.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"kind":"span","name":"GET","trace_id":"abf86f3459a678e2b0b994b530636088","span_id":"72b860dcc7ac1deb"}` + "\n")
	f.Close()
	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() {
		if line := lines.Text(); strings.HasPrefix(line, "id:") || strings.HasPrefix(line, "event:") {
			fmt.Println(line)
		} else if strings.HasPrefix(line, "data:") {
			fmt.Println(line[:44] + "…")
			break
		}
	}

	fmt.Println(s.Shutdown(context.Background()))
	// Output:
	// 200 /events/run.jsonl?offset=78
	// id: 182
	// event: record
	// data: {"kind":"span","name":"GET","trace_id"…
	// <nil>
}
