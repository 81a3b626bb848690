package twotier

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/agenttrace/agenttrace/internal/e2eload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

const (
	// builderVersion is the OpenTelemetry Collector Builder that builds the
	// gateway; its core version is the one otelcol-agenttrace is built on.
	builderVersion = "v0.162.0"
	// The shipped configs: the ConfigMaps of these manifests are run
	// unchanged but for addresses, directories and the resolver.
	tier1Manifest = "../k8s/tier1-loadbalancer.yaml"
	tier2Manifest = "../k8s/agenttrace-collector.yaml"
	// Each agent run is a root span over three chat calls of 100 input
	// and 20 output tokens.
	spansPerTrace              = 4
	inputPerTrace, outPerTrace = 300, 60
)

// binDir holds the otelcol-agenttrace binary built for this run.
var binDir string

// TestMain removes the binaries after the tests and checks that the load
// generators and process watchers left no goroutine behind.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// spansPerPhase is how many spans the SDK must see acknowledged before a
// kill and again after it (AGENTTRACE_TWOTIER_SPANS overrides it).
func spansPerPhase(t *testing.T) int64 {
	n := int64(10000)
	if v := os.Getenv("AGENTTRACE_TWOTIER_SPANS"); v != "" {
		var err error
		n, err = strconv.ParseInt(v, 10, 64)
		require.NoError(t, err, "AGENTTRACE_TWOTIER_SPANS")
	}
	return n
}

// TestTwoTier runs the layout under load from the Go SDK: steadily, with
// a `kill -9` of one tier-2 collector (restarted at once, and after 15 s
// down), and with one of the gateway. In each, every acknowledged span is
// in exactly one artifact, every trace is whole in one collector's folder,
// both collectors get traces (the routing by trace id spreads them), and
// after a clean stop every artifact has a trailer that counts it.
func TestTwoTier(t *testing.T) {
	for _, tc := range []struct {
		name string
		down time.Duration // how long the killed process stays down
		kill func(l *layout) *process
		back func(l *layout)
	}{
		{name: "steady"},
		{
			name: "kill-9 tier 2",
			kill: func(l *layout) *process { return l.tier2[0].proc },
			back: func(l *layout) { l.startCollector(0) },
		},
		{
			name: "kill-9 tier 2, 15 s down", down: 15 * time.Second,
			kill: func(l *layout) *process { return l.tier2[0].proc },
			back: func(l *layout) { l.startCollector(0) },
		},
		{
			name: "kill-9 tier 1",
			kill: func(l *layout) *process { return l.gateway },
			back: func(l *layout) { l.startGateway() },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newLayout(t)
			phase := spansPerPhase(t)
			s, stop := load(t, l.grpc)
			begin := time.Now()
			var recovery time.Duration
			var ackedWhileDown int64
			if tc.kill != nil {
				e2eload.Await(t, 3*time.Minute, fmt.Sprintf("%d acknowledged spans before the kill", phase), func() bool { return s.Acked() >= phase })
				tc.kill(l).kill9(t)
				killed, before := time.Now(), s.Acked()
				if tc.down > 0 {
					time.Sleep(tc.down) // an outage of a fixed length, not a wait for a condition
					ackedWhileDown = s.Acked() - before
				}
				tc.back(l)
				restarted := s.Acked()
				e2eload.Await(t, 3*time.Minute, "acknowledgements after the restart", func() bool { return s.Acked() > restarted })
				recovery = time.Since(killed)
			}
			target := s.Acked() + phase
			e2eload.Await(t, 3*time.Minute, fmt.Sprintf("%d acknowledged spans", target), func() bool { return s.Acked() >= target })
			run := stop()
			elapsed := time.Since(begin)
			l.finish(run.acked)

			o := check(t, l.dirs(), run)
			assert.Zero(t, o.lost, "acknowledged spans lost")
			assert.Zero(t, o.dup, "spans written twice")
			assert.Zero(t, o.split, "traces split over the collectors")
			assert.Equal(t, o.generated, o.acked+o.refused, "every span generated was acknowledged or given up")
			if tc.kill == nil {
				assert.Zero(t, o.refused, "spans given up by the SDK under steady load")
			}
			for i, n := range o.perCollector {
				assert.Positive(t, n, "artifacts in tier-2 collector %d", i)
			}
			t.Logf("%s: %v in %v (%.0f spans/s acknowledged); %d acknowledged while down; kill to first acknowledgement after the restart %v",
				tc.name, o, elapsed.Round(time.Millisecond), float64(o.acked)/elapsed.Seconds(), ackedWhileDown, recovery.Round(time.Millisecond))
		})
	}
}

// TestShippedGatewayConfig: the gateway binary accepts the tier-1 config
// exactly as shipped, DNS resolver and all (the load test swaps that
// resolver for a static one).
func TestShippedGatewayConfig(t *testing.T) {
	gw, _ := binaries(t)
	out, err := exec.Command(gw, "validate", "--config", configMapConfig(t, tier1Manifest)).CombinedOutput()
	require.NoError(t, err, "%s", out)
}
