package store

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every test of the package runs with the lifecycle table enforced: a
// move it does not allow fails the test that made it.
func init() {
	onIllegal = func(a *runFile, from, to state) {
		panic(fmt.Sprintf("artifact %s: illegal move %s -> %s", a.key, from, to))
	}
}

// TestStateTransitions: the moves the design names (store/doc.go, the
// comments of writeLocked, finalizeLocked, pipeline.fail) are legal, and
// the ones that would lose track of the file are not.
func TestStateTransitions(t *testing.T) {
	tests := []struct {
		from, to state
		legal    bool
		why      string
	}{
		{stNew, stLoaded, true, "a fresh artifact's header made"},
		{stNew, stOpen, true, "a file adopted, lines after its trailer"},
		{stNew, stTrailed, true, "a finalized file adopted"},
		{stNew, stGone, true, "nothing to recover, or folded unread"},
		{stNew, stBroken, false, "nothing written, nothing to break"},
		{stLoaded, stOpen, true, "the first lines"},
		{stLoaded, stTrailed, true, "the first lines with a trailer"},
		{stOpen, stTrailed, true, "a trailer"},
		{stTrailed, stOpen, true, "a late span after the trailer"},
		{stTrailed, stTrailed, true, "another trailer"},
		{stOpen, stLoaded, true, "a failed first write undone"},
		{stTrailed, stLoaded, false, "a file with lines is never empty again"},
		{stTrailed, stNew, false, "loaded once, never unloaded"},
		{stOpen, stBroken, true, "a cut-back that failed"},
		{stBroken, stOpen, false, "a broken file's end is unknown: no more lines"},
		{stBroken, stTrailed, false, "nor a trailer"},
		{stBroken, stGone, true, "forgotten, adopted again later"},
		{stGone, stLoaded, false, "a gone artifact is looked up again, never reused"},
		{stGone, stOpen, false, "nor written to"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s->%s", tt.from, tt.to), func(t *testing.T) {
			assert.Equal(t, tt.legal, tt.from.legal(tt.to), tt.why)
		})
	}
}
