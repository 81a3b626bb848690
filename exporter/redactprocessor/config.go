package redactprocessor

import (
	"errors"
	"fmt"
	"strings"
)

// Config is the processor's configuration: the agenttrace exporter's
// redact section, with the same keys and defaults, so that one block can
// be copied between them.
type Config struct {
	// Keys are attribute keys (and JSON field names) whose values are
	// replaced with [REDACTED], matched whole and ignoring case.
	Keys []string `mapstructure:"keys"`
	// Secrets turns on the scan for API keys, tokens and credentials in
	// every string; on by default.
	Secrets bool `mapstructure:"secrets"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// errNothingToDo is returned by Validate for a configuration that can
// change nothing: a processor that was put in front of the queue to keep
// secrets off the disk and silently does not is worse than none.
var errNothingToDo = errors.New("secrets: false with no keys redacts nothing; remove the processor instead")

// Validate checks the configuration; its errors name the YAML keys.
func (c *Config) Validate() error {
	var errs []error
	for i, k := range c.Keys {
		if strings.TrimSpace(k) == "" {
			errs = append(errs, fmt.Errorf("keys[%d]: must not be empty", i))
		}
	}
	if !c.Secrets && len(c.Keys) == 0 {
		errs = append(errs, errNothingToDo)
	}
	return errors.Join(errs...)
}
