//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup runs c in a process group of its own and makes cancelling it
// kill the whole group: a shell's children (a tool that outlives its
// timeout) go with it.
func ownGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error {
		return syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	}
}
