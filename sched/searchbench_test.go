package sched_test

import (
	"math/rand"
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// The search benchmarks measure what the exhaustive search pays per edge
// besides execution (issue 19's text-poke-bp --cpus 3 --tasks 3): hashing a
// state, copying a machine, listing the options. They run over states of
// random runs of that scenario (the same runs every time).
//
//	go test -run '^$' -bench 'Hash|Clone|Options' -benchmem ./sched

// searchStates returns n machines in the states random runs of x86
// text-poke-bp on 3 CPUs and 3 tasks reach, at bound 2.
func searchStates(tb testing.TB, n int) []*sched.Machine {
	st, ok := patch.Lookup(kernel.X86, "text-poke-bp")
	if !ok {
		tb.Fatal("no text-poke-bp")
	}
	img, err := kernel.Build(kernel.X86, kernel.Config{Prologue: st.Prologue})
	if err != nil {
		tb.Fatal(err)
	}
	prog, err := patch.Compile(st, img, 1)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	var out []*sched.Machine
	var buf []sched.Action
	for len(out) < n {
		m, err := sched.New(img, sched.Config{CPUs: 3, Tasks: 3}, prog)
		if err != nil {
			tb.Fatal(err)
		}
		for !m.Done() && len(m.Hazards()) == 0 && len(out) < n {
			m.RunLocal(4096)
			buf = m.OptionsWithin(buf, 2)
			if len(buf) == 0 {
				break
			}
			m.Apply(buf[rng.Intn(len(buf))])
			if len(buf) > 1 {
				out = append(out, m.Clone())
			}
		}
	}
	return out
}

// BenchmarkHash hashes states whose workers' digests are all to be
// computed (cold) or all kept from the last hash (warm); the search's
// states, where one step or a few separate two hashes, lie between.
func BenchmarkHash(b *testing.B) {
	ms := searchStates(b, 256)
	for _, cold := range []bool{true, false} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				m := ms[i%len(ms)]
				if cold {
					sched.ForgetDigests(m)
				}
				m.Hash()
			}
		})
	}
}

func BenchmarkClone(b *testing.B) {
	ms := searchStates(b, 256)
	var dst sched.Machine
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst.CopyFrom(ms[i%len(ms)])
	}
}

func BenchmarkOptions(b *testing.B) {
	ms := searchStates(b, 256)
	var buf []sched.Action
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = ms[i%len(ms)].OptionsWithin(buf, 2)
	}
}
