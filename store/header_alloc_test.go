package store

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/agenttrace/agenttrace/artifact"
)

// TestHeaderBuiltAsNewMeta: the header a store builds without
// artifact.NewMeta has what NewMeta gives (version, producer, an empty
// resource and scope when there are no records), and a trace's artifact
// gets its trace id from the file name only when the name is that id.
func TestHeaderBuiltAsNewMeta(t *testing.T) {
	want := artifact.NewMeta(time.Time{})
	m := Header(ConversationKey("c"), nil, HeaderOptions{})
	assert.Equal(t, want.Version, m.Version)
	assert.Equal(t, want.Producer, m.Producer)
	assert.Equal(t, 0, m.Resource.Attributes().Len())
	assert.Empty(t, m.Scope.Name())
	assert.Nil(t, m.Budget)

	id := pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0xfe}
	s := &Store{opts: Options{Dir: "/d"}, dir: "/d"}
	for _, tt := range []struct {
		name string
		a    *runFile
		want string
	}{
		{"its path", &runFile{key: TraceKey(id), path: s.pathOf(TraceKey(id))}, id.String()},
		{"another trace's path", &runFile{key: TraceKey(id), path: s.pathOf(TraceKey(pcommon.TraceID{9}))}, ""},
		{"not hex", &runFile{key: TraceKey(id), path: "/d/0102030405060708090a0b0c0d0e0fzz.jsonl"}, ""},
		{"short", &runFile{key: TraceKey(id), path: "a.jsonl"}, ""},
		{"a conversation", &runFile{key: ConversationKey("c"), path: s.pathOf(ConversationKey("c"))}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, traceHexOf(tt.a))
			h := headerWithID(tt.a.key, traceHexOf(tt.a), nil, HeaderOptions{}, nil)
			if tt.a.key.Kind == KindTrace {
				assert.Equal(t, id.String(), h.TraceID)
			}
		})
	}
}
