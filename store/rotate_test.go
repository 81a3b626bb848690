package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRotateByAge: under steady traffic (never idle, never large) the
// artifact of a resource attribute value is rotated by age, so every file
// gets its own header and trailer while traffic goes on, no record is lost
// or written twice, and the store holds at most the one live artifact.
func TestRotateByAge(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rotateAfter time.Duration
		wantRotated bool
	}{
		{"rotate_after", time.Millisecond, true},
		{"off", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir, Route: ByAttribute, Attribute: "service.name", RotateAfter: tc.rotateAfter, FinalizeAfter: time.Hour})
			rotated := func() int {
				ents, err := os.ReadDir(dir)
				require.NoError(t, err)
				n := 0
				for _, e := range ents {
					if strings.Contains(e.Name(), ".R") {
						n++
					}
				}
				return n
			}
			written := 0
			deadline := time.Now().Add(10 * time.Second)
			for written < 50 || (tc.wantRotated && rotated() < 3) {
				require.True(t, time.Now().Before(deadline), "no rotation by age after %d writes", written)
				require.NoError(t, s.Write(records(span{trace: byte(written%250 + 1), id: byte(written/250 + 2), parent: 1})))
				written++
				assert.LessOrEqual(t, s.Active(), 1, "one live artifact")
			}
			require.NoError(t, s.Close())

			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			total := 0
			for _, e := range ents {
				name := e.Name()
				assert.True(t, name == "service.name-svc.jsonl" || strings.HasPrefix(name, "service.name-svc.R"), name)
				a := readPath(t, filepath.Join(dir, name))
				require.NotNil(t, a.summary, "%s: a trailer per file", name)
				assert.Equal(t, 1, a.headers, name)
				assert.Equal(t, int64(len(a.recs)), a.summary.Records, "%s: the trailer counts its file", name)
				total += len(a.recs)
			}
			assert.Equal(t, written, total, "every record once")
			if tc.wantRotated {
				// The loop may stop right after a rotation, before a
				// write opens the next current file: count the rotated.
				assert.GreaterOrEqual(t, rotated(), 3)
			} else {
				assert.Len(t, ents, 1)
			}
		})
	}
}
