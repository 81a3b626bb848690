// Written by hand as mdatagen would generate it from metadata.yaml:
// mdatagen could not be installed here. Regenerate with
// `mdatagen metadata.yaml` once it can be, and keep the result.

package metadata

import (
	"go.opentelemetry.io/collector/component"
)

var (
	Type      = component.MustNewType("agenttrace_redact")
	ScopeName = "github.com/agenttrace/agenttrace/exporter/redactprocessor"
)

const (
	TracesStability = component.StabilityLevelDevelopment
	LogsStability   = component.StabilityLevelDevelopment
)
