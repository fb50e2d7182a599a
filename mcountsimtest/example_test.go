package mcountsimtest_test

import (
	"fmt"
	"testing"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/mcountsimtest"
	"github.com/mcountsim/mcountsim/patch"
)

// exampleT stands in for the *testing.T of a test function, so that the
// examples run: in a real test, pass t.
type exampleT struct{ testing.TB }

func (exampleT) Helper()                           {}
func (exampleT) Name() string                      { return "TestExample" }
func (exampleT) Log(args ...any)                   { fmt.Println(args...) }
func (exampleT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (exampleT) FailNow()                          { panic("test failed") }

var t = exampleT{}

func strategy(name string) *patch.Strategy {
	s, ok := patch.Lookup(kernel.ARM, name)
	if !ok {
		panic("no built-in " + name)
	}
	return s
}

// A test that proves Steve's fix safe within preemption bound 2:
//
//	func TestJmpOverIsSafe(t *testing.T) {
//		mcountsimtest.RequireSafe(t, explore.Scenario{Strategy: jmpOver}, explore.Options{Bound: 2})
//	}
func ExampleRequireSafe() {
	res := mcountsimtest.RequireSafe(t, explore.Scenario{Strategy: strategy("jmp-over")}, explore.Options{Bound: 2})
	fmt.Println(res.Verdict, res.Space.Exhaustive)
	// Output:
	// SAFE true
}

// A test that pins down the race of seed 000: nop-nop must stay UNSAFE,
// with the trampoline reloading lr from a slot the prologue wrote from r4.
func ExampleRequireHazard() {
	res := mcountsimtest.RequireHazard(t, explore.Scenario{Strategy: strategy("nop-nop")}, explore.Options{Bound: 2}, detect.ForeignSlot)
	fmt.Println(res.Hazard.Kind, "at", res.Hazard.Where, "after", res.Preemptions, "preemption")
	// Output:
	// foreign-slot at __gnu_mcount_nc+0x14 after 1 preemption
}

// RequireSafeRun is the body of FuzzSchedules: one run whose choices come
// from bytes. A fuzz test over Philippe's proposal with synchronize_rcu_tasks:
//
//	func FuzzTwoStepRCUTasks(f *testing.F) {
//		mcountsimtest.FuzzSchedules(f, explore.Scenario{Strategy: twoStep, Tasks: 3}, explore.Options{Bound: 2})
//	}
func ExampleRequireSafeRun() {
	sc := explore.Scenario{Strategy: strategy("two-step-rcu-tasks"), Tasks: 3}
	for _, data := range [][]byte{nil, {3, 1, 4, 1, 5, 9, 2, 6}, []byte("mcountsim")} {
		res := mcountsimtest.RequireSafeRun(t, sc, explore.Options{Bound: 2}, data)
		fmt.Printf("%q: hazard %v\n", data, res.Hazard != nil)
	}
	// Output:
	// "": hazard false
	// "\x03\x01\x04\x01\x05\t\x02\x06": hazard false
	// "mcountsim": hazard false
}
