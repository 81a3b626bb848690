package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCollidingConversationIDsTwoFiles: conversation ids whose names would
// meet (a value and the literal name of another; ids differing only in
// case, which a case-insensitive file system would fold) get a file each,
// holding only their own records, and keep it across a restart.
func TestCollidingConversationIDsTwoFiles(t *testing.T) {
	for _, tt := range []struct{ a, b string }{
		{"x/y", Name("x/y")},
		{"abc", "ABC"},
		{"Abc", "aBC"},
		{"c-0123456789abcdef", "c"},
	} {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			dir := t.TempDir()
			s := newStore(t, Options{Dir: dir, Route: ByConversation})
			require.NoError(t, s.Write(records(span{trace: 1, id: 2, parent: 1, conv: tt.a}, span{trace: 2, id: 2, parent: 1, conv: tt.b})))
			require.NoError(t, s.Close())
			// A restart: a late span of each goes to its own file.
			s = newStore(t, Options{Dir: dir, Route: ByConversation})
			require.NoError(t, s.Write(records(span{trace: 1, id: 1, conv: tt.a}, span{trace: 2, id: 1, conv: tt.b})))
			require.NoError(t, s.Close())

			ents, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, ents, 2, "two files")
			assert.False(t, strings.EqualFold(ents[0].Name(), ents[1].Name()), "%s and %s fold to one name", ents[0].Name(), ents[1].Name())
			for conv, trace := range map[string]byte{tt.a: 1, tt.b: 2} {
				a := readPath(t, filepath.Join(dir, FileName(ConversationKey(conv), "")))
				assert.Equal(t, conv, a.meta.ConversationID)
				assert.Equal(t, 1, a.headers)
				assert.Empty(t, a.problems)
				require.Len(t, a.recs, 2, "%q: its root and its child", conv)
				for _, r := range a.recs {
					assert.Equal(t, tid(trace), r.Span.TraceID(), "%q holds only its own trace", conv)
				}
			}
		})
	}
}
