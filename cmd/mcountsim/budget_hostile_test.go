package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 20, point 2: under a 512 MiB data limit (runLimited) the default
// memory budget (half of it) stops a search that grows without end, and a
// long run's page stays bounded: both end INCOMPLETE (exit 3), never in a
// crash, within runLimited's 20 s.
func TestHostileBudgets(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("runs child processes under a memory limit")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	dir := t.TempDir()
	jmp, err := os.ReadFile("../../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	// One write of 6,000 references: 60 KB.
	big := strings.Replace(string(jmp), "enable   stop_machine enabled@0", "enable   write"+strings.Repeat(" enabled@4", 6000), 1)
	require.Greater(t, len(big), 60_000)
	file := filepath.Join(dir, "big.strategy")
	require.NoError(t, os.WriteFile(file, []byte(big), 0o644))
	code, _, stderr := runLimited(t, "check", "--strategy-file", file, "--timeout", "5s")
	assert.Equal(t, 3, code, stderr)
	assert.NotContains(t, stderr, "out of memory")

	// The --timeout covers writing the page too: on a loaded machine the
	// page may not be done in 5 s, which the run says; then the budget is
	// raised.
	page := filepath.Join(dir, "long.html")
	var html []byte
	for _, budget := range []string{"5s", "20s", "60s"} {
		code, _, stderr = runLimited(t, "check", "--strategy", "jmp-over", "--iterations", "255", "--functions", "64", "--tasks", "8",
			"--cpus", "4", "--toggles", "64", "--timeout", budget, "--html", page)
		require.Equal(t, 3, code, stderr)
		if html, err = os.ReadFile(page); err == nil {
			break
		}
		require.Contains(t, stderr, "mcountsim check: INCOMPLETE: the --timeout of "+budget+" ran out while writing the --html page "+page)
	}
	require.NoError(t, err)
	assert.Less(t, len(html), 64<<20, "the page is bounded")
	assert.Contains(t, string(html), "the representative run is shown up to step 20000, where it was cut short")
	assert.Contains(t, string(html), "the site words of 8 of the 64 sites are shown at each step")
}
