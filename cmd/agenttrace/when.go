package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// errWhen is wrapped by the errors of parseAge and parseWhen.
var errWhen = errors.New(`want a duration ("36h", "7d") or a date ("2026-12-05", RFC 3339)`)

// parseAge parses an age: a Go duration (time.ParseDuration: "36h",
// "90m") or a whole number of days ("7d"), not negative.
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseUint(n, 10, 16)
		if err != nil {
			return 0, fmt.Errorf("%q: %w", s, errWhen)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: %w", s, errWhen)
	}
	return d, nil
}

// parseWhen parses a point in time: an age before now (see parseAge), a
// date (midnight UTC) or an RFC 3339 time.
func parseWhen(s string, now time.Time) (time.Time, error) {
	if d, err := parseAge(s); err == nil {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q: %w", s, errWhen)
}
