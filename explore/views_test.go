package explore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Pruning by older views (views.go, package doc) changes no verdict: for
// every built-in strategy of the four ISAs and every example file, with 2
// and 3 CPUs, the search with it and without it agree on the verdict, the
// counterexample's preemptions and hazard kinds (minimized, so the same),
// and the search with it claims no more states; with three workers the
// verdict is the same again. An UNSAFE counterexample replays.
func TestOlderViewsAgree(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("every built-in three times at two sizes")
	}
	for _, st := range symmetryStrategies(t) {
		for _, cpus := range []int{2, 3} {
			t.Run(fmt.Sprintf("%v/%s/cpus=%d", st.Arch, st.Name, cpus), func(t *testing.T) {
				sc := Scenario{Strategy: st, CPUs: cpus, Tasks: 2}
				all, err := Check(sc, Options{Workers: 1, noOlderViews: true})
				require.NoError(t, err)
				require.NotEqual(t, Incomplete, all.Verdict, all.Reason)
				for _, workers := range []int{1, 3} {
					got, err := Check(sc, Options{Workers: workers})
					require.NoError(t, err)
					require.Equal(t, all.Verdict, got.Verdict, "%d workers", workers)
					assert.Equal(t, kindOf(all), kindOf(got))
					assert.Equal(t, hazardKinds(all), hazardKinds(got))
					assert.Equal(t, all.Preemptions, got.Preemptions)
					assert.Contains(t, got.Space.Reduction, "older views")
					if got.Verdict == Safe && workers == 1 {
						assert.LessOrEqual(t, got.States, all.States)
						assert.Equal(t, all.States == got.States, got.OlderViews == 0, "states %d, %d without, %d pruned", got.States, all.States, got.OlderViews)
					}
					if got.Verdict == Unsafe {
						again, err := Replay(sc, got.Schedule, Options{})
						require.NoError(t, err)
						assert.Equal(t, kindOf(got), kindOf(again))
					}
				}
			})
		}
	}
}

// On a traced callee called in a loop, the older views prune most of the
// states where a CPU may fetch patched text late (text-poke-bp, whose
// int3 and byte-0 stores leave the other CPUs' views behind until the
// next sync_core; arm64-nop-bl and rv-atomic, whose one store is seen
// whenever the CPU fetches it), and none where the patcher's stores are
// all made under stop_machine (jmp-over: every CPU synchronizes when it
// leaves its stopper). The figures are one worker's, whose counts are
// exact; the UNSAFE foils stop at the same hazard either way.
func TestOlderViewsPrune(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("exhaustive searches of loops")
	}
	for _, c := range []struct {
		file, fn string
		args     []int64
		strategy string
		states   [2]int // without and with the older views
		pruned   int
	}{
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, "text-poke-bp", [2]int{19374, 12141}, 4708},
		{"x86-fentry-loops.o", "l_classify", []int64{7, 12}, "plain-write", [2]int{0, 0}, 0},
		{"arm-loops.o", "l_fib", []int64{6}, "jmp-over", [2]int{2119, 2119}, 0},
		{"arm64-pfe2-loops.o", "l_classify", []int64{7, 12}, "arm64-nop-bl", [2]int{10598, 3285}, 2563},
		{"rv-atomic-loops.o", "l_fib", []int64{6}, "rv-atomic", [2]int{3242, 2779}, 364},
	} {
		t.Run(c.file+"/"+c.strategy, func(t *testing.T) {
			sc := loopsScenario(t, c.file, c.fn, c.args, c.strategy)
			all, err := Check(sc, Options{Workers: 1, noOlderViews: true})
			require.NoError(t, err)
			got, err := Check(sc, Options{Workers: 1})
			require.NoError(t, err)
			require.NotEqual(t, Incomplete, got.Verdict, got.Reason)
			assert.Equal(t, all.Verdict, got.Verdict)
			assert.Equal(t, hazardKinds(all), hazardKinds(got))
			t.Logf("states %d without, %d with, %d pruned", all.States, got.States, got.OlderViews)
			assert.Equal(t, c.states, [2]int{all.States, got.States})
			assert.Equal(t, c.pruned, got.OlderViews)
		})
	}
}

// The index of older views on its own: a state is new, the same as one
// claimed, or pruned by older floors; an entry whose floors a newer
// claim's are all at most leaves its list, and what it pruned the newer
// one prunes; entries past a chunk's end, and one longer than a chunk,
// are kept whole.
func TestViewsIndex(t *testing.T) {
	fl := func(byteFloors ...uint64) []uint64 { // byte, floor, byte, floor...
		var f []uint64
		for i := 0; i < len(byteFloors); i += 2 {
			f = append(f, byteFloors[i]<<16|byteFloors[i+1])
		}
		return f
	}
	v := newViews()
	k := key{7, 3 << 56}
	steps := []struct {
		f    []uint64
		want viewsVerdict
	}{
		{fl(1, 5), viewsNew},
		{fl(1, 5), viewsSame},
		{fl(1, 6), viewsOlder}, // 5 is older than 6
		{nil, viewsOlder},      // no stale byte: every floor the latest
		{fl(2, 1), viewsNew},   // byte 2 stale, byte 1 not: unordered
		{fl(1, 4, 2, 1), viewsNew},
		{fl(1, 5), viewsOlder}, // its entry left for (1,4 2,1); that prunes it
		{fl(2, 1), viewsOlder},
		{fl(1, 3), viewsNew},
	}
	for i, s := range steps {
		assert.Equal(t, s.want, v.older(k, s.f), "step %d", i)
	}
	p := &v.parts[3]
	var heads []int
	for i := p.headOf(t, k); i >= 0; i = p.next(i) {
		heads = append(heads, i)
	}
	assert.Len(t, heads, 2, "(1,3) and (1,4 2,1) are recorded, the others dropped")

	// Enough entries under other keys of the part to fill chunks, and
	// one longer than a chunk.
	long := make([]uint64, chunkWords+10)
	for i := range long {
		long[i] = uint64(i+1)<<16 | 1
	}
	for n := range 3 * chunkWords / 4 {
		kn := key{uint64(100 + n), 3 << 56}
		f := fl(uint64(n%7), 2, 9, uint64(n))
		if n == chunkWords/2 {
			f = long
		}
		require.Equal(t, viewsNew, v.older(kn, f), "key %d", n)
		require.Equal(t, viewsSame, v.older(kn, f), "key %d", n)
	}
	assert.Greater(t, len(p.chunks), 2)
	for _, c := range p.chunks[1:] {
		assert.LessOrEqual(t, len(c), max(chunkWords, len(long)+1))
	}
	assert.Equal(t, viewsSame, v.older(key{uint64(100 + chunkWords/2), 3 << 56}, long))
	assert.Equal(t, viewsOlder, v.older(key{uint64(100 + chunkWords/2), 3 << 56}, long[:5]))
	for i := range steps {
		if steps[i].want == viewsNew {
			assert.NotEqual(t, viewsNew, v.older(k, steps[i].f), "step %d again", i)
		}
	}
	assert.Greater(t, v.bytes(), int64(len(long)*8))
}

// headOf returns the index of k's first entry in p, or -1.
func (p *viewPart) headOf(t *testing.T, k key) int {
	e, _, ok := p.t.find(k)
	require.True(t, ok)
	return int(e.v) - 1
}
