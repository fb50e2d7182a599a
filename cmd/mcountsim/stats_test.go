package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func statsRun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runStats(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

const statsTestdata = "../../cost/testdata/"

// TestStatsTbenchJSON: Mathieu Desnoyers's compiled-out and dormant
// (inline) tbench runs from seed 004. Three runs a side cannot reach
// p <= 0.05 with the Mann-Whitney test (its smallest p for 3+3 is
// 2/C(6,3) = 0.1, reached here because no runs overlap); the 3 % effect
// is about four standard deviations, so the test's minimum, 4 runs a
// side, is the estimate.
func TestStatsTbenchJSON(t *testing.T) {
	code, out, errOut := statsRun("--json", statsTestdata+"tbench-compiled-out.txt", statsTestdata+"tbench-inline.txt")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rec), out)
	assert.Equal(t, 2089.5, rec["median_a"])
	assert.Equal(t, 2025.38, rec["median_b"])
	assert.InDelta(t, 0.1, rec["p"], 1e-12)
	assert.Equal(t, false, rec["significant"])
	assert.InDelta(t, -3.0687, rec["delta"], 1e-4)
	assert.Equal(t, 0.05, rec["alpha"])
	assert.Equal(t, 4.0, rec["min_runs"])
	assert.Equal(t, 4.0, rec["needed_runs"])
	assert.Equal(t, 3.0, rec["n_a"])
	assert.Equal(t, 3.0, rec["n_b"])
	assert.Equal(t, map[string]any{"lo": nil, "hi": nil, "confidence": 1.0}, rec["ci_a"])
	assert.Contains(t, rec["verdict"], "cannot tell")
	assert.Contains(t, rec["verdict"], "about 4 runs a side")
	assert.Contains(t, rec["warnings"], "need >= 6 samples for confidence interval at level 0.95")
}

// TestStatsImmediateValues: Mathieu's 0.5 % difference between plain
// inline and immediate-value tracepoints is under the 21 MB/s noise of
// the inline runs; the estimate asks for 33 runs a side.
func TestStatsImmediateValues(t *testing.T) {
	code, out, errOut := statsRun(statsTestdata+"tbench-inline.txt", statsTestdata+"tbench-inline-immediate.txt")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "delta +0.52%  p=0.1  not significant at alpha 0.05\n")
	assert.Contains(t, out, "runs a side: the test can reach alpha from 4; needed at the observed noise: 33\n")
	assert.Contains(t, out, "about 33 runs a side would be needed")
}

func TestStatsBenchFormat(t *testing.T) {
	code, out, errOut := statsRun(statsTestdata+"bench-old.txt", statsTestdata+"bench-new.txt", "--alpha", "0.01")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "median (ns/op)")
	assert.Contains(t, out, "delta +2.94%  p=0.00794  significant at alpha 0.01\n")
	code, out, errOut = statsRun("--unit", "B/op", "--json", statsTestdata+"bench-old.txt", statsTestdata+"bench-new.txt")
	require.Equal(t, 0, code, errOut)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rec))
	assert.Equal(t, "B/op", rec["unit"])
	assert.Equal(t, 0.0, rec["delta"])
	assert.Equal(t, 0.0, rec["needed_runs"])
	assert.Contains(t, rec["verdict"], "medians are equal")
}

func TestStatsHelp(t *testing.T) {
	code, out, _ := statsRun("--help")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "usage: mcountsim stats")
	assert.Contains(t, out, "Examples:")
	assert.Contains(t, out, "-alpha")
	code, out, _ = statsRun()
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	var o, e bytes.Buffer
	require.Equal(t, 0, run([]string{"--help"}, &o, &e))
	assert.Contains(t, o.String(), "mcountsim stats")
}

func TestStatsErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	good := write("good.txt", "1\n2\n3\n")
	empty := write("empty.txt", "")
	word := write("word.txt", "1\n2\nfast\n")
	one := write("one.txt", "42\n")
	bytesOp := write("bytes.txt", "BenchmarkA 10 64 B/op\nBenchmarkA 10 65 B/op\n")
	nsOp := write("ns.txt", "BenchmarkA 10 5 ns/op\nBenchmarkA 10 6 ns/op\n")
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"empty", []string{good, empty}, "mcountsim stats: " + empty + ": no measurements"},
		{"non-numeric", []string{word, good}, "mcountsim stats: " + word + `:3: "fast" is not a finite number`},
		{"one sample", []string{good, one}, "mcountsim stats: " + one + ": only one measurement: one run has no spread"},
		{"units", []string{nsOp, bytesOp}, "mcountsim stats: " + bytesOp + ": is in B/op but " + nsOp + " is in ns/op"},
		{"plain vs bench", []string{good, nsOp}, "is in ns/op but " + good + " is in plain numbers"},
		{"missing", []string{good, filepath.Join(dir, "nope.txt")}, "no such file"},
		{"directory", []string{good, dir}, "mcountsim stats: " + dir + ": not a regular file (a directory)"},
		{"one file", []string{good}, "want two files, A and B, got 1"},
		{"three files", []string{good, good, good}, "want two files, A and B, got 3"},
		{"alpha", []string{"--alpha", "1.5", good, good}, "--alpha 1.5 is not in (0, 1)"},
		{"flag", []string{"--nope", good, good}, "flag provided but not defined: -nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := statsRun(tc.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tc.msg)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		})
	}
}
