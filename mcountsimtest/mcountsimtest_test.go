package mcountsimtest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// fakeT is a testing.TB that records what a helper does to it. FailNow
// ends the calling goroutine, as testing.T's does, so helpers run in
// their own goroutine (see run).
type fakeT struct {
	testing.TB // nil: a method the helpers should not call panics
	name       string
	dir        string
	logs       []string
	errs       []string
	failed     bool
	stopped    bool
}

func (f *fakeT) Helper()         {}
func (f *fakeT) Name() string    { return f.name }
func (f *fakeT) TempDir() string { return f.dir }
func (f *fakeT) Failed() bool    { return f.failed }
func (f *fakeT) Log(args ...any) { f.logs = append(f.logs, fmt.Sprintln(args...)) }
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Errorf(format string, args ...any) {
	f.failed = true
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Error(args ...any)                 { f.failed = true; f.errs = append(f.errs, fmt.Sprintln(args...)) }
func (f *fakeT) Fail()                             { f.failed = true }
func (f *fakeT) FailNow()                          { f.failed, f.stopped = true, true; runtime.Goexit() }
func (f *fakeT) Fatalf(format string, args ...any) { f.Errorf(format, args...); f.FailNow() }
func (f *fakeT) Fatal(args ...any)                 { f.Error(args...); f.FailNow() }

func (f *fakeT) output() string {
	return strings.Join(f.logs, "\n") + "\n" + strings.Join(f.errs, "\n")
}

// run calls helper with a fake T in a goroutine of its own and returns the
// fake once the helper returned or stopped the "test".
func run(t *testing.T, helper func(tb testing.TB)) *fakeT {
	f := &fakeT{name: "TestUser/" + t.Name(), dir: t.TempDir()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		helper(f)
	}()
	<-done
	return f
}

func arm(t testing.TB, name string) explore.Scenario {
	s, ok := patch.Lookup(kernel.ARM, name)
	require.True(t, ok, "no built-in %s", name)
	return explore.Scenario{Strategy: s}
}

var bound2 = explore.Options{Bound: 2}

// check is what the helpers should report on.
func check(t *testing.T, name string) *explore.Result {
	res, err := explore.Check(arm(t, name), bound2)
	require.NoError(t, err)
	return res
}

func TestRequireSafePasses(t *testing.T) {
	var res *explore.Result
	f := run(t, func(tb testing.TB) { res = RequireSafe(tb, arm(t, "jmp-over"), bound2) })
	assert.False(t, f.failed, f.output())
	assert.Empty(t, f.logs)
	require.NotNil(t, res)
	assert.Equal(t, explore.Safe, res.Verdict)
	assert.True(t, res.Space.Exhaustive)
}

func TestRequireSafeFailsOnHazard(t *testing.T) {
	var returned bool
	f := run(t, func(tb testing.TB) {
		RequireSafe(tb, arm(t, "nop-nop"), bound2)
		returned = true
	})
	require.True(t, f.failed)
	assert.True(t, f.stopped, "the helper stops the test")
	assert.False(t, returned)
	out := f.output()
	want := check(t, "nop-nop")
	h := want.Hazard
	// The verdict, the replay string, the text trace and the HTML path.
	assert.Contains(t, out, "want SAFE, got UNSAFE")
	assert.Contains(t, out, "verdict:  UNSAFE: a hazard within preemption bound 2")
	assert.Contains(t, out, fmt.Sprintf("replay:   explore.Replay(sc, %q, opts)", want.Schedule))
	assert.Contains(t, out, fmt.Sprintf("mcountsim replay --arch arm --strategy nop-nop --schedule %q", want.Schedule))
	assert.Contains(t, out, fmt.Sprintf("hazard:   foreign-slot at step %d on cpu%d, worker0, pc 0x804c <__gnu_mcount_nc+0x14>", h.Step, h.CPU))
	assert.Contains(t, out, fmt.Sprintf("trace (%d steps, 1 preemptions):", want.Steps))
	assert.Contains(t, out, "~~ PREEMPTED")
	assert.Contains(t, out, "enable #1: stopper writes eb000002 (bl 0x8038) at f0+0x8")
	path := filepath.Join(f.dir, "TestUser_TestRequireSafeFailsOnHazard-nop-nop.html")
	assert.Contains(t, out, "HTML timeline: "+path+" (removed when the test ends")
	page, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(page), "HAZARD foreign-slot")
	require.Len(t, f.errs, 1, "one testify failure")
	assert.Contains(t, f.errs[0], fmt.Sprintf("schedule %q", want.Schedule))
}

func TestRequireSafeFailsIncomplete(t *testing.T) {
	f := run(t, func(tb testing.TB) { RequireSafe(tb, arm(t, "jmp-over"), explore.Options{Bound: 2, MaxStates: 10}) })
	require.True(t, f.failed)
	out := f.output()
	assert.Contains(t, out, "want SAFE, got INCOMPLETE")
	assert.Contains(t, out, "state budget of 10 used up")
	assert.NotContains(t, out, "replay:   explore.Replay", "no counterexample to replay")
	assert.Contains(t, out, "HTML timeline: ")
}

func TestRequireSafeHTMLDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pages")
	t.Setenv(HTMLDirEnv, dir)
	f := run(t, func(tb testing.TB) { RequireSafe(tb, arm(t, "nop-nop"), bound2) })
	require.True(t, f.failed)
	path := filepath.Join(dir, "TestUser_TestRequireSafeHTMLDir-nop-nop.html")
	assert.Contains(t, f.output(), "HTML timeline: "+path+"\n")
	assert.FileExists(t, path)
}

func TestRequireHazardPasses(t *testing.T) {
	for _, kind := range []detect.Kind{detect.ForeignSlot, detect.BadReturn, detect.Fault} {
		var res *explore.Result
		f := run(t, func(tb testing.TB) { res = RequireHazard(tb, arm(t, "nop-nop"), bound2, kind) })
		assert.False(t, f.failed, "%v: %s", kind, f.output())
		require.NotNil(t, res)
		assert.Equal(t, detect.ForeignSlot, res.Hazard.Kind, "the first hazard")
		assert.Equal(t, check(t, "nop-nop").Schedule, res.Schedule)
	}
}

func TestRequireHazardFailsWhenSafe(t *testing.T) {
	f := run(t, func(tb testing.TB) { RequireHazard(tb, arm(t, "jmp-over"), bound2, detect.ForeignSlot) })
	require.True(t, f.failed)
	assert.True(t, f.stopped)
	out := f.output()
	assert.Contains(t, out, "want UNSAFE with a foreign-slot hazard, got SAFE")
	assert.Contains(t, out, "verdict:  SAFE: every schedule within preemption bound 2")
	assert.Contains(t, out, "HTML timeline: ")
	page, err := os.ReadFile(filepath.Join(f.dir, "TestUser_TestRequireHazardFailsWhenSafe-jmp-over.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "one representative schedule")
}

func TestRequireHazardFailsOnOtherKind(t *testing.T) {
	f := run(t, func(tb testing.TB) { RequireHazard(tb, arm(t, "nop-nop"), bound2, detect.TornFetch) })
	require.True(t, f.failed)
	out := f.output()
	want := check(t, "nop-nop")
	assert.Contains(t, out, "want a torn-fetch hazard, the counterexample has foreign-slot, then bad-return, then fault")
	assert.Contains(t, out, fmt.Sprintf("--schedule %q", want.Schedule))
	assert.Contains(t, out, fmt.Sprintf("trace (%d steps, 1 preemptions):", want.Steps))
}

func TestRequireHazardBadScenario(t *testing.T) {
	f := run(t, func(tb testing.TB) { RequireHazard(tb, explore.Scenario{}, bound2, detect.Fault) })
	require.True(t, f.failed)
	assert.Contains(t, f.output(), "scenario has no strategy")
}

// crasher finds bytes that drive nop-nop into its hazard.
func crasher(t *testing.T) []byte {
	sc := arm(t, "nop-nop")
	for i := 0; i < 1000; i++ {
		data := []byte{byte(i), byte(i >> 3), byte(i * 7), byte(i * 13), 0, 1, 2, 3}
		res, err := explore.RunBytes(sc, bound2, data)
		require.NoError(t, err)
		if res.Hazard != nil {
			return data
		}
	}
	t.Fatal("no byte string of the 1000 tried reaches the nop-nop hazard")
	return nil
}

func TestRequireSafeRun(t *testing.T) {
	for _, data := range [][]byte{nil, {0}, {1, 1, 1, 1}, {255, 3, 7, 0, 9, 200, 1}} {
		f := run(t, func(tb testing.TB) { RequireSafeRun(tb, arm(t, "jmp-over"), bound2, data) })
		assert.False(t, f.failed, "%v: %s", data, f.output())
	}
	data := crasher(t)
	f := run(t, func(tb testing.TB) { RequireSafeRun(tb, arm(t, "nop-nop"), bound2, data) })
	require.True(t, f.failed)
	out := f.output()
	res, err := explore.RunBytes(arm(t, "nop-nop"), bound2, data)
	require.NoError(t, err)
	assert.Contains(t, out, fmt.Sprintf("the schedule %q reaches a hazard", res.Schedule))
	assert.Contains(t, out, fmt.Sprintf("explore.Replay(sc, %q, opts)", res.Schedule))
	assert.Contains(t, out, "HAZARD")
	assert.Contains(t, out, "HTML timeline: ")
}

// FuzzSchedules on a safe strategy: the seeds (and, under -fuzz, whatever
// the fuzzer makes) never reach a hazard.
func FuzzSchedulesPopLR(f *testing.F) {
	FuzzSchedules(f, arm(f, "pop-lr"), bound2)
}

// Issue 14, point 1: the zero Options is the documented default (bound 2),
// so RequireSafe with Options{} fails on the seed race; asking for bound 0
// (NoPreemptions) is what makes it pass.
func TestRequireSafeZeroOptionsIsDefaultBound(t *testing.T) {
	f := run(t, func(tb testing.TB) { RequireSafe(tb, arm(t, "nop-nop"), explore.Options{}) })
	require.True(t, f.failed, "Options{} must search bound %d and find the race", explore.DefaultBound)
	assert.True(t, f.stopped)
	assert.Contains(t, f.output(), "verdict:  UNSAFE: a hazard within preemption bound 2")

	f = run(t, func(tb testing.TB) {
		res := RequireSafe(tb, arm(t, "nop-nop"), explore.Options{Bound: explore.NoPreemptions})
		assert.Equal(tb, 0, res.Space.Bound)
	})
	assert.False(t, f.failed, f.output())
}
