// Command seedrace retells the LKML thread "ftrace performance impact with
// different configuration" (December 2011) with mcountsim's API.
//
// Rabin Vincent suggested turning ARM's "push {lr}; bl mcount" into two
// nops. Steven Rostedt answered that on a preemptible kernel a task can be
// preempted after the first nop; when tracing is enabled meanwhile, the task
// resumes at the re-enabled call, and mcount pops an lr that was never
// pushed. He proposed "b 1f" over the call instead. This program checks
// both, and prints how the first one breaks.
//
//	go run ./examples/seedrace
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

func main() {
	log.SetFlags(0)
	check := func(name string) *explore.Result {
		st, ok := patch.Lookup(kernel.ARM, name)
		if !ok {
			log.Fatalf("no strategy %s", name)
		}
		// The seed's machine: 2 CPUs, 2 tasks, full preemption, bound 2.
		res, err := explore.Check(explore.Scenario{Strategy: st}, explore.Options{Bound: explore.DefaultBound})
		if err != nil {
			log.Fatal(err)
		}
		return res
	}

	fmt.Println("Rabin: patch both \"push {lr}\" and \"bl __gnu_mcount_nc\" to nops.")
	res := check("nop-nop")
	fmt.Printf("mcountsim: %s with %d preemption(s).\n", res.Verdict, res.Preemptions)
	for _, pass := range res.Replay.Explanation {
		fmt.Printf("  worker%d in %s:\n", pass.Task, pass.Function)
		for i, in := range pass.Insns {
			fmt.Printf("    step %2d  executes %-28s (%s)\n", in.Step, in.Disasm, in.Writer)
			if i == 0 {
				for _, d := range pass.During {
					fmt.Printf("    step %2d  %s\n", d.Step, d.Text)
				}
			}
		}
	}
	for _, h := range res.Hazards {
		fmt.Printf("  %s in %s: %s\n", h.Kind, h.Where, h.Detail)
	}
	fmt.Printf("  replay: mcountsim replay --arch arm --strategy nop-nop --schedule %s\n\n", res.Schedule)

	fmt.Println("Steve: \"the best thing you can do is convert to: jmp 1f; call mcount; 1:\"")
	res = check("jmp-over")
	fmt.Printf("mcountsim: %s: %s\n", res.Verdict, res.Space.Description)
	if res.Verdict != explore.Safe {
		os.Exit(1)
	}
}
