package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"

	"github.com/agenttrace/agenttrace/internal/otlpdeep"
)

// rawBytes is a client codec that sends a message's bytes as they are:
// the deep request cannot be built with pdata, whose marshaler recurses.
type rawBytes struct{}

func (rawBytes) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.([]byte))}, nil
}
func (rawBytes) Unmarshal(mem.BufferSlice, any) error { return nil }
func (rawBytes) Name() string                         { return "proto" }

// TestGuardDeepRequests is issue 22 item 1 against the real distribution
// with the shipped config (deploy/collector/agenttrace.yaml, whose otlp
// receiver has the agenttrace_guard middleware on both protocols): a
// 12.5 MB request whose one attribute nests 1.3 million levels made
// pdata's decoder overflow its stack and the collector exit. Over HTTP
// (protobuf traces, JSON logs) it is answered 400 and over gRPC
// InvalidArgument; the process stays alive and writes the next good
// request. gRPC's receive limit is raised to 16 MiB for the test so the
// request reaches the decoder (the default 4 MiB would refuse it first).
func TestGuardDeepRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds and runs the collector")
	}
	bin := buildDistribution(t)
	dir := filepath.Join(t.TempDir(), "runs")
	grpcAddr, httpAddr := freePort(t), freePort(t)
	c := startShippedLog(t, bin, dir, dir+".queue", grpcAddr, httpAddr, filepath.Join(t.TempDir(), "collector.log"),
		"--config", "yaml:receivers::otlp::protocols::grpc::max_recv_msg_size_mib: 16")
	alive := func() {
		t.Helper()
		select {
		case <-c.done:
			c.dumpLog(t)
			t.Fatalf("collector exited: %v", c.err)
		default:
		}
	}

	deep := otlpdeep.AnyValueProto(1_300_000, false)
	traces := otlpdeep.TracesProto(deep)
	require.Less(t, len(traces), 16<<20)
	require.Greater(t, len(traces), 10<<20, "the size of the issue's request")
	posts := []struct {
		name, path, ct string
		body           []byte
	}{
		{"traces protobuf", "/v1/traces", "application/x-protobuf", traces},
		{"logs protobuf", "/v1/logs", "application/x-protobuf", otlpdeep.LogsProto(deep)},
		{"logs json", "/v1/logs", "application/json", otlpdeep.LogsJSON(otlpdeep.AnyValueJSON(300_000, true))},
	}
	for _, p := range posts {
		resp, err := http.Post("http://"+httpAddr+p.path, p.ct, bytes.NewReader(p.body))
		require.NoError(t, err, p.name)
		body, _ := io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s: %s", p.name, body)
		assert.Contains(t, string(body), "nested too deep", p.name)
		alive()
	}

	cc, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawBytes{}), grpc.MaxCallSendMsgSize(16<<20)))
	require.NoError(t, err)
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = cc.Invoke(ctx, "/opentelemetry.proto.collector.trace.v1.TraceService/Export", traces, new([]byte))
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, err.Error(), "nested too deep")
	alive()

	// Still serving: a good request is acknowledged and written.
	good := otlpdeep.TracesJSON(otlpdeep.AnyValueJSON(3, false))
	c.postJSON(t, good)
	artifact := filepath.Join(dir, "01010101010101010101010101010101.jsonl")
	require.Eventually(t, func() bool {
		_, err := os.Stat(artifact)
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "the good request's artifact")
	alive()
	c.stop(t)
}
