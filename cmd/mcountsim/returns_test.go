package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 21, "return values invisible": check --object prints each traced
// call's return value beside the uninstrumented reference run's, in text
// and JSON. lcm(21, 6) = 42 (realexpected.txt, checked under qemu-arm),
// through gcd_mod(21, 6) = 3 and the libgcc division, in both tasks and
// both iterations.
func TestCheckObjectReturns(t *testing.T) {
	obj := filepath.Join(objFixtures, "arm-real.o")
	args := []string{"check", "--object", obj, "--function", "lcm", "--args", "21,6", "--strategy", "jmp-over"}
	code, out, stderr := mcountsim(args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "\nreturns:  each traced call's return value, and the uninstrumented reference run's:\n"+
		"          values of the default run, no preemption; every explored run returned the reference's values\n")
	for _, w := range []string{"worker0", "worker1"} {
		for i, call := range []string{"gcd_mod, returning to lcm+0x18: 3 (0x3); reference 3 (0x3)", "lcm, returning to worker+0x14: 42 (0x2a); reference 42 (0x2a)"} {
			assert.Contains(t, out, "  "+w+" call "+string(rune('1'+i))+": "+call+"\n")
			assert.Contains(t, out, "  "+w+" call "+string(rune('3'+i))+": "+call+"\n")
		}
	}

	code, out, stderr = mcountsim(append(args, "--json")...)
	require.Equal(t, 0, code, stderr)
	type ret struct {
		Task      int     `json:"task"`
		Call      int     `json:"call"`
		Function  string  `json:"function"`
		Caller    string  `json:"caller"`
		Value     *uint64 `json:"value"`
		Reference *uint64 `json:"reference"`
	}
	var doc struct {
		Returns []ret  `json:"returns"`
		Note    string `json:"returns_note"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	v := func(x uint64) *uint64 { return &x }
	var want []ret
	for task := 0; task < 2; task++ {
		for it := 0; it < 2; it++ {
			want = append(want, ret{task, 2*it + 1, "gcd_mod", "lcm+0x18", v(3), v(3)}, ret{task, 2*it + 2, "lcm", "worker+0x14", v(42), v(42)})
		}
	}
	assert.Equal(t, want, doc.Returns)
	assert.Equal(t, "values of the default run, no preemption; every explored run returned the reference's values", doc.Note)
}

// A disabled form that skips lcm's first instruction after the site (b
// .+12 over the push {lr}: mov r4, r1 never runs) makes lcm(21, 6) return
// 0: UNSAFE wrong-result, and the returns show the counterexample's values
// beside the reference's.
func TestCheckObjectWrongResult(t *testing.T) {
	jmp, err := os.ReadFile("../../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	text := strings.Replace(string(jmp), "form     jump     0: b .+8", "form     jump     0: b .+12", 1)
	file := filepath.Join(t.TempDir(), "skip.strategy")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	args := []string{"check", "--strategy-file", file, "--object", filepath.Join(objFixtures, "arm-real.o"), "--function", "lcm", "--args", "21,6", "--bound", "0"}
	code, out, stderr := mcountsim(args...)
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "hazard:   wrong-result at step 123 on cpu0, worker0, pc 0x8094 <lcm+0x2c>\n"+
		"          lcm (task 0's traced call 2 of 4, returning to 0x8014 <worker+0x14>) returned 0x0 (0); expected 0x2a (42), the uninstrumented reference run's value\n")
	assert.Contains(t, out, "          values of the run shown, replayed until it ends or 400 steps past its first hazard\n")
	assert.Contains(t, out, "  worker0 call 1: gcd_mod, returning to lcm+0x18: 3 (0x3); reference 3 (0x3)\n")
	assert.Contains(t, out, "  worker0 call 2: lcm, returning to worker+0x14: 0 (0x0); reference 42 (0x2a)  DIFFERS\n")

	code, out, stderr = mcountsim(append(args, "--json")...)
	require.Equal(t, 1, code, stderr)
	var doc struct {
		Hazard struct {
			Kind string `json:"kind"`
		} `json:"hazard"`
		Returns []struct {
			Task      int     `json:"task"`
			Call      int     `json:"call"`
			Value     *uint64 `json:"value"`
			Reference *uint64 `json:"reference"`
		} `json:"returns"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "wrong-result", doc.Hazard.Kind)
	require.GreaterOrEqual(t, len(doc.Returns), 2)
	r := doc.Returns[1]
	assert.Equal(t, []any{0, 2, uint64(0), uint64(42)}, []any{r.Task, r.Call, *r.Value, *r.Reference})
}

// Issue 21, "say so in the result": a callee of the object that has no
// implementation (args8.c's ext_fn) is named as a stub returning 0, in
// text and JSON; one that has (the riscv64 libgcc helpers of bits.c) is
// not.
func TestCheckObjectStubs(t *testing.T) {
	args := []string{"check", "--object", filepath.Join(objFixtures, "rv-pfe8-rvc-args8.o"), "--function", "leaf", "--args", "3,4",
		"--strategy", "rv-pfe8", "--cpus", "1", "--tasks", "1", "--preempt", "none"}
	code, out, stderr := mcountsim(args...)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "\nstubs:    `ext_fn` is a stub returning 0 (an undefined callee: the values computed from it are not the real function's)\n")
	code, out, stderr = mcountsim(append(args, "--json")...)
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Stubs []string `json:"stubs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, []string{"ext_fn"}, doc.Stubs)

	code, out, stderr = mcountsim("check", "--object", filepath.Join(objFixtures, "rv-atomic-bits.o"), "--function", "b_popcount", "--args", "12345",
		"--strategy", "rv-atomic", "--cpus", "1", "--tasks", "1", "--preempt", "none")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, out, "stub")
}
