package explore_test

import (
	"fmt"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// Check the race of seed 000: push {lr} and bl __gnu_mcount_nc patched to
// two nops, on a preemptible kernel with 2 CPUs and 2 tasks.
func ExampleCheck() {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	res, err := explore.Check(explore.Scenario{Strategy: nopNop}, explore.Options{Bound: explore.DefaultBound})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, "with", res.Preemptions, "preemption; replay with schedule", res.Schedule != "")
	h := res.Hazard
	fmt.Printf("%v at pc %#x <%s>\n", h.Kind, h.PC, h.Where)
	for _, then := range res.Hazards[1:] {
		fmt.Println("then", then.Kind)
	}
	// The explanation: what the task executed in the site, and who wrote it.
	for _, in := range res.Replay.Explanation[0].Insns {
		fmt.Printf("  +%d %-28s <- %s (%s form)\n", in.Off, in.Disasm, in.Writer.Label, in.Writer.Form)
	}
	// Output:
	// UNSAFE with 1 preemption; replay with schedule true
	// foreign-slot at pc 0x804c <__gnu_mcount_nc+0x14>
	// then bad-return
	// then fault
	//   +0 mov r0, r0                   <- boot (nops form)
	//   +4 bl 0x8038 <__gnu_mcount_nc>  <- enable #1 (enabled form)
}

// Steve's fix is SAFE: every schedule within the bound was explored.
func ExampleCheck_safe() {
	jmpOver, _ := patch.Lookup(kernel.ARM, "jmp-over")
	res, err := explore.Check(explore.Scenario{Strategy: jmpOver}, explore.Options{Bound: 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.Space.Exhaustive)
	fmt.Println(res.Space.Description)
	// Output:
	// SAFE true
	// every schedule within preemption bound 2, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles (exhaustive)
}

// Replay re-runs one schedule with a full trace: here the counterexample
// that Check found. Between the two words of the site, worker0 loses its
// CPU and the stopper writes the enabled form.
func ExampleReplay() {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	sc, opts := explore.Scenario{Strategy: nopNop}, explore.Options{Bound: 2}
	found, err := explore.Check(sc, opts)
	if err != nil {
		panic(err)
	}
	res, err := explore.Replay(sc, found.Schedule, opts)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict, res.Hazard.Kind, res.Hazard.Step == found.Hazard.Step)
	inSite := false
	for _, e := range res.Replay.Trace {
		switch {
		case e.Kind == sched.EvExec && e.Where == "f0+0x4":
			inSite = true
			fmt.Println("worker0 executes", e.Text)
		case e.Kind == sched.EvExec && e.Where == "f0+0x8":
			fmt.Println("worker0 executes", e.Text)
			return
		case !inSite:
		case e.Kind == sched.EvPreempt:
			fmt.Println("worker0 is preempted")
		case e.Kind == sched.EvStore:
			fmt.Println(e.Text)
		case e.Kind == sched.EvSwitch && e.Task == 0:
			fmt.Println("worker0 is switched back in")
		}
	}
	// Output:
	// UNSAFE foreign-slot true
	// worker0 executes mov r0, r0
	// worker0 is preempted
	// enable #1: stopper writes e52de004 (push {lr}) at f0+0x4
	// enable #1: stopper writes eb000002 (bl 0x8038) at f0+0x8
	// worker0 is switched back in
	// worker0 executes bl 0x8038 <__gnu_mcount_nc>
}

// RunBytes lets bytes (from go test -fuzz) choose a schedule: each byte
// picks one option where the machine offers several, and the result is
// that of replaying the schedule the bytes chose.
func ExampleRunBytes() {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	sc, opts := explore.Scenario{Strategy: nopNop}, explore.Options{Bound: 2}
	found := 0
	for i := 0; i < 256; i++ {
		data := []byte{byte(i), byte(i * 7), byte(i * 13), byte(i * 31)}
		res, err := explore.RunBytes(sc, opts, data)
		if err != nil {
			panic(err)
		}
		again, _ := explore.Replay(sc, res.Schedule, opts)
		if res.Hazard != nil && again.Hazard.Kind == res.Hazard.Kind {
			found++
		}
	}
	res, _ := explore.RunBytes(sc, opts, nil)
	fmt.Printf("no bytes: schedule %q, hazard %v\n", res.Schedule, res.Hazard != nil)
	fmt.Println("some of 256 byte strings reach the race:", found > 0)
	// Output:
	// no bytes: schedule "", hazard false
	// some of 256 byte strings reach the race: true
}
