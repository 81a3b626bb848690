package atif

import (
	"encoding/json"
	"fmt"
	"io"
)

// Write writes t as one indented JSON document. t is written as it is:
// [FromRecords] makes trajectories of [SchemaVersion]; Write sets the
// version only when t has none.
func Write(w io.Writer, t *Trajectory) error {
	if t.SchemaVersion == "" {
		t.SchemaVersion = SchemaVersion
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return fmt.Errorf("write ATIF: %w", err)
	}
	return nil
}
