package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 12, point 5: merge refuses (exit 2) two shards of one split whose
// scenarios differ in anything: the strategy's content under one name, the
// prologue, the object (its name or, under one name, its content), the
// function, the arguments, the split. Each pair is written by check.
func TestMergeRefusesDifferentScenarios(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	jmp, err := os.ReadFile("../../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path("a.strategy"), jmp, 0o644))
	other := strings.Replace(string(jmp), "disable  stop_machine jump", "disable  write jump", 1)
	require.NotEqual(t, string(jmp), other)
	require.NoError(t, os.WriteFile(path("b.strategy"), []byte(other), 0o644))
	fentry, err := os.ReadFile("../../objfile/testdata/x86-fentry.o")
	require.NoError(t, err)
	pie, err := os.ReadFile("../../objfile/testdata/x86-fentry-pie.o")
	require.NoError(t, err)
	obj := path("obj.o")

	check := func(t *testing.T, name string, args ...string) string {
		t.Helper()
		code, out, errOut := mcountsim(append([]string{"check", "--json"}, args...)...)
		require.Contains(t, []int{0, 1, 3}, code, "%v: %s", args, errOut)
		require.NoError(t, os.WriteFile(path(name), []byte(out), 0o644))
		return path(name)
	}
	x86 := func(extra ...string) []string {
		return append([]string{"--arch", "x86", "--strategy", "text-poke-bp", "--object", obj, "--max-states", "2000"}, extra...)
	}
	for _, c := range []struct {
		name       string
		a, b       []string
		setup1     func()
		wantReason string
	}{
		{name: "strategy content", a: []string{"--strategy-file", path("a.strategy"), "--shard", "0/2"},
			b: []string{"--strategy-file", path("b.strategy"), "--shard", "1/2"}, wantReason: "strategy content (strategy_sha256)"},
		{name: "prologue", a: []string{"--arch", "x86", "--strategy", "text-poke-bp", "--shard", "0/2"},
			b: []string{"--arch", "x86", "--strategy", "text-poke-bp", "--prologue", "mcount", "--shard", "1/2"}, wantReason: "prologue"},
		{name: "function", a: x86("--function", "leaf", "--shard", "0/2"), b: x86("--function", "sibling", "--shard", "1/2"), wantReason: "object"},
		{name: "args", a: x86("--function", "leaf", "--args", "1", "--shard", "0/2"), b: x86("--function", "leaf", "--args", "2", "--shard", "1/2"), wantReason: "object"},
		{name: "object content", a: x86("--function", "leaf", "--shard", "0/2"), b: x86("--function", "leaf", "--shard", "1/2"),
			setup1: func() { require.NoError(t, os.WriteFile(obj, pie, 0o644)) }, wantReason: "object content (object_sha256)"},
		{name: "split", a: []string{"--strategy", "jmp-over", "--shard", "0/2"}, b: []string{"--strategy", "jmp-over", "--shard", "1/3"}, wantReason: "shards of different splits"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(obj, fentry, 0o644))
			a := check(t, "a.json", c.a...)
			if c.setup1 != nil {
				c.setup1()
			}
			b := check(t, "b.json", c.b...)
			code, _, errOut := mcountsim("merge", a, b)
			assert.Equal(t, 2, code, errOut)
			assert.Contains(t, errOut, c.wantReason)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		})
	}
	// The control: the two shards of one scenario merge.
	require.NoError(t, os.WriteFile(obj, fentry, 0o644))
	a := check(t, "a.json", x86("--function", "leaf", "--args", "1", "--shard", "0/2")...)
	b := check(t, "b.json", x86("--function", "leaf", "--args", "1", "--shard", "1/2")...)
	code, _, errOut := mcountsim("merge", a, b)
	assert.NotEqual(t, 2, code, errOut)
}
