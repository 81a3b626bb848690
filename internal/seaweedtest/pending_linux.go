//go:build linux

package seaweedtest

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PendingBytes is the most bytes waiting unread in one connection to the
// S3 port: while the server is paused, what a client sent it. A request
// of an upload carries the object (kilobytes); a listing or a HEAD, a few
// hundred bytes. Read from /proc/net/tcp (Linux).
func (s *Server) PendingBytes() (int64, error) {
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return 0, fmt.Errorf("seaweedtest: %w", err)
	}
	defer f.Close()
	// 127.0.0.1 as /proc/net/tcp writes it (little-endian hex), the port
	// big-endian hex.
	local := fmt.Sprintf("0100007F:%04X", s.ports.s3)
	var most int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx_queue:rx_queue ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[1] != local || fields[3] != "01" { // 01: ESTABLISHED
			continue
		}
		_, rx, ok := strings.Cut(fields[4], ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(rx, 16, 64)
		if err == nil && n > most {
			most = n
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("seaweedtest: read /proc/net/tcp: %w", err)
	}
	return most, nil
}

// stopped reports whether the process pid is stopped (state T in
// /proc/<pid>/stat): a SIGSTOP takes effect a moment after kill returns.
func stopped(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces, so after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'T'
}
