//go:build !unix

package main

import "os/exec"

// ownGroup leaves c as it is: only the shell is killed on a timeout.
func ownGroup(*exec.Cmd) {}
