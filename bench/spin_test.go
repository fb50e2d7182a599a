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
	if testing.Short() {
		t.Skip("-short: runs spin, gcc and mcountsim check on every built-in")
	}
	for _, tool := range []string{"spin", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install -y spin gcc)", tool)
		}
	}
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
			dir := t.TempDir()
			for _, m := range models {
				b, err := os.ReadFile(m)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.Base(m)), b, 0o644))
			}
			def := "-D" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
			run := func(name string, args ...string) string {
				cmd := exec.Command(name, args...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s %s: %s", name, strings.Join(args, " "), out)
				return string(out)
			}
			run("spin", def, "-a", arch+".pml")
			run("gcc", "-O0", "-DSAFETY", "-o", "pan", "pan.c")
			pan := run("./pan")
			require.NotContains(t, pan, "max search depth too small", "pan's search was cut short")
			m := panErrors.FindStringSubmatch(pan)
			require.NotNil(t, m, "no errors line in pan's output:\n%s", pan)

			code := 0
			mc, err := exec.Command(bin, "check", "--arch", arch, "--strategy", name).CombinedOutput()
			if err != nil {
				var exit *exec.ExitError
				require.True(t, errors.As(err, &exit), "mcountsim check: %v", err)
				code = exit.ExitCode()
			}
			require.Contains(t, []int{0, 1}, code, "mcountsim check exit %d (want 0 SAFE or 1 UNSAFE):\n%s", code, mc)
			want := map[int]string{0: "0", 1: "1"}[code]
			assert.Equal(t, want, m[1], "SPIN's errors on %s %s, against mcountsim check's exit %d:\n%s\n%s", model, def, code, pan, mc)
		})
	}
}
