package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withoutTimes drops the timings from a --json document.
func withoutTimes(t *testing.T, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(doc), &m), doc)
	delete(m, "elapsed_ns")
	delete(m, "throughput")
	return m
}

// Issue 8, acceptance 2 through the CLI: --workers 1 and --workers 4 print
// the same JSON, timings aside.
func TestCheckWorkersSameJSON(t *testing.T) {
	for _, s := range []string{"nop-nop", "jmp-over", "two-step-rcu-tasks"} {
		c1, one, _ := mcountsim("check", "--strategy", s, "--json", "--workers", "1")
		c4, four, _ := mcountsim("check", "--strategy", s, "--json", "--workers", "4")
		assert.Equal(t, c1, c4)
		assert.Equal(t, withoutTimes(t, one), withoutTimes(t, four), s)
	}
}

func writeShards(t *testing.T, strategy string, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for i := 0; i < n; i++ {
		_, out, errOut := mcountsim("check", "--strategy", strategy, "--json", "--shard", fmt.Sprintf("%d/%d", i, n))
		require.Empty(t, errOut)
		f := filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		require.NoError(t, os.WriteFile(f, []byte(out), 0o644))
		files = append(files, f)
	}
	return files
}

// Issue 8, acceptance 3 through the CLI: merge combines the shards into the
// unsharded verdict; SAFE needs every shard.
func TestMergeShards(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		files := writeShards(t, "jmp-over", n)
		code, out, errOut := mcountsim(append([]string{"merge"}, files...)...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, fmt.Sprintf("verdict:  SAFE: every schedule within preemption bound 2, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles (exhaustive, %d shard(s))", n))

		_, whole, _ := mcountsim("check", "--strategy", "jmp-over", "--json")
		code, merged, _ := mcountsim(append([]string{"merge", "--json"}, files...)...)
		require.Equal(t, 0, code)
		w, m := withoutTimes(t, whole), withoutTimes(t, merged)
		assert.Equal(t, w["verdict"], m["verdict"])
		assert.Equal(t, w["subtrees"], m["subtrees"], "every frontier subtree in exactly one shard")
		assert.Equal(t, w["runs"], m["runs"], "n=%d: the shards' end states unite to the unsharded runs", n)
		if n == 1 {
			assert.Equal(t, w["states"], m["states"])
		}
		if n > 1 {
			code, out, _ = mcountsim(append([]string{"merge"}, files[1:]...)...)
			assert.Equal(t, 3, code, "a missing shard is INCOMPLETE")
			assert.Contains(t, out, fmt.Sprintf("missing shard(s) 0/%d", n))
		}
	}
	files := writeShards(t, "nop-nop", 3)
	code, out, _ := mcountsim(append([]string{"merge"}, files...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "verdict:  UNSAFE")
	_, whole, _ := mcountsim("check", "--strategy", "nop-nop")
	sched := regexp.MustCompile(`schedule: "([0-9:,]*)"`)
	assert.Equal(t, sched.FindStringSubmatch(whole)[1], sched.FindStringSubmatch(out)[1], "the same canonical counterexample")
}

func TestMergeRejectsBadInput(t *testing.T) {
	a := writeShards(t, "jmp-over", 2)
	b := writeShards(t, "pop-lr", 2)
	c := writeShards(t, "jmp-over", 3)
	for _, args := range [][]string{
		{"merge"},
		{"merge", a[0], a[0]},
		{"merge", a[0], b[1]},
		{"merge", a[0], c[1]},
		{"merge", filepath.Join(t.TempDir(), "nope.json")},
	} {
		code, _, errOut := mcountsim(args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Contains(t, errOut, "mcountsim merge:")
	}
}

// Issue 8, acceptance 4 through the CLI: budgets give exit 3 in every mode.
func TestCheckBudgetsExit3(t *testing.T) {
	for _, args := range [][]string{
		{"--max-states", "20"},
		{"--timeout", "1ms"},
		{"--max-memory", "1B"},
		{"--search", "pct", "--runs", "1000000", "--timeout", "1ms"},
		{"--search", "random", "--runs", "1000000", "--max-states", "5"},
		{"--search", "pct", "--runs", "10"}, // never SAFE
	} {
		code, out, errOut := mcountsim(append([]string{"check", "--strategy", "jmp-over", "--tasks", "3"}, args...)...)
		assert.Equal(t, 3, code, "%v: %s", args, errOut)
		assert.Contains(t, out, "verdict:  INCOMPLETE", "%v", args)
	}
}

func TestCheckPCTPrintsItsBound(t *testing.T) {
	code, out, _ := mcountsim("check", "--strategy", "nop-nop", "--search", "pct", "--runs", "1000", "--seed", "1", "--json")
	require.Equal(t, 1, code)
	var doc struct {
		Verdict string
		PCT     struct{ N, K, Depth int }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "UNSAFE", doc.Verdict)
	assert.Equal(t, 3, doc.PCT.N)
	assert.Equal(t, 3, doc.PCT.Depth)
	assert.Positive(t, doc.PCT.K)

	code, out, _ = mcountsim("check", "--strategy", "jmp-over", "--search", "pct", "--runs", "20")
	require.Equal(t, 3, code)
	assert.Contains(t, out, "no hazard in 20 pct runs")
	assert.Regexp(t, `probability at least 1/\(n·k\^\(d-1\)\) = 1/\(3·\d+\^2\)`, out)
}

func TestCheckSearchFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--search", "bfs"},
		{"--shard", "3/3"},
		{"--shard", "x"},
		{"--max-memory", "12XB"},
		{"--runs", "10"},
		{"--seed", "3"},
		{"--search", "pct", "--shard", "0/2"},
		{"--search", "random", "--depth", "2"},
		{"--workers", "-1"},
		{"--search", "pct", "--runs", "0"},
	} {
		code, _, errOut := mcountsim(append([]string{"check", "--strategy", "jmp-over"}, args...)...)
		assert.Equal(t, 2, code, "%v", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
}

// Progress goes to stderr when asked for, never into the JSON on stdout.
func TestCheckProgress(t *testing.T) {
	code, out, errOut := mcountsim("check", "--strategy", "jmp-over", "--json", "--progress")
	require.Equal(t, 0, code)
	assert.Contains(t, errOut, "states")
	assert.Contains(t, errOut, "bound 2")
	var doc map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	_, _, quiet := mcountsim("check", "--strategy", "jmp-over")
	assert.Empty(t, quiet, "quiet when stderr is not a terminal")
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "1B": 1, "2KiB": 2048, "1.5M": 3 << 19, "1GiB": 1 << 30, "1GB": 1e9, "512mib": 512 << 20} {
		got, err := parseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "G", "1XB", "-1", "0"} {
		_, err := parseSize(bad)
		assert.Error(t, err, bad)
	}
}
