package oracle

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type buf struct{ bytes.Buffer }

func (*buf) Close() error { return nil }

// A missing tool skips with one line on the terminal, once per tool; a
// present one is found; under CI=true a missing one fails.
func TestTool(t *testing.T) {
	var term buf
	Terminal = func() (io.WriteCloser, error) { return &term, nil }
	t.Setenv("CI", "")
	for i := 0; i < 2; i++ {
		t.Run("missing", func(t *testing.T) {
			Tool(t, "frob-tools", "the frob cross-check", "no-such-tool-mcountsim")
			t.Error("not skipped")
		})
	}
	assert.Equal(t, "oracle: no-such-tool-mcountsim not installed (apt-get install frob-tools): skipping the frob cross-check\n", term.String(), "one line, once")
	require.NotEmpty(t, Tool(t, "coreutils", "nothing", "no-such-tool-mcountsim", "sh"), "the first name found")
}
