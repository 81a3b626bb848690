package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

// TestShippedBucketConfigs validates the configs that upload to a bucket
// with the values they ship with: the single collector's
// (collector/agenttrace-bucket.yaml) with the environment of the compose
// file that runs it against SeaweedFS, and tier 2's ConfigMap
// (k8s/agenttrace-collector.yaml) with the bucket URL of k8s/bucket.yaml.
// Each must also fail with a URL of a scheme no driver serves, which
// proves the URL reaches the exporter's validation rather than being
// dropped on the way.
func TestShippedBucketConfigs(t *testing.T) {
	composeEnv := composeService(t, "docker-compose-s3.yaml", "otelcol-agenttrace")
	k8sURL := configMapData(t, filepath.Join(deployDir, "k8s", "bucket.yaml"), "agenttrace-bucket")["url"]
	require.NotEmpty(t, k8sURL, "k8s/bucket.yaml: agenttrace-bucket has no url")
	tier2 := filepath.Join(t.TempDir(), "tier2.yaml")
	require.NoError(t, os.WriteFile(tier2, []byte(configMapData(t, filepath.Join(deployDir, "k8s", "agenttrace-collector.yaml"), "agenttrace-collector")["config.yaml"]), 0o600))

	for _, tc := range []struct {
		name, config string
		env          map[string]string
	}{
		{"collector/agenttrace-bucket.yaml with docker-compose-s3.yaml's environment", filepath.Join(deployDir, bucketConfig), composeEnv.Environment},
		{"k8s tier 2 with k8s/bucket.yaml's url", tier2, map[string]string{"AGENTTRACE_BUCKET": k8sURL}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Contains(t, tc.env, "AGENTTRACE_BUCKET")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			// Directories of the image, which do not exist here.
			t.Setenv("AGENTTRACE_DIR", filepath.Join(t.TempDir(), "runs"))
			t.Setenv("AGENTTRACE_QUEUE_DIR", filepath.Join(t.TempDir(), "queue"))
			assert.NoError(t, dryRun(t, tc.config), "AGENTTRACE_BUCKET=%s", tc.env["AGENTTRACE_BUCKET"])
			t.Setenv("AGENTTRACE_BUCKET", "ftp://runs/prod")
			assert.Error(t, dryRun(t, tc.config), "a bucket URL of no known scheme must not validate")
		})
	}
}

// TestComposeConfigsExist: every compose service that runs the
// distribution names a config that deploy/collector ships (mounted at
// /etc/otelcol-agenttrace).
func TestComposeConfigsExist(t *testing.T) {
	for _, file := range []string{"docker-compose.yaml", "docker-compose-s3.yaml"} {
		svc := composeService(t, file, "otelcol-agenttrace")
		var cfg string
		for _, arg := range svc.Command {
			if v, ok := strings.CutPrefix(arg, "--config=/etc/otelcol-agenttrace/"); ok {
				cfg = v
			}
		}
		if assert.NotEmpty(t, cfg, "%s: the collector runs no config of /etc/otelcol-agenttrace", file) {
			assert.FileExists(t, filepath.Join(deployDir, "collector", cfg), file)
		}
	}
}

// composeSvc is the part of a compose service the tests read.
type composeSvc struct {
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
}

// composeService reads one service of a compose file under deploy/.
func composeService(t *testing.T, file, name string) composeSvc {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(deployDir, file))
	require.NoError(t, err)
	var doc struct {
		Services map[string]composeSvc `yaml:"services"`
	}
	require.NoError(t, yaml.Unmarshal(src, &doc), file)
	svc, ok := doc.Services[name]
	require.True(t, ok, "%s: no service %s", file, name)
	return svc
}

// configMapData returns the data of the ConfigMap named name in a
// multi-document manifest.
func configMapData(t *testing.T, path, name string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc struct {
			Kind     string `yaml:"kind"`
			Metadata struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
			Data map[string]string `yaml:"data"`
		}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, path)
		if doc.Kind == "ConfigMap" && doc.Metadata.Name == name {
			return doc.Data
		}
	}
	t.Fatalf("%s: no ConfigMap %s", path, name)
	return nil
}
