package explore

import (
	"os"
	"testing"
)

// slowEnv names the variable that runs the proofs that take minutes on a
// 2-core machine (e.g. arm64-nop-bl with 3 CPUs and 3 tasks: ~10M states
// with the per-CPU fetch views): MCOUNTSIM_SLOW=1 go test ./explore.
const slowEnv = "MCOUNTSIM_SLOW"

// slow skips t unless the slow proofs were asked for (and always under
// -race or -short).
func slow(t *testing.T, what string) {
	t.Helper()
	if raceEnabled || testing.Short() || os.Getenv(slowEnv) == "" {
		t.Skipf("%s takes minutes; run with %s=1 (not under -race or -short)", what, slowEnv)
	}
}
