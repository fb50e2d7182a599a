package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/cost"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

func costRun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(append([]string{"cost"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// needMCA skips without llvm-mca, and fails under CI=true (.ci/run installs
// the llvm package).
func costNeedMCA(t *testing.T) {
	t.Helper()
	if _, err := cost.MCAVersion(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("llvm-mca is required under CI=true: %v", err)
		}
		t.Skipf("llvm-mca not available: %v", err)
	}
}

const costLinux = "../../cost/testdata/linux-6.1-arm-range.o"

// TestCostJSONEveryBuiltin: --json lists the three forms of every built-in
// strategy of the arch (patch.Builtins filtered by arch, in order), with
// the counts from execution and llvm-mca's cycles for the arch's CPUs.
func TestCostJSONEveryBuiltin(t *testing.T) {
	costNeedMCA(t)
	for _, arch := range []kernel.Arch{kernel.ARM, kernel.X86} {
		t.Run(arch.String(), func(t *testing.T) {
			code, out, errOut := costRun("--arch", arch.String(), "--json")
			require.Equal(t, 0, code, errOut)
			var recs []map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &recs))
			var want []string
			for _, s := range patch.Builtins() {
				if s.Arch == arch {
					want = append(want, s.Name)
				}
			}
			require.Len(t, recs, 3*len(want))
			cpus, err := cost.CPUs(arch.String())
			require.NoError(t, err)
			for i, r := range recs {
				assert.Equal(t, want[i/3], r["strategy"])
				assert.Equal(t, []string{"baseline", "disabled", "enabled"}[i%3], r["form"])
				assert.Equal(t, arch.String(), r["arch"])
				assert.Equal(t, "f0", r["function"])
				for _, k := range []string{"bytes", "instructions", "memory_accesses", "taken_branches", "icache_lines"} {
					assert.IsType(t, 0.0, r[k], k)
				}
				cyc, ok := r["cycles"].(map[string]any)
				require.True(t, ok, "cycles is an object")
				for _, cpu := range cpus {
					require.Contains(t, cyc, cpu)
					if arch == kernel.ARM && cpu == "cortex-r52" && r["form"] == "enabled" {
						assert.Contains(t, cyc[cpu], "cannot schedule", "a reason, not a number")
						continue
					}
					assert.IsType(t, 0.0, cyc[cpu], "%s %s %s", r["strategy"], r["form"], cpu)
				}
			}
			// The dormant overhead is disabled - baseline.
			base, dis := recs[0], recs[1]
			assert.Greater(t, dis["instructions"], base["instructions"])
		})
	}
}

// TestCostText: the table shows the dormant row (disabled - baseline) and
// names the reason for a CPU without a figure once, as a note.
func TestCostText(t *testing.T) {
	code, out, errOut := costRun("--arch", "arm", "--strategy", "jmp-over", "--no-cycles")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 6)
	assert.Regexp(t, `^STRATEGY\s+FORM\s+BYTES\s+INSNS\s+MEM\s+TAKEN\s+LINES$`, lines[0])
	assert.Regexp(t, `^jmp-over\s+baseline\s+0\s+4\s+4\s+1\s+1$`, lines[1])
	assert.Regexp(t, `^\s+disabled\s+8\s+5\s+4\s+2\s+1$`, lines[2])
	assert.Regexp(t, `^\s+enabled\s+44\s+15\s+17\s+5\s+2$`, lines[3])
	assert.Regexp(t, `^\s+dormant\s+\+8\s+\+1\s+\+0\s+\+1\s+\+0$`, lines[4])
	assert.Contains(t, lines[5], "per call of f0; its site (8 bytes at 0x8024) does not cross a 64-byte line")

	costNeedMCA(t)
	code, out, errOut = costRun("--arch", "arm", "--strategy", "pop-lr", "--cpus", "cortex-r52,cortex-a8")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `dormant\s+\+8\s+\+2\s+\+2\s+\+0\s+\+0\s+\+21\.00\s+n/a\[1\]`, out)
	assert.Contains(t, out, "[1] llvm-mca arm: cortex-a8 has no scheduling model")
}

// TestCostObjectLinux: cost --object on kernel/range.o of Linux 6.1
// (ARMv5, Kbuild's recordmcount) counts the sites that `mcountsim sites`
// counts and sorts its table by dormant cost. (Its time is logged, not
// asserted: timing targets live in benchmarks, not in unit tests on a
// shared machine.)
func TestCostObjectLinux(t *testing.T) {
	var sitesOut, sitesErr bytes.Buffer
	require.Equal(t, 0, run([]string{"sites", costLinux}, &sitesOut, &sitesErr), sitesErr.String())
	assert.Contains(t, sitesOut.String(), "6 sites in 6 functions\n")

	start := time.Now()
	code, out, errOut := costRun("--object", costLinux, "--json")
	elapsed := time.Since(start)
	require.Equal(t, 0, code, errOut)
	t.Logf("cost --object %s: %v", costLinux, elapsed)
	var rec struct {
		Sites     int `json:"sites"`
		SiteBytes int `json:"site_bytes"`
		Functions []struct {
			Function   string `json:"function"`
			Skipped    string `json:"skipped"`
			Strategies []struct {
				Strategy string           `json:"strategy"`
				Forms    []map[string]any `json:"forms"`
				Dormant  map[string]any   `json:"dormant"`
			} `json:"strategies"`
		} `json:"functions"`
		Totals []map[string]any `json:"totals"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	assert.Equal(t, 6, rec.Sites)
	assert.Equal(t, 48, rec.SiteBytes)
	require.Len(t, rec.Functions, 6)
	measured := 0
	for _, f := range rec.Functions {
		if f.Skipped != "" {
			assert.Equal(t, "cmp_range", f.Function)
			continue
		}
		measured++
		require.Len(t, f.Strategies, 6)
		for _, s := range f.Strategies {
			require.Len(t, s.Forms, 3)
			assert.Equal(t, "dormant", s.Dormant["form"])
			assert.Equal(t, 8.0, s.Dormant["bytes"])
		}
	}
	assert.Equal(t, 5, measured)
	require.Len(t, rec.Totals, 6)
	assert.Equal(t, "jmp-over", rec.Totals[1]["strategy"])
	assert.Equal(t, 5.0, rec.Totals[1]["instructions"])

	code, out, errOut = costRun("--object", costLinux, "--no-cycles")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "6 sites in 6 functions; 5 measured, 1 skipped")
	assert.Contains(t, out, "skipped cmp_range: called with zero arguments")
	// Sorted by cost: the +2 rows come before the +1 (jmp-over) rows.
	var incs []string
	table, _, _ := strings.Cut(out, "\n\n") // the per-function table, before the totals
	for _, line := range strings.Split(table, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) >= 5 {
			incs = append(incs, f[4])
		}
	}
	require.NotEmpty(t, incs)
	assert.True(t, sort.SliceIsSorted(incs, func(i, j int) bool { return incs[i] > incs[j] }), "%v", incs)
}

// TestCostSVG writes the pictures and checks they are SVG naming every
// strategy (the cost package's tests count the bars).
func TestCostSVG(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--arch", "x86", "--no-cycles"},
		{"--object", costLinux, "--no-cycles"},
	} {
		path := filepath.Join(dir, "cost.svg")
		code, _, errOut := costRun(append(args, "--svg", path)...)
		require.Equal(t, 0, code, errOut)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Contains(t, string(data), "<svg")
		names := []string{"plain-write", "stop-machine", "text-poke-bp"}
		if args[0] == "--object" {
			names = []string{"nop-nop", "jmp-over", "pop-lr", "add-sp"}
		}
		for _, n := range names {
			assert.Contains(t, string(data), ">"+n+"<")
		}
	}
}

func TestCostBadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.o")
	require.NoError(t, os.WriteFile(junk, []byte("junk"), 0o644))
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "mips"}, "mcountsim cost: --arch: unknown arch \"mips\""},
		{[]string{"--arch", "arm", "--strategy", "nope"}, "mcountsim cost: --strategy: unknown arm strategy \"nope\" (want one of: nop-nop, jmp-over"},
		{[]string{"--object", filepath.Join(dir, "missing.o")}, "mcountsim cost: --object " + filepath.Join(dir, "missing.o") + ": no such file or directory"},
		{[]string{"--object", dir}, "not a regular file (a directory)"},
		{[]string{"--object", junk}, "mcountsim cost: --object " + junk + ":"},
		{[]string{"--object", costLinux, "--arch", "x86"}, "strategy plain-write is for x86, but the object is arm"},
		{[]string{"--cpus", "", "--arch", "arm"}, "mcountsim cost: --cpus: no CPU named"},
		{[]string{"--cpus", "skylake", "--no-cycles"}, "contradict"},
		{[]string{"extra"}, "unexpected argument \"extra\""},
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
	}
	for _, tc := range cases {
		code, out, errOut := costRun(tc.args...)
		assert.Equal(t, 2, code, "%v", tc.args)
		assert.Empty(t, out, "%v", tc.args)
		assert.Contains(t, errOut, tc.want, "%v", tc.args)
		assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
	}
	code, out, _ := costRun("--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: mcountsim cost")
}
