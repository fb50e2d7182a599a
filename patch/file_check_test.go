package patch_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// scenarioOf maps a file's config to a check, as mcountsim check does when
// no flag overrides it: each key sets the field of the flag it names.
func scenarioOf(f *patch.File) (explore.Scenario, explore.Options) {
	sc := explore.Scenario{Strategy: f.Strategy, Arch: f.Strategy.Arch}
	opts := explore.Options{Bound: explore.DefaultBound}
	c := f.Config
	set := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	if c.Preempt != nil {
		sc.Preempt = *c.Preempt
	}
	set(&sc.CPUs, c.CPUs)
	set(&sc.Tasks, c.Tasks)
	set(&sc.Iterations, c.Iterations)
	set(&sc.Toggles, c.Toggles)
	set(&sc.Functions, c.Functions)
	set(&opts.Bound, c.Bound)
	set(&opts.MaxStates, c.MaxStates)
	if c.Timeout != nil {
		opts.Timeout = *c.Timeout
	}
	if c.Prologue != nil {
		sc.Prologue = *c.Prologue
	}
	if c.Strict != nil {
		sc.Strict = *c.Strict
	}
	return sc, opts
}

func hazardKind(r *explore.Result) string {
	if r.Hazard == nil {
		return ""
	}
	return r.Hazard.Kind.String()
}

// Acceptance (3): every built-in ARM strategy, re-expressed as a scenario
// file, gives the same verdict and first hazard as the built-in.
func TestFileVerdictsMatchBuiltins(t *testing.T) {
	var verdicts []chan explore.Verdict
	for _, b := range patch.Builtins() {
		if b.Arch != kernel.ARM {
			continue
		}
		f, err := patch.ParseFile(b.Name+".strategy", strings.NewReader(patch.Format(b)))
		require.NoError(t, err)
		img, err := kernel.Build(kernel.ARM, kernel.Config{Functions: 2})
		require.NoError(t, err)
		want, err := patch.Compile(b, img, 3)
		require.NoError(t, err)
		got, err := patch.Compile(f.Strategy, img, 3)
		require.NoError(t, err)
		require.Equal(t, want, got, "%s: the file compiles to the built-in's program", b.Name)

		for _, pre := range []sched.Preempt{sched.PreemptFull, sched.PreemptNone} {
			sc := explore.Scenario{Preempt: pre, Tasks: 2, Iterations: 1, Toggles: 2}
			opts := explore.Options{Bound: 2}
			verdict := make(chan explore.Verdict, 1)
			verdicts = append(verdicts, verdict)
			t.Run(fmt.Sprintf("%s/preempt=%v", b.Name, pre), func(t *testing.T) {
				t.Parallel()
				defer close(verdict)
				sc.Strategy = b
				want, err := explore.Check(sc, opts)
				require.NoError(t, err)
				sc.Strategy = f.Strategy
				got, err := explore.Check(sc, opts)
				require.NoError(t, err)
				require.NotEqual(t, explore.Incomplete, want.Verdict)
				assert.Equal(t, want.Verdict, got.Verdict)
				assert.Equal(t, hazardKind(want), hazardKind(got))
				assert.Equal(t, want.Schedule, got.Schedule)
				assert.Equal(t, want.States, got.States)
				verdict <- want.Verdict
			})
		}
	}
	t.Cleanup(func() {
		// Not vacuous: both answers occur.
		seen := map[explore.Verdict]bool{}
		for _, v := range verdicts {
			seen[<-v] = true
		}
		assert.True(t, seen[explore.Safe] && seen[explore.Unsafe], "both SAFE and UNSAFE occur: %v", seen)
	})
}

var readmeRow = regexp.MustCompile("^\\| `([^`]+\\.strategy)` \\| (SAFE|UNSAFE|INCOMPLETE)(?: \\(`([a-z-]+)`\\))? \\|$")

// readmeVerdicts reads the verdict table of examples/strategies/README.md.
func readmeVerdicts(t *testing.T, dir string) map[string][2]string {
	r, err := os.Open(filepath.Join(dir, "README.md"))
	require.NoError(t, err)
	defer r.Close()
	out := map[string][2]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := readmeRow.FindStringSubmatch(sc.Text()); m != nil {
			out[m[1]] = [2]string{m[2], m[3]}
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// Every file under examples/strategies parses, matches the built-in of its
// name if there is one, and gives the verdict the README states when
// checked as mcountsim check --strategy-file would check it.
func TestExampleStrategyFiles(t *testing.T) {
	const dir = "../examples/strategies"
	paths, err := filepath.Glob(filepath.Join(dir, "*.strategy"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	table := readmeVerdicts(t, dir)
	require.Len(t, table, len(paths), "the README's table lists every file")
	builtins := 0
	for _, path := range paths {
		base := filepath.Base(path)
		f, err := patch.ReadFile(path)
		require.NoError(t, err)
		s := f.Strategy
		assert.Equal(t, strings.TrimSuffix(base, ".strategy"), s.Name, "a file is named after its strategy")
		if b, ok := patch.Lookup(s.Arch, s.Name); ok {
			builtins++
			assert.Equal(t, patch.Format(b), patch.Format(s), "%s is the built-in", base)
		}
		want, ok := table[base]
		require.True(t, ok, "the README's table lists %s", base)
		t.Run(base, func(t *testing.T) {
			t.Parallel()
			sc, opts := scenarioOf(f)
			if raceEnabled || testing.Short() {
				// One iteration gives the same verdicts at a fifth of
				// the cost; the plain run checks the files as written.
				sc.Iterations = 1
			}
			res, err := explore.Check(sc, opts)
			require.NoError(t, err)
			assert.Equal(t, want[0], res.Verdict.String(), sc.String())
			assert.Equal(t, want[1], hazardKind(res), sc.String())
		})
	}
	want := 0
	for _, b := range patch.Builtins() {
		if b.Arch == kernel.ARM {
			want++
		}
	}
	assert.Equal(t, want, builtins, "one file per built-in ARM strategy")
}

// The research protocol's comment claims UNSAFE (cmodx) without any
// preemption, because the words change while other CPUs run: also with
// preemption off and with toggles=2; the same protocol with each write
// under stop_machine is SAFE.
func TestRCUTasksPlainWritesClaims(t *testing.T) {
	f, err := patch.ReadFile("../examples/strategies/rcu-tasks-plain-writes.strategy")
	require.NoError(t, err)
	for _, mod := range []func(*explore.Scenario){
		func(sc *explore.Scenario) {},
		func(sc *explore.Scenario) { sc.Preempt = sched.PreemptNone },
		func(sc *explore.Scenario) { sc.Toggles = 2 },
	} {
		sc, opts := scenarioOf(f)
		mod(&sc)
		res, err := explore.Check(sc, opts)
		require.NoError(t, err)
		require.Equal(t, explore.Unsafe, res.Verdict, sc.String())
		assert.Equal(t, "cmodx", res.Hazard.Kind.String(), sc.String())
		assert.Equal(t, 0, res.Preemptions, sc.String())
		assert.Contains(t, res.Hazard.Detail, "while it changed from e1a00000 (mov r0, r0) to ea000000", sc.String())
	}
	// Under stop_machine the same steps are safe.
	text := strings.NewReplacer("enable   write ", "enable   stop_machine ", "disable  write ", "disable  stop_machine ").Replace(patch.Format(f.Strategy))
	g, err := patch.ParseFile("sm.strategy", strings.NewReader(text))
	require.NoError(t, err)
	sc, opts := scenarioOf(g)
	res, err := explore.Check(sc, opts)
	require.NoError(t, err)
	assert.Equal(t, explore.Safe, res.Verdict, text)
}
