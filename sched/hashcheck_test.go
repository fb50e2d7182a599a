package sched_test

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	. "github.com/mcountsim/mcountsim/sched"
)

// The state hash decides the future: two states reached with the same key
// (hash and preemptions used) must offer options whose successors have the
// same keys, hazard counts and ends, as a set. A field the machine reads
// but Hash leaves out, or one Hash writes by CPU or task number where the
// symmetric hash renames them, shows up as two arrivals at one key with
// different successors (found so: a runnable task's Preempted flag, which
// decides the view synchronization when it resumes, and the sync_core
// wait's CPU mask, hashed by number beside the renamed CPU records).
// Every state of each small scenario is expanded, and every further
// arrival at a key is expanded one level and compared.
func TestHashDecidesTheFuture(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds per scenario")
	}
	for _, c := range []struct {
		arch       kernel.Arch
		strategy   string
		cpus, iter int
	}{
		{kernel.X86, "text-poke-bp", 3, 1},
		{kernel.X86, "stop-machine", 3, 1},
		{kernel.ARM, "jmp-over", 3, 1},
		{kernel.ARM, "two-step-rcu-tasks", 2, 1},
		{kernel.ARM64, "arm64-call-ops", 2, 1},
		{kernel.RISCV64, "rv-atomic", 2, 1},
		// Not the tracer kernel: its tasks load thread_info.cpu into
		// registers, hashed as they are, so states that differ by a
		// renaming of the CPUs may stay apart (sound, not canonical).
	} {
		t.Run(fmt.Sprintf("%s/%s/cpus=%d", c.arch, c.strategy, c.cpus), func(t *testing.T) {
			st, ok := patch.Lookup(c.arch, c.strategy)
			require.True(t, ok)
			kc := kernel.Config{Iterations: c.iter, Prologue: st.Prologue}
			cfg := Config{CPUs: c.cpus, Tasks: 2}
			img, err := kernel.Build(c.arch, kc)
			require.NoError(t, err)
			prog, err := patch.Compile(st, img, 1)
			require.NoError(t, err)
			m0, err := New(img, cfg, prog)
			require.NoError(t, err)
			keys, bad := checkHashFuture(t, m0, 2, 60000)
			require.Zero(t, bad, "arrivals at one key with different successors")
			require.Greater(t, keys, 100)
		})
	}
	// Objects, whose reference run turns on the reductions of quiet.go
	// (the views of sites lcm never reaches left out of the hash), with
	// arm64-nop-bl's synced writes left out (fetch.go's initViewKey); and
	// l_shared, whose workers store to a global (its 0x10 after two zero
	// bytes spelled a stack address, which made the state after its
	// last store odd: the symmetric parent's successors had keys by task
	// index, and what exited workers left).
	for _, c := range []struct {
		file, strategy, fn string
		args               []int64
		iter, bound        int
	}{
		{"arm64-pfe2-real.o", "arm64-nop-bl", "lcm", []int64{21, 6}, 1, 1},
		{"rv-atomic-real.o", "rv-atomic", "lcm", []int64{21, 6}, 1, 1},
		{"rv-atomic-loops.o", "rv-atomic", "l_shared", []int64{2}, 2, 2},
	} {
		t.Run(c.file+"/"+c.strategy, func(t *testing.T) {
			o, err := kernel.LoadObject(filepath.Join("..", "kernel", "testdata", "obj", c.file), kernel.ObjectConfig{Function: c.fn, Args: c.args, Iterations: c.iter})
			require.NoError(t, err)
			st, ok := patch.Lookup(o.Image.Arch, c.strategy)
			require.True(t, ok)
			sc := explore.Scenario{Strategy: st, CPUs: 2, Tasks: 2, Iterations: c.iter, Toggles: 2, StackWords: 256,
				Image: func() (*kernel.Image, error) { return o.Image, nil }}
			m0, err := sc.Machine(false)
			require.NoError(t, err)
			keys, bad := checkHashFuture(t, m0, c.bound, 30000)
			require.Zero(t, bad, "arrivals at one key with different successors")
			require.Greater(t, keys, 100)
		})
	}
}

type hkey struct {
	h [2]uint64
	p int
}

func cmpKey(a, b hkey) int {
	switch {
	case a.h[0] != b.h[0]:
		return cmpU(a.h[0], b.h[0])
	case a.h[1] != b.h[1]:
		return cmpU(a.h[1], b.h[1])
	}
	return a.p - b.p
}

func cmpU(a, b uint64) int {
	if a < b {
		return -1
	}
	return 1
}

// checkHashFuture expands every key reachable from m0 within bound (up to
// limit keys) and returns how many keys it saw and at how many the
// successors of two arrivals differed (each logged with the fields the two
// machines differ in).
func checkHashFuture(t *testing.T, m0 *Machine, bound, limit int) (keys, bad int) {
	type rec struct {
		m   *Machine
		sig []hkey
	}
	seen := map[hkey]*rec{}
	succ := func(m *Machine) ([]hkey, []*Machine) {
		var ks []hkey
		var ms []*Machine
		for _, o := range m.OptionsWithin(nil, bound) {
			c := m.Clone()
			c.Apply(o)
			end := 0
			if c.Done() {
				end = 1
			}
			ks = append(ks, hkey{c.Hash(), c.Preemptions()*1000 + len(c.Hazards())*10 + end})
			ms = append(ms, c)
		}
		slices.SortFunc(ks, cmpKey)
		return slices.Compact(ks), ms
	}
	stack := []*Machine{m0}
	for len(stack) > 0 && bad < 3 && len(seen) < limit {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k := hkey{m.Hash(), m.Preemptions()}
		sig, kids := succ(m)
		if r, ok := seen[k]; ok {
			if !slices.Equal(r.sig, sig) {
				bad++
				t.Logf("key %x: successors %v, then %v; the machines differ in", k.h, r.sig, sig)
				diff(t, "", reflect.ValueOf(r.m).Elem(), reflect.ValueOf(m).Elem(), 0)
				t.Logf("options %v, then %v", r.m.OptionsWithin(nil, bound), m.OptionsWithin(nil, bound))
				for _, x := range []*Machine{r.m, m} {
					for _, o := range x.OptionsWithin(nil, bound) {
						c := x.Clone()
						c.Apply(o)
						t.Logf("  %v -> %x", o, c.Hash())
					}
				}
			}
			continue
		}
		seen[k] = &rec{m, sig}
		if !m.Done() {
			stack = append(stack, kids...)
		}
	}
	return len(seen), bad
}

func diff(t *testing.T, path string, a, b reflect.Value, depth int) {
	if depth > 6 {
		t.Logf("  differs: %s", path)
		return
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			fa, fb := a.Field(i), b.Field(i)
			name := a.Type().Field(i).Name
			if !deepEq(fa, fb) {
				diff(t, path+"."+name, fa, fb, depth+1)
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			t.Logf("  differs: %s (len %d vs %d)", path, a.Len(), b.Len())
			return
		}
		n := 0
		for i := 0; i < a.Len() && n < 4; i++ {
			if !deepEq(a.Index(i), b.Index(i)) {
				n++
				diff(t, fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i), depth+1)
			}
		}
	case reflect.Ptr, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			t.Logf("  differs: %s (nil)", path)
			return
		}
		diff(t, path, a.Elem(), b.Elem(), depth+1)
	default:
		if a.CanInt() || a.CanUint() || a.Kind() == reflect.Bool {
			t.Logf("  differs: %s: %v vs %v", path, fmtv(a), fmtv(b))
		} else {
			t.Logf("  differs: %s", path)
		}
	}
}

func fmtv(v reflect.Value) string {
	switch {
	case v.CanInt():
		return fmt.Sprint(v.Int())
	case v.CanUint():
		return fmt.Sprintf("%#x", v.Uint())
	case v.Kind() == reflect.Bool:
		return fmt.Sprint(v.Bool())
	}
	return "?"
}

func deepEq(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() || a.IsValid() && a.Type() != b.Type() {
		return false
	}
	if !a.IsValid() || a.Kind() == reflect.Func {
		return true
	}
	if a.CanInterface() {
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
	// unexported: compare through unsafe-free recursion
	switch a.Kind() {
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !deepEq(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !deepEq(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Ptr, reflect.Interface:
		if a.IsNil() != b.IsNil() {
			return false
		}
		if a.IsNil() {
			return true
		}
		if a.Kind() == reflect.Ptr && a.Pointer() == b.Pointer() {
			return true
		}
		return deepEq(a.Elem(), b.Elem())
	case reflect.Map:
		return a.Len() == b.Len() // shallow
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.String:
		return a.String() == b.String()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	}
	if a.CanInt() {
		return a.Int() == b.Int()
	}
	if a.CanUint() {
		return a.Uint() == b.Uint()
	}
	return true
}
