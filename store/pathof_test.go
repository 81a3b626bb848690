package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// TestPathOfIsJoin: the path built by hand for a trace's artifact is
// filepath.Join of the folder and FileName, whatever the folder looks like.
func TestPathOfIsJoin(t *testing.T) {
	tid := pcommon.TraceID{0xab, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xff}
	for _, dir := range []string{".", "./", "a", "a/", "a//b/", "./a/../b", "/", "/tmp/x", "../up", "a/./b/."} {
		s := &Store{opts: Options{Dir: dir, Attribute: "service.name"}, dir: filepath.Clean(dir)}
		for _, k := range []Key{TraceKey(tid), TraceKey(pcommon.TraceID{}), ConversationKey("c"), AttributeKey("v")} {
			assert.Equal(t, filepath.Join(dir, FileName(k, "service.name")), s.pathOf(k), "dir %q key %v", dir, k)
		}
	}
}
