package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

// TestShippedConfigsHaveLogsPipeline: every shipped collector config (a
// file, or a ConfigMap's entry) whose traces pipeline feeds the agenttrace
// exporter, or the gateway's loadbalancing exporter, has a logs pipeline
// into the same exporter: the official GenAI instrumentations put the
// prompt and the answer in log records. TestCollectorConfigs and
// TestDeployYAML validate the configs themselves.
func TestShippedConfigsHaveLogsPipeline(t *testing.T) {
	var configs []map[string]any
	var names []string
	err := filepath.WalkDir(deployDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(src))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return err
			}
			if _, ok := doc["service"]; ok {
				configs, names = append(configs, doc), append(names, p)
			}
			data, _ := doc["data"].(map[string]any)
			for key, v := range data {
				s, _ := v.(string)
				var cfg map[string]any
				if yaml.Unmarshal([]byte(s), &cfg) == nil && cfg["service"] != nil {
					configs, names = append(configs, cfg), append(names, p+":"+key)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	checked := 0
	for i, cfg := range configs {
		service, _ := cfg["service"].(map[string]any)
		pipelines, _ := service["pipelines"].(map[string]any)
		traces, _ := pipelines["traces"].(map[string]any)
		var want []string
		for _, e := range list(traces["exporters"]) {
			if e == "agenttrace" || e == "loadbalancing" {
				want = append(want, e)
			}
		}
		if len(want) == 0 {
			continue
		}
		checked++
		logs, _ := pipelines["logs"].(map[string]any)
		require.NotNil(t, logs, "%s: a logs pipeline", names[i])
		assert.Equal(t, list(traces["receivers"]), list(logs["receivers"]), "%s: the same receivers", names[i])
		for _, e := range want {
			assert.True(t, slices.Contains(list(logs["exporters"]), e), "%s: logs into %s", names[i], e)
		}
	}
	assert.GreaterOrEqual(t, checked, 4, "the two collector configs, the k8s collector and the gateway")
}

func list(v any) []string {
	s, _ := v.([]any)
	out := make([]string, 0, len(s))
	for _, e := range s {
		str, _ := e.(string)
		out = append(out, str)
	}
	return out
}
