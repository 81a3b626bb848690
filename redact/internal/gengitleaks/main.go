// Command gengitleaks writes redact/gitleaks/rules.json, the secret rules
// package redact scans for, from the default configuration of gitleaks
// (github.com/zricethezav/gitleaks/v8, MIT), and copies gitleaks' LICENSE
// beside it.
//
// It is its own module so that the main module, which SDK users import
// through package bridge, never depends on gitleaks or its dependencies:
// only the generated data file is vendored. To refresh the rules:
//
//	cd redact/internal/gengitleaks
//	go get github.com/zricethezav/gitleaks/v8@latest && go mod tidy
//	GOWORK=off go run . -out ../../gitleaks
//
// then run go test ./redact/... in the main module and review the diff of
// rules.json like any other change.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

const module = "github.com/zricethezav/gitleaks/v8"

// skipped are the rules left out on purpose, with the reason written into
// the data file so that a reader of rules.json sees it.
var skipped = map[string]string{
	"generic-api-key": "its keywords (key, api, token, auth, access) are in nearly every GenAI span, " +
		"so its regular expression would run on almost every string; redact's own generic name=value rule covers credential names",
}

// File is the data file's shape; package redact reads the same.
type File struct {
	Source    string      `json:"source"`
	License   string      `json:"license"`
	Generator string      `json:"generator"`
	Allowlist []Allowlist `json:"allowlists"`
	Rules     []Rule      `json:"rules"`
	Skipped   []Skip      `json:"skipped"`
}

// Rule is one gitleaks rule as redact uses it.
type Rule struct {
	ID          string      `json:"id"`
	Regex       string      `json:"regex"`
	Keywords    []string    `json:"keywords"`
	SecretGroup int         `json:"secretGroup,omitempty"`
	Entropy     float64     `json:"entropy,omitempty"`
	Allowlists  []Allowlist `json:"allowlists,omitempty"`
}

// Allowlist is the part of a gitleaks allowlist that can be judged without
// a file path or a commit: regular expressions (on the secret, the whole
// match or the line) and stop words (in the secret).
type Allowlist struct {
	Target    string   `json:"target,omitempty"`
	Regexes   []string `json:"regexes,omitempty"`
	StopWords []string `json:"stopwords,omitempty"`
}

// Skip names a rule left out and why.
type Skip struct {
	ID  string `json:"id"`
	Why string `json:"why"`
}

func main() {
	out := flag.String("out", "../../gitleaks", "directory to write rules.json and LICENSE into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gengitleaks:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return fmt.Errorf("read gitleaks' default config: %w", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return fmt.Errorf("decode gitleaks' default config: %w", err)
	}
	// gitleaks' own validation: the file is what gitleaks itself accepts.
	if _, err := vc.Translate(); err != nil {
		return fmt.Errorf("validate gitleaks' default config: %w", err)
	}
	dir, version, err := moduleDir()
	if err != nil {
		return err
	}
	f := File{
		Source:    module + "@" + version + " config/gitleaks.toml",
		License:   "MIT, Copyright (c) 2019 Zachary Rice; see LICENSE beside this file",
		Generator: "redact/internal/gengitleaks; do not edit by hand",
	}
	globals := vc.Allowlists
	if g := vc.AllowList; g != nil && !slices.Contains(globals, g) {
		globals = append(globals, g) // the older single [allowlist] table
	}
	for _, g := range globals {
		if len(g.TargetRules) > 0 {
			continue
		}
		if a, ok := allowlist(g.Condition, g.RegexTarget, g.Paths, g.Commits, g.Regexes, g.StopWords); ok {
			f.Allowlist = append(f.Allowlist, a)
		}
	}
	for _, r := range vc.Rules {
		if why, ok := skipped[r.ID]; ok {
			f.Skipped = append(f.Skipped, Skip{r.ID, why})
			continue
		}
		switch {
		case r.Regex == "":
			f.Skipped = append(f.Skipped, Skip{r.ID, "matches file paths only"})
			continue
		case r.Path != "":
			f.Skipped = append(f.Skipped, Skip{r.ID, "applies only to files whose path matches " + r.Path})
			continue
		case len(r.Keywords) == 0:
			f.Skipped = append(f.Skipped, Skip{r.ID, "has no keywords to prefilter on"})
			continue
		}
		rule := Rule{ID: r.ID, Regex: r.Regex, SecretGroup: r.SecretGroup, Entropy: r.Entropy}
		for _, k := range r.Keywords {
			rule.Keywords = append(rule.Keywords, strings.ToLower(k))
		}
		lists := r.Allowlists
		if r.AllowList != nil {
			lists = append(lists, r.AllowList)
		}
		for _, l := range lists {
			if a, ok := allowlist(l.Condition, l.RegexTarget, l.Paths, l.Commits, l.Regexes, l.StopWords); ok {
				rule.Allowlists = append(rule.Allowlists, a)
			}
		}
		f.Rules = append(f.Rules, rule)
	}
	slices.SortFunc(f.Rules, func(a, b Rule) int { return strings.Compare(a.ID, b.ID) })

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return fmt.Errorf("encode rules: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, "rules.json"), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write rules: %w", err)
	}
	lic, err := os.ReadFile(filepath.Join(dir, "LICENSE"))
	if err != nil {
		return fmt.Errorf("read gitleaks' LICENSE: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, "LICENSE"), lic, 0o644); err != nil {
		return fmt.Errorf("write LICENSE: %w", err)
	}
	fmt.Printf("%d rules from %s@%s, %d skipped\n", len(f.Rules), module, version, len(f.Skipped))
	return nil
}

// allowlist keeps what can be judged on text alone. With the condition AND,
// a list that also needs a path or a commit can never hold for a span, so
// it is dropped; with OR (the default), its regexes and stop words still
// allow on their own.
func allowlist(cond, target string, paths, commits, regexes, stopwords []string) (Allowlist, bool) {
	if strings.EqualFold(cond, "and") || cond == "&&" {
		if len(paths) > 0 || len(commits) > 0 {
			return Allowlist{}, false
		}
	}
	if target == "secret" {
		target = ""
	}
	if len(regexes) == 0 && len(stopwords) == 0 {
		return Allowlist{}, false
	}
	return Allowlist{Target: target, Regexes: regexes, StopWords: stopwords}, true
}

// moduleDir returns where the go command keeps the gitleaks module this
// program was built with, and its version.
func moduleDir() (dir, version string, err error) {
	cmd := exec.Command("go", "list", "-m", "-json", module)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	b, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	var m struct{ Dir, Version string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", "", fmt.Errorf("go list -m %s: %w", module, err)
	}
	if m.Dir == "" {
		return "", "", errors.New("go list -m " + module + ": the module is not downloaded")
	}
	return m.Dir, m.Version, nil
}
