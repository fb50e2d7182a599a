package explore

import (
	"fmt"
	"github.com/mcountsim/mcountsim/patch"
	"os"
	"runtime"
	"testing"
	"time"
)

// BenchmarkCheckSeed times the seed scenarios to their verdicts with the
// default search (all CPUs), and reports the search's speed (states/s,
// steps/s: simulated instructions and scheduler actions per second) and the
// visited set's memory per state (bytes/state).
//
//	go test -run '^$' -bench CheckSeed -benchtime 3x ./explore
func BenchmarkCheckSeed(b *testing.B) {
	for _, c := range []struct {
		name    string
		tasks   int
		bound   int
		workers int
		want    Verdict
	}{
		{"nop-nop", 2, 2, 0, Unsafe},
		{"jmp-over", 2, 2, 0, Safe},
		{"jmp-over", 3, 2, 1, Safe},
		{"jmp-over", 3, 2, 2, Safe},
		{"jmp-over", 3, 3, 0, Safe},
	} {
		w := c.workers
		if w == 0 {
			w = runtime.GOMAXPROCS(0)
		}
		b.Run(fmt.Sprintf("%s/tasks=%d/bound=%d/workers=%d", c.name, c.tasks, c.bound, w), func(b *testing.B) {
			sc := Scenario{Strategy: builtin(b, c.name), Tasks: c.tasks}
			var states, trans, tstates int
			var table int64
			var elapsed time.Duration
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				res, err := Check(sc, Options{Bound: BoundOption(c.bound), Workers: c.workers})
				if err != nil {
					b.Fatal(err)
				}
				if res.Verdict != c.want {
					b.Fatalf("verdict %v, want %v", res.Verdict, c.want)
				}
				states, trans, table, tstates = res.States, res.Transitions, res.TableBytes, res.TableStates
				elapsed += res.Elapsed
			}
			sec := elapsed.Seconds() / float64(b.N)
			b.ReportMetric(float64(states), "states")
			b.ReportMetric(float64(states)/sec, "states/s")
			b.ReportMetric(float64(trans)/sec, "steps/s")
			if tstates > 0 {
				b.ReportMetric(float64(table)/float64(tstates), "bytes/state")
			}
		})
	}
}

// BenchmarkDefaultChecks is the default check of every built-in (the
// defaults of model.md: 2 CPUs, 2 tasks, bound 2), reporting its states:
// with the per-CPU fetch views (model.md §1a) the ARM built-ins, which
// patch under stop_machine, have the states they had before them, and
// text-poke-bp has 128,601 instead of 78,742 (with the task symmetry of
// the visited set: 55,272; BenchmarkScale has the larger scenarios), and
// its steps. MCOUNTSIM_POR=1 turns the sleep sets on (they change the
// steps, not the states).
//
//	go test -run '^$' -bench DefaultChecks -benchtime 1x ./explore
func BenchmarkDefaultChecks(b *testing.B) {
	por := os.Getenv("MCOUNTSIM_POR") != ""
	for _, st := range patch.Builtins() {
		b.Run(st.Arch.String()+"/"+st.Name, func(b *testing.B) {
			var states, steps int
			for i := 0; i < b.N; i++ {
				res, err := Check(Scenario{Strategy: st}, Options{Workers: 1, POR: por})
				if err != nil {
					b.Fatal(err)
				}
				states, steps = res.States, res.Transitions
			}
			b.ReportMetric(float64(states), "states")
			b.ReportMetric(float64(steps), "steps")
		})
	}
}

// BenchmarkWorkers is issue 19's parallel target: the exhaustive check of
// jmp-over with 4 and 5 tasks (bound 2) with 1 and 2 workers; the ratio of
// the two ns/op is the speedup (meaningful only on a machine with 2 idle
// cores: check the load).
//
//	go test -run '^$' -bench Workers -benchtime 20x ./explore
func BenchmarkWorkers(b *testing.B) {
	for _, tasks := range []int{4, 5} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("tasks=%d/workers=%d", tasks, w), func(b *testing.B) {
				sc := Scenario{Strategy: builtin(b, "jmp-over"), Tasks: tasks}
				var states int
				for i := 0; i < b.N; i++ {
					res, err := Check(sc, Options{Workers: w})
					if err != nil {
						b.Fatal(err)
					}
					if res.Verdict != Safe {
						b.Fatalf("%v: %s", res.Verdict, res.Reason)
					}
					states = res.States
				}
				b.ReportMetric(float64(states), "states")
			})
		}
	}
}
