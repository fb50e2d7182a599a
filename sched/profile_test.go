package sched_test

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/sched"
)

// TestProfile is a state-space profiler, not a test: with
// MCOUNTSIM_PROFILE="object=F function=N args=1,2 strategy=S bound=B
// max=N" (or arch=A strategy=S for a built-in; keepfreed=1 keeps what
// freed frames leave: sched/freed.go) it searches bound B alone
// as the exhaustive search does (thread-local runs, a visited set of
// (hash, preemptions)) and prints where the branching states are: per
// CPU the task, the symbol of its pc and the class of the instruction.
func TestProfile(t *testing.T) {
	spec := os.Getenv("MCOUNTSIM_PROFILE")
	if spec == "" {
		t.Skip("MCOUNTSIM_PROFILE not set")
	}
	kv := map[string]string{}
	for _, f := range strings.Fields(spec) {
		k, v, _ := strings.Cut(f, "=")
		kv[k] = v
	}
	bound, _ := strconv.Atoi(kv["bound"])
	max, _ := strconv.Atoi(kv["max"])
	if max == 0 {
		max = 200000
	}
	var sc explore.Scenario
	if obj := kv["object"]; obj != "" {
		var args []int64
		for _, a := range strings.Split(kv["args"], ",") {
			if a == "" {
				continue
			}
			v, err := strconv.ParseInt(a, 0, 64)
			require.NoError(t, err)
			args = append(args, v)
		}
		o, err := kernel.LoadObject(obj, kernel.ObjectConfig{Function: kv["function"], Args: args})
		require.NoError(t, err)
		st, ok := patch.Lookup(o.Image.Arch, kv["strategy"])
		require.True(t, ok)
		sc = explore.Scenario{Arch: o.Image.Arch, Strategy: st, StackWords: 1024, KeepFreed: kv["keepfreed"] == "1", Image: func() (*kernel.Image, error) { return o.Image, nil }}
	} else {
		arch, err := kernel.ParseArch(kv["arch"])
		require.NoError(t, err)
		st, ok := patch.Lookup(arch, kv["strategy"])
		require.True(t, ok)
		sc = explore.Scenario{Arch: arch, Strategy: st}
	}
	root, err := sc.Machine(false)
	require.NoError(t, err)
	seen := map[[3]uint64]bool{}
	byKey := map[string]int{}
	byPC := map[string]int{}
	states, steps := 0, 0
	ends := map[string]bool{}
	var dfs func(m *sched.Machine)
	dfs = func(m *sched.Machine) {
		var opts []sched.Action
		for {
			if states >= max {
				return
			}
			if k := m.RunLocal(4096); k > 0 {
				steps += k
				if len(m.Hazards()) > 0 {
					return
				}
				continue
			}
			opts = m.OptionsWithin(nil, bound)
			if len(opts) == 0 {
				if m.Done() && len(ends) < 4 {
					d := sched.ProfileDump(m)
					if !ends[d] {
						ends[d] = true
					}
				}
				return
			}
			if len(opts) > 1 {
				break
			}
			m.Apply(opts[0])
			steps++
			if len(m.Hazards()) > 0 {
				return
			}
		}
		h := m.Hash()
		k := [3]uint64{h[0], h[1], uint64(m.Preemptions())}
		if seen[k] {
			return
		}
		seen[k] = true
		states++
		var kinds []string
		for _, o := range opts {
			kinds = append(kinds, fmt.Sprintf("%d%s", o.CPU, o.Kind.String()[:2]))
		}
		byKey[sched.ProfileKey(m)+" opts "+strings.Join(kinds, ",")]++
		for c := 0; c < m.Config().CPUs; c++ {
			if cur := m.CPU(c).Cur; cur >= 0 && cur < int8(m.Patcher()) {
				pc := m.PC(int(cur))
				byPC[fmt.Sprintf("%#x %s: %s", pc, m.Image().Name(pc), sched.ProfileInst(m, int(cur)))]++
			}
		}
		for _, o := range opts {
			c := m.Clone()
			c.Apply(o)
			steps++
			if len(c.Hazards()) > 0 {
				continue
			}
			dfs(c)
		}
	}
	dfs(root)
	t.Logf("bound %d: %d branching states, %d steps", bound, states, steps)
	top := func(name string, mp map[string]int, n int) {
		type kc struct {
			k string
			c int
		}
		var l []kc
		for k, c := range mp {
			l = append(l, kc{k, c})
		}
		sort.Slice(l, func(i, j int) bool { return l[i].c > l[j].c || l[i].c == l[j].c && l[i].k < l[j].k })
		var b strings.Builder
		for i := 0; i < len(l) && i < n; i++ {
			fmt.Fprintf(&b, "%8d  %s\n", l[i].c, l[i].k)
		}
		t.Logf("%s (%d distinct):\n%s", name, len(l), b.String())
	}
	for d := range ends {
		t.Logf("end state:\n%s", d)
	}
	top("states by key", byKey, 40)
	top("running workers' pcs at branching states", byPC, 40)
}
