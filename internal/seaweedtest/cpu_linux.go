package seaweedtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on
// every Linux this runs on).
const clockTicks = 100

// CPU is the CPU time (user and system) the server process has used so
// far, from /proc/<pid>/stat: what a benchmark reads before and after to
// charge the server's own work per request (it runs beside the client on
// the same cores).
func (s *Server) CPU() (time.Duration, error) {
	if s.proc == nil || s.proc.cmd.Process == nil {
		return 0, fmt.Errorf("seaweedtest: no server process")
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.proc.cmd.Process.Pid))
	if err != nil {
		return 0, fmt.Errorf("seaweedtest: %w", err)
	}
	// The command (field 2) is in parentheses and may hold spaces: the
	// fields after its closing one are 3 (state) onwards.
	_, rest, ok := strings.Cut(string(raw), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("seaweedtest: /proc/<pid>/stat: %q", raw)
	}
	var ticks int64
	for _, v := range f[11:13] { // utime, stime: fields 14 and 15
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("seaweedtest: /proc/<pid>/stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}
