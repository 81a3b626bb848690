package main

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	yaml "go.yaml.in/yaml/v3"
)

// TestShippedConfigsRedactFirst (issue 22 item 4): in every collector
// config deploy/ ships for this distribution (a file, or a ConfigMap's
// entry), each pipeline that feeds the agenttrace exporter runs
// agenttrace_redact first, so no processor after it, and not the
// exporter's persistent sending queue, holds a secret. The distribution
// has the processor (TestCollectorConfigs and TestDeployYAML resolve the
// configs with it).
func TestShippedConfigsRedactFirst(t *testing.T) {
	f, err := components()
	require.NoError(t, err)
	require.Contains(t, f.Processors, component.MustNewType("agenttrace_redact"))

	checked := 0
	err = filepath.WalkDir(deployDir, func(p string, d fs.DirEntry, err error) error {
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
			cfgs := map[string]map[string]any{p: doc}
			data, _ := doc["data"].(map[string]any)
			for key, v := range data {
				s, _ := v.(string)
				var cfg map[string]any
				if yaml.Unmarshal([]byte(s), &cfg) == nil {
					cfgs[p+":"+key] = cfg
				}
			}
			for name, cfg := range cfgs {
				service, _ := cfg["service"].(map[string]any)
				pipelines, _ := service["pipelines"].(map[string]any)
				for pname, pl := range pipelines {
					pm, _ := pl.(map[string]any)
					if !feedsAgenttrace(pm) {
						continue
					}
					checked++
					procs := asSlice(pm["processors"])
					if assert.NotEmpty(t, procs, "%s: pipeline %s has no processors", name, pname) {
						assert.Equal(t, "agenttrace_redact", procs[0], "%s: pipeline %s: agenttrace_redact must come first", name, pname)
					}
					procCfgs, _ := cfg["processors"].(map[string]any)
					assert.Contains(t, procCfgs, "agenttrace_redact", "%s: the processor is declared", name)
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, checked, 6, "deploy/collector (2 configs) and the k8s ConfigMap, traces and logs each")
}

func feedsAgenttrace(pipeline map[string]any) bool {
	for _, e := range asSlice(pipeline["exporters"]) {
		if e == "agenttrace" {
			return true
		}
	}
	return false
}
