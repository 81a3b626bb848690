package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/confmap/provider/yamlprovider"
	"go.opentelemetry.io/collector/otelcol"
	yaml "go.yaml.in/yaml/v3"
)

// deployDir is the repository's deploy directory, relative to this package.
const deployDir = "../../deploy"

// contribOnly are component types that deploy/ uses but this distribution
// does not contain (they run in the contrib image, see deploy/README.md).
// A collector config using one of them is checked for YAML and component
// types only, not resolved and validated.
var contribOnly = map[string]bool{"loadbalancing": true}

// dryRun resolves and validates the collector config at path exactly as
// `otelcol-agenttrace validate --config <path>` does, with this
// distribution's own factories.
func dryRun(t *testing.T, path string) error {
	t.Helper()
	col, err := otelcol.NewCollector(otelcol.CollectorSettings{
		BuildInfo: component.NewDefaultBuildInfo(),
		Factories: components,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				URIs: []string{path},
				ProviderFactories: []confmap.ProviderFactory{
					envprovider.NewFactory(),
					fileprovider.NewFactory(),
					yamlprovider.NewFactory(),
				},
				DefaultScheme: "env",
			},
		},
	})
	if err != nil {
		return err
	}
	return col.DryRun(context.Background())
}

func TestComponents(t *testing.T) {
	f, err := components()
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"agenttrace", "otlp_grpc", "otlp_http", "debug"} {
		if _, ok := f.Exporters[component.MustNewType(typ)]; !ok {
			t.Errorf("exporter %q missing from the distribution", typ)
		}
	}
	for _, typ := range []string{"batch", "memory_limiter"} {
		if _, ok := f.Processors[component.MustNewType(typ)]; !ok {
			t.Errorf("processor %q missing from the distribution", typ)
		}
	}
	if _, ok := f.Receivers[component.MustNewType("otlp")]; !ok {
		t.Error("receiver otlp missing from the distribution")
	}
	if _, ok := f.Extensions[component.MustNewType("file_storage")]; !ok {
		t.Error("extension file_storage (the shipped configs' persistent sending queue) missing from the distribution")
	}
}

// TestCollectorConfigs validates every collector config under
// deploy/collector.
func TestCollectorConfigs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(deployDir, "collector", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no collector configs under deploy/collector")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			if err := dryRun(t, p); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
		})
	}
}

// TestExporterREADME validates every collector config (a YAML block with a
// service key) in the exporter's README, as a user would paste it.
func TestExporterREADME(t *testing.T) {
	const readme = "../../exporter/README.md"
	src, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	blocks := yamlBlocks(string(src))
	n := 0
	for i, b := range blocks {
		var cfg map[string]any
		if err := yaml.Unmarshal([]byte(b), &cfg); err != nil {
			t.Errorf("%s: YAML block %d: %v", readme, i, err)
			continue
		}
		if _, ok := cfg["service"]; !ok {
			continue
		}
		n++
		p := filepath.Join(t.TempDir(), "readme.yaml")
		if err := os.WriteFile(p, []byte(b), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := dryRun(t, p); err != nil {
			t.Errorf("%s: YAML block %d does not run on this distribution: %v", readme, i, err)
		}
	}
	if n == 0 {
		t.Fatalf("%s has no collector config (a ```yaml block with a service key)", readme)
	}
}

// yamlBlocks returns the bodies of the ```yaml fences of a Markdown text.
func yamlBlocks(md string) []string {
	var out []string
	for {
		_, rest, ok := strings.Cut(md, "```yaml\n")
		if !ok {
			return out
		}
		body, after, _ := strings.Cut(rest, "```")
		out = append(out, body)
		md = after
	}
}

// TestDryRunCatchesTypos makes sure the validation above is not vacuous.
func TestDryRunCatchesTypos(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(deployDir, "collector", "agenttrace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(string) string{
		"unknown key": func(s string) string { return strings.Replace(s, "group_by:", "groupby:", 1) },
		"bad value":   func(s string) string { return strings.Replace(s, "group_by: trace", "group_by: span", 1) },
		"unknown exporter": func(s string) string {
			return strings.Replace(s, "exporters: [agenttrace]", "exporters: [agentrace]", 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			bad := mutate(string(src))
			if bad == string(src) {
				t.Fatal("mutation did not apply; update the test")
			}
			p := filepath.Join(t.TempDir(), "bad.yaml")
			if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := dryRun(t, p); err == nil {
				t.Fatal("invalid config passed validation")
			}
		})
	}
}

// TestDeployYAML checks that every other YAML file under deploy/ (compose,
// Kubernetes manifests, the builder manifest) parses, and validates the
// collector configs embedded in Kubernetes ConfigMaps.
func TestDeployYAML(t *testing.T) {
	var paths []string
	err := filepath.WalkDir(deployDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "collector" {
				return filepath.SkipDir // TestCollectorConfigs
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		t.Run(strings.TrimPrefix(filepath.ToSlash(p), deployDir+"/"), func(t *testing.T) {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			dec := yaml.NewDecoder(bytes.NewReader(src))
			for n := 0; ; n++ {
				var doc map[string]any
				if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s: document %d: %v", p, n, err)
				}
				if doc["kind"] == "ConfigMap" {
					checkConfigMap(t, doc)
				}
			}
		})
	}
}

// checkConfigMap validates every data entry of a ConfigMap that is a
// collector config (has a service key).
func checkConfigMap(t *testing.T, doc map[string]any) {
	t.Helper()
	data, _ := doc["data"].(map[string]any)
	for key, v := range data {
		s, ok := v.(string)
		if !ok {
			continue
		}
		var v any
		if err := yaml.Unmarshal([]byte(s), &v); err != nil {
			t.Errorf("ConfigMap data %q: %v", key, err)
			continue
		}
		// A scalar (a bucket URL) or a map without a service key is
		// not a collector config.
		cfg, _ := v.(map[string]any)
		if _, ok := cfg["service"]; !ok {
			continue
		}
		if missing := contribTypes(t, cfg); len(missing) > 0 {
			t.Logf("ConfigMap data %q uses contrib components %v: YAML checked, not validated", key, missing)
			continue
		}
		p := filepath.Join(t.TempDir(), key)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := dryRun(t, p); err != nil {
			t.Errorf("ConfigMap data %q: %v", key, err)
		}
	}
}

// contribTypes returns the component types of cfg that this distribution
// lacks; it fails the test for any that is not in contribOnly.
func contribTypes(t *testing.T, cfg map[string]any) []string {
	t.Helper()
	f, err := components()
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for kind, has := range map[string]func(component.Type) bool{
		"receivers":  func(c component.Type) bool { _, ok := f.Receivers[c]; return ok },
		"processors": func(c component.Type) bool { _, ok := f.Processors[c]; return ok },
		"exporters":  func(c component.Type) bool { _, ok := f.Exporters[c]; return ok },
		"connectors": func(c component.Type) bool { _, ok := f.Connectors[c]; return ok },
		"extensions": func(c component.Type) bool { _, ok := f.Extensions[c]; return ok },
	} {
		m, _ := cfg[kind].(map[string]any)
		for id := range m {
			typ, _, _ := strings.Cut(id, "/")
			ct, err := component.NewType(typ)
			if err == nil && has(ct) {
				continue
			}
			if !contribOnly[typ] {
				t.Errorf("%s: %q is neither in this distribution nor a known contrib component", kind, id)
				continue
			}
			missing = append(missing, typ)
		}
	}
	sort.Strings(missing)
	return missing
}
