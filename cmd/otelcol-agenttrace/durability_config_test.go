package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// durableExporters are the exporters on the way to the artifacts: each must
// answer the receiver only after the spans are on disk.
var durableExporters = map[string]bool{"agenttrace": true, "loadbalancing": true}

// TestShippedConfigsAcknowledgeAfterWriting checks every collector config
// this repository ships (deploy/collector, the ConfigMaps under deploy/k8s,
// the end-to-end test's): no `batch` processor in a pipeline (it
// acknowledges before anything is written), and every exporter on the way
// to the artifacts has either a persistent sending queue (storage naming an
// extension the service starts) or none at all. An in-memory queue lost
// 1,458 acknowledged spans in one kill -9 at 10k spans/s (issue 13).
func TestShippedConfigsAcknowledgeAfterWriting(t *testing.T) {
	configs := map[string]map[string]any{}
	paths, err := filepath.Glob(filepath.Join(deployDir, "collector", "*.yaml"))
	require.NoError(t, err)
	paths = append(paths, "testdata/e2e.yaml")
	for _, p := range paths {
		var cfg map[string]any
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, yaml.Unmarshal(src, &cfg), p)
		configs[p] = cfg
	}
	k8s, err := filepath.Glob(filepath.Join(deployDir, "k8s", "*.yaml"))
	require.NoError(t, err)
	for _, p := range k8s {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		dec := yaml.NewDecoder(bytes.NewReader(src))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else {
				require.NoError(t, err, p)
			}
			if doc["kind"] != "ConfigMap" {
				continue
			}
			data, _ := doc["data"].(map[string]any)
			for key, v := range data {
				var parsed any
				s, _ := v.(string)
				require.NoError(t, yaml.Unmarshal([]byte(s), &parsed), "%s: %s", p, key)
				cfg, _ := parsed.(map[string]any) // a scalar (a bucket URL) is no config
				if _, ok := cfg["service"]; ok {
					configs[p+":"+key] = cfg
				}
			}
		}
	}
	require.GreaterOrEqual(t, len(configs), 5, "deploy/collector (2), k8s ConfigMaps (2), testdata/e2e.yaml")

	durable := 0
	for name, cfg := range configs {
		service, _ := cfg["service"].(map[string]any)
		var started []string
		for _, e := range asSlice(service["extensions"]) {
			started = append(started, e.(string))
		}
		pipelines, _ := service["pipelines"].(map[string]any)
		exporters, _ := cfg["exporters"].(map[string]any)
		for pname, p := range pipelines {
			pl, _ := p.(map[string]any)
			for _, proc := range asSlice(pl["processors"]) {
				typ, _, _ := strings.Cut(proc.(string), "/")
				assert.NotEqual(t, "batch", typ, "%s: pipeline %s: the batch processor acknowledges before writing", name, pname)
			}
			for _, e := range asSlice(pl["exporters"]) {
				id := e.(string)
				typ, _, _ := strings.Cut(id, "/")
				if !durableExporters[typ] {
					continue
				}
				durable++
				ecfg, _ := exporters[id].(map[string]any)
				q, _ := ecfg["sending_queue"].(map[string]any)
				if typ == "loadbalancing" {
					proto, _ := ecfg["protocol"].(map[string]any)
					otlp, _ := proto["otlp"].(map[string]any)
					q, _ = otlp["sending_queue"].(map[string]any)
				}
				if q == nil {
					t.Errorf("%s: exporter %s: the default sending queue is in memory; set storage or enabled: false", name, id)
					continue
				}
				if q["enabled"] == false {
					continue
				}
				storage, _ := q["storage"].(string)
				if assert.NotEmpty(t, storage, "%s: exporter %s: an in-memory sending queue acknowledges before writing", name, id) {
					assert.Contains(t, cfg["extensions"], storage, "%s: %s: storage extension declared", name, id)
					assert.True(t, slices.Contains(started, storage), "%s: %s: storage extension %s started by the service", name, id, storage)
				}
			}
		}
	}
	assert.GreaterOrEqual(t, durable, len(configs), "every config has an exporter on the way to the artifacts")
}

func asSlice(v any) []any { s, _ := v.([]any); return s }
