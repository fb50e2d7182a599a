package explore

import (
	"fmt"
	"github.com/mcountsim/mcountsim/kernel"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
)

// Issue 14, point 3: a disabled form that skips part of the traced
// function's own code is a wrong result. On ARM, b .+12 at the site's
// first word jumps over the bl and f0's own mov r4, r0, so f0 returns
// r4+1 (the worker never set r4: 1) where the uninstrumented workload
// returns its argument plus one (the iteration count, 2: 3). The real
// jump (b .+8) stays SAFE.
func TestWrongResultIsAHazard(t *testing.T) {
	jmp, err := os.ReadFile("../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	text := strings.Replace(string(jmp), "form     jump     0: b .+8", "form     jump     0: b .+12", 1)
	require.NotEqual(t, string(jmp), text)
	sc := Scenario{Strategy: parseStrategy(t, text)}
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	require.NotNil(t, res.Hazard)
	h := *res.Hazard
	assert.Equal(t, detect.WrongResult, h.Kind)
	assert.Equal(t, "f0+0x14", h.Where, "the return of f0: pop {r4, pc}")
	assert.Equal(t, 0, h.Task)
	assert.Equal(t, "f0 (task 0's traced call 1 of 2, returning to 0x8010 <worker+0x10>) returned 0x1 (1); expected 0x3 (3), the uninstrumented reference run's value", h.Detail)
	again, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	require.NotNil(t, again.Hazard)
	assert.Equal(t, h, *again.Hazard, "the schedule replays the hazard")
}

// The x86 analogue: with gcc -pg's layout (the site after push %rbp; mov
// %rsp,%rbp), a 5-byte jmp .+8 over the call also skips f0's own mov
// %rdi,%rax, so f0 returns rax+1 (0+1) where the reference returns 3.
func TestWrongResultX86(t *testing.T) {
	text := `strategy skip-mov
arch     x86
state    enabled=enabled disabled=jump
form     enabled 0: call ftrace_caller
form     jump 0: e9 03 00 00 00
boot     jump
enable   stop_machine enabled
disable  stop_machine jump
`
	sc := Scenario{Strategy: parseStrategy(t, text), Prologue: "mcount"}
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	require.NotNil(t, res.Hazard)
	h := *res.Hazard
	assert.Equal(t, detect.WrongResult, h.Kind)
	assert.Equal(t, 0, h.Task)
	assert.Contains(t, h.Detail, "f0 (task 0's traced call 1 of 2, returning to ")
	assert.Contains(t, h.Detail, ") returned 0x1 (1); expected 0x3 (3), the uninstrumented reference run's value")
	again, err := Replay(sc, res.Schedule, Options{})
	require.NoError(t, err)
	require.NotNil(t, again.Hazard)
	assert.Equal(t, h, *again.Hazard)

	// The same jump over the call alone (jmp .+5) is transparent.
	sc.Strategy = parseStrategy(t, strings.Replace(text, "e9 03 00 00 00", "e9 00 00 00 00", 1))
	res, err = Check(sc, Options{})
	require.NoError(t, err)
	assert.Equal(t, Safe, res.Verdict, "%v", res.Hazard)
}

// Data written: use_data(13) adds its argument to a global counter and to
// a table entry. Alone (one task), its results cannot depend on the
// schedule, and a disabled form that makes it use_data(14) (the site's
// push {lr} a nop, its bl an add r0, r0, #1) stores 14 where the reference
// stored 13: the first store differs, before any return. With two tasks
// sharing the counter, each reads what the other writes, so nothing is
// compared (a schedule-dependent result is no evidence against a
// strategy).
func TestWrongResultDataStores(t *testing.T) {
	raw, err := os.ReadFile("../kernel/testdata/obj/arm-fixture.o")
	require.NoError(t, err)
	image := func() (*kernel.Image, error) {
		return kernel.BuildObject(raw, kernel.ObjectConfig{Function: "use_data", Args: []int64{13}})
	}
	text := `strategy plus-one
arch     arm
state    enabled=enabled disabled=plus
form     enabled 0: push {lr} | 4: bl __gnu_mcount_nc
form     plus    0: mov r0, r0 | 4: e2800001
boot     plus
enable   stop_machine enabled
disable  stop_machine plus
`
	sc := Scenario{Strategy: parseStrategy(t, text), Image: image, StackWords: 1024, Tasks: 1}
	c, err := compile(sc)
	require.NoError(t, err)
	require.True(t, c.ref.Compared, c.ref.Why)
	require.Len(t, c.ref.Tasks, 1)
	assert.Len(t, c.ref.Tasks[0].Stores, 4, "two iterations, each storing the counter and a table entry")
	counter, entry := c.ref.Tasks[0].Stores[0].Addr, c.ref.Tasks[0].Stores[1].Addr
	res, err := Check(sc, Options{})
	require.NoError(t, err)
	require.Equal(t, Unsafe, res.Verdict)
	require.NotNil(t, res.Hazard)
	assert.Equal(t, detect.WrongResult, res.Hazard.Kind)
	assert.Equal(t, "use_data+0x2c", res.Hazard.Where, "the str r3, [lr] of the counter")
	assert.Equal(t, fmt.Sprintf("use_data stored 4 byte(s) of 0xe at %#x (task 0's data store 1 inside traced calls); expected use_data to store 4 byte(s) of 0xd at %#x, as the uninstrumented reference run did", counter, counter), res.Hazard.Detail)

	sc.Tasks = 2
	c, err = compile(sc)
	require.NoError(t, err)
	assert.False(t, c.ref.Compared)
	assert.Equal(t, fmt.Sprintf("task 0 reads data at %#x, which task 1 writes: the results depend on the schedule", entry), c.ref.Why, "table[5], the lower address")
}
