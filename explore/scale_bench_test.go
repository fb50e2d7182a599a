package explore

import (
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
)

// BenchmarkScale is issue 19's scale targets (with the fetch views of
// model.md §1a, at bound 2), with the task symmetry of the visited set and,
// where the search without it finishes in minutes, without (sub-benchmark
// nosym), reporting the states of each:
//
//	go test -run '^$' -bench Scale -benchtime 1x ./explore
//	go test -run '^$' -bench 'Scale/.*/sym$' -benchtime 1x ./explore
func BenchmarkScale(b *testing.B) {
	for _, c := range []struct {
		name        string
		arch        kernel.Arch
		strategy    string
		cpus, tasks int
		exact       bool // also without the symmetry
	}{
		{"jmp-over/tasks=3", kernel.ARM, "jmp-over", 2, 3, true},
		{"jmp-over/tasks=4", kernel.ARM, "jmp-over", 2, 4, true},
		{"jmp-over/tasks=5", kernel.ARM, "jmp-over", 2, 5, false},
		{"text-poke-bp/cpus=3,tasks=3", kernel.X86, "text-poke-bp", 3, 3, true},
		{"arm64-nop-bl/cpus=3,tasks=3", kernel.ARM64, "arm64-nop-bl", 3, 3, false},
		{"arm64-call-ops/cpus=3,tasks=3", kernel.ARM64, "arm64-call-ops", 3, 3, false},
		{"arm64-mcount/cpus=3,tasks=3", kernel.ARM64, "arm64-mcount", 3, 3, false},
	} {
		for _, nosym := range []bool{false, true} {
			if nosym && !c.exact {
				continue
			}
			name := c.name + "/sym"
			if nosym {
				name = c.name + "/nosym"
			}
			b.Run(name, func(b *testing.B) {
				var states int
				for i := 0; i < b.N; i++ {
					res, err := Check(Scenario{Strategy: lookup(b, c.arch, c.strategy), CPUs: c.cpus, Tasks: c.tasks}, Options{NoSymmetry: nosym})
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
