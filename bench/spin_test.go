package bench

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/patch"
)

var panErrors = regexp.MustCompile(`errors: (\d+)`)

// TestSpinModelsAgree runs, for every built-in strategy, its Promela model
// (models/ARCH.pml with -DSTRATEGY) through spin -a, gcc and pan, and
// `mcountsim check --arch ARCH --strategy S` at the defaults, and requires
// "errors: 0" where mcountsim exits 0 (SAFE) and "errors: 1" where it exits
// 1 (UNSAFE). A built-in without a model fails. pan.c is compiled with -O0
// here (4x faster to compile than spin.sh's -O2, same verdict).
func TestSpinModelsAgree(t *testing.T) {
	needSpin(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "mcountsim")
	out, err := exec.Command(goTool, "build", "-o", bin, "../cmd/mcountsim").CombinedOutput()
	require.NoError(t, err, "go build ./cmd/mcountsim: %s", out)
	models, err := filepath.Glob("models/*.pml")
	require.NoError(t, err)
	require.NotEmpty(t, models)

	builtins := patch.Builtins()
	require.Len(t, builtins, 19, "a new built-in needs a model in bench/models (and a row in README.md)")
	for _, s := range builtins {
		arch, name := s.Arch.String(), s.Name
		t.Run(arch+"/"+name, func(t *testing.T) {
			t.Parallel()
			model := filepath.Join("models", arch+".pml")
			require.FileExists(t, model, "no Promela model for %s", arch)
			def := "-D" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
			spinErrors := runSpin(t, models, arch, def)

			code := 0
			mc, err := exec.Command(bin, "check", "--arch", arch, "--strategy", name).CombinedOutput()
			if err != nil {
				var exit *exec.ExitError
				require.True(t, errors.As(err, &exit), "mcountsim check: %v", err)
				code = exit.ExitCode()
			}
			require.Contains(t, []int{0, 1}, code, "mcountsim check exit %d (want 0 SAFE or 1 UNSAFE):\n%s", code, mc)
			want := map[int]string{0: "0", 1: "1"}[code]
			assert.Equal(t, want, spinErrors, "SPIN's errors on %s %s, against mcountsim check's exit %d:\n%s", model, def, code, mc)
		})
	}
}

// runSpin runs models/arch.pml with the defines through spin -a, gcc -O0
// and pan in a fresh directory and returns the number of pan's "errors:".
func runSpin(t *testing.T, models []string, arch string, defs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, m := range models {
		b, err := os.ReadFile(m)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(m)), b, 0o644))
	}
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
		return string(out)
	}
	run("spin", append(append([]string{}, defs...), "-a", arch+".pml")...)
	run("gcc", "-O0", "-DSAFETY", "-o", "pan", "pan.c")
	pan := run("./pan")
	require.NotContains(t, pan, "max search depth too small", "pan's search was cut short")
	m := panErrors.FindStringSubmatch(pan)
	require.NotNil(t, m, "no errors line in pan's output:\n%s", pan)
	return m[1]
}

// TestSpinModelsMutants checks that the SAFE models owe their verdict to
// the protocol step they model: without it, SPIN finds the hazard.
func TestSpinModelsMutants(t *testing.T) {
	needSpin(t)
	models, err := filepath.Glob("models/*.pml")
	require.NoError(t, err)
	for _, c := range []struct{ arch, strategy, mutant string }{
		// synchronize_rcu_tasks() waited out by a timer tick, as
		// synchronize_sched() is: a task preempted mid-site survives it.
		{"arm", "TWO_STEP_RCU_TASKS", "TICK_QUIESCES"},
		// text_poke_bp without the sync_core after the int3: a stale CPU
		// fetches the old byte 0 with new bytes 1-4 (torn-fetch).
		{"x86", "TEXT_POKE_BP", "SKIP_FIRST_SYNC"},
	} {
		t.Run(c.arch+"/"+c.mutant, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, "0", runSpin(t, models, c.arch, "-D"+c.strategy))
			assert.Equal(t, "1", runSpin(t, models, c.arch, "-D"+c.strategy, "-D"+c.mutant))
		})
	}
}

// needSpin skips the test under -short or without spin and gcc.
func needSpin(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: runs spin and gcc")
	}
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install -y spin gcc)", tool)
		}
	}
}
