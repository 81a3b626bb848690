package main

import (
	"errors"
	"fmt"
	"io"
)

// Exit codes. Scripts branch on them, so they never change meaning.
const (
	// exitOK: everything was read, written and valid.
	exitOK = 0
	// exitInvalid: an input was invalid, or validation found problems.
	exitInvalid = 1
	// exitUsage: a usage error (unknown flag, missing argument) or an I/O
	// error (missing file, unwritable output).
	exitUsage = 2
	// exitUnsent: send could not deliver every span, because the endpoint
	// refused a request (or part of one) or could not be reached within the
	// timeout and retries. Only send uses it; it tells a script "try again
	// later, or fix the endpoint" apart from "fix the input" (1) and "fix the
	// command line" (2).
	exitUnsent = 3
)

// exitError carries the exit code an error maps to. An exitError whose
// err is nil has already been reported; run prints nothing more for it.
type exitError struct {
	code  int
	usage bool // print the usage hint after the message
	err   error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErrorf reports a command line that cannot be run as given.
func usageErrorf(format string, a ...any) error {
	return &exitError{code: exitUsage, usage: true, err: fmt.Errorf(format, a...)}
}

// ioError reports a file that cannot be opened, read or written.
func ioError(err error) error { return &exitError{code: exitUsage, err: err} }

// invalidError reports an input that cannot be used as it is.
func invalidError(err error) error { return &exitError{code: exitInvalid, err: err} }

// errFindings says problems were found and already printed, each with its
// file and line.
var errFindings error = &exitError{code: exitInvalid}

// exitCode maps err to an exit code. Errors that are not exitErrors come
// from cobra itself (an unknown command or flag, a violated flag group) and
// are usage errors.
func exitCode(err error) (code int, usage bool) {
	if err == nil {
		return exitOK, false
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.usage
	}
	return exitUsage, true
}

// printError prints err to w as "agenttrace: message", unless it was
// reported already (an exitError without an err), and returns its exit
// code.
func printError(w io.Writer, err error) (code int, usage bool) {
	code, usage = exitCode(err)
	var ee *exitError
	if err != nil && (!errors.As(err, &ee) || ee.err != nil) {
		fmt.Fprintf(w, "agenttrace: %v\n", err)
	}
	return code, usage
}

// exitWith is an outcome already reported: nil for exitOK, else the code.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// worst keeps the most severe of two exit codes, so one missing file
// among many still makes a run exit 2.
func worst(a, b int) int { return max(a, b) }
