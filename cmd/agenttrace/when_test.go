package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseWhen(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Time
	}{
		{"36h", now.Add(-36 * time.Hour)},
		{"90m", now.Add(-90 * time.Minute)},
		{"7d", now.AddDate(0, 0, -7)},
		{"0d", now},
		{"2026-12-01", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-12-01T08:30:00+01:00", time.Date(2026, 12, 1, 7, 30, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseWhen(tt.in, now)
			require.NoError(t, err)
			assert.True(t, tt.want.Equal(got), "%s: got %s", tt.in, got)
		})
	}
	for _, bad := range []string{"", "soon", "-3h", "7 d", "d", "-1d", "99999999d", "2026-13-01", "12/01/2026"} {
		_, err := parseWhen(bad, now)
		assert.ErrorIs(t, err, errWhen, bad)
	}
}

// FuzzParseWhen: any text is a time or an error naming it, never a
// panic, and an age is never negative.
func FuzzParseWhen(f *testing.F) {
	for _, s := range []string{"36h", "7d", "2026-12-01", "2026-12-01T08:30:00Z", "-1h", "1e9d", ""} {
		f.Add(s)
	}
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := parseAge(s); err == nil {
			if d < 0 {
				t.Fatalf("%q: negative age %s", s, d)
			}
		}
		if _, err := parseWhen(s, now); err != nil && !assert.ErrorIs(t, err, errWhen) {
			t.Fatalf("%q: %v", s, err)
		}
	})
}
