package bridge_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/agenttrace/agenttrace/bridge"
	"github.com/agenttrace/agenttrace/bucket"
	"github.com/agenttrace/agenttrace/semconv"
	"github.com/agenttrace/agenttrace/store"
)

// TestBridgeCompilesNoCloudSDK (issue 23, How it is checked): what a
// program that imports only bridge compiles holds no cloud SDK; bucket
// support is package bucket's, for those who import it.
func TestBridgeCompilesNoCloudSDK(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err, "the go command lists the dependencies")
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/agenttrace/agenttrace/store", "the listing is bridge's")
	for _, d := range deps {
		for _, sdk := range []string{"gocloud.dev", "github.com/aws/", "cloud.google.com/", "github.com/Azure/",
			"google.golang.org/api", "github.com/agenttrace/agenttrace/bucket"} {
			assert.False(t, strings.HasPrefix(d, sdk), "bridge compiles %s", d)
		}
	}
}

// TestWithBucket (issue 23 point 1): an agent writing its own runs with
// WithDirectory and WithBucket finds its run in the bucket after
// Shutdown, and none left in its folder.
func TestWithBucket(t *testing.T) {
	dir, objects := t.TempDir(), t.TempDir()
	b, err := bucket.Open(context.Background(), "file://"+filepath.ToSlash(objects))
	require.NoError(t, err)
	defer b.Close()
	p := newProcessor(t, bridge.WithDirectory(dir, store.ByTrace), bridge.WithBucket(b.Publisher(bucket.PublisherOptions{})))
	tr := provider(t, p)
	ctx, root := tr.Start(context.Background(), "invoke_agent planner")
	root.SetAttributes(attribute.String(semconv.OperationName, "invoke_agent"))
	chat(ctx, tr, 100, 20)
	root.End()
	require.NoError(t, p.Shutdown(context.Background()))

	left, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	require.NoError(t, err)
	assert.Empty(t, left)
	var runs []bucket.Run
	for r, err := range b.Runs(context.Background(), "") {
		require.NoError(t, err)
		runs = append(runs, r)
	}
	require.Len(t, runs, 1)
	assert.Equal(t, root.SpanContext().TraceID().String(), runs[0].Key.ID)
}

func TestWithBucketNeedsDirectory(t *testing.T) {
	b, err := bucket.Open(context.Background(), "mem://bridge-test")
	require.NoError(t, err)
	_, err = bridge.New(bridge.WithFile(filepath.Join(t.TempDir(), "run.jsonl")), bridge.WithBucket(b.Publisher(bucket.PublisherOptions{})))
	require.ErrorContains(t, err, "use WithDirectory")
}
