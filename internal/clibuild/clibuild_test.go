package clibuild

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathBuildsOnce(t *testing.T) {
	p := Path(t)
	assert.Equal(t, p, Path(t), "built once per test binary")
	out, err := exec.Command(p, "--help").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "agenttrace")
}
