package kernel_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/stretchr/testify/require"
)

// TestCheckProfile runs one check of an object as `mcountsim check
// --object` does (the CLI's defaults, one worker), to profile it with `go
// test -cpuprofile`:
//
//	MCOUNTSIM_CHECKPROF="object=/tmp/x86-O2-fentry.o function=c_strlen args=0 strategy=text-poke-bp" \
//	  go test ./kernel -run TestCheckProfile -v -cpuprofile cpu.out
//
// (arch= x86, arm64 or riscv64 for objects other than A32; timeout= a
// duration, 60s by default; max= a number of states to stop after; cpu=
// a duration of CPU time to stop after, as TestCorpusMatrix's budget; por=1
// the sleep sets, check --por). It logs the verdict, states, transitions,
// runs, CPU seconds, GCs and bytes allocated per state.
func TestCheckProfile(t *testing.T) {
	spec := os.Getenv("MCOUNTSIM_CHECKPROF")
	if spec == "" {
		t.Skip("set MCOUNTSIM_CHECKPROF to profile one check")
	}
	kv := map[string]string{"arch": "arm", "timeout": "60s"}
	for _, f := range strings.Fields(spec) {
		k, v, ok := strings.Cut(f, "=")
		require.True(t, ok, "MCOUNTSIM_CHECKPROF: %q is not key=value", f)
		kv[k] = v
	}
	arch, err := kernel.ParseArch(kv["arch"])
	require.NoError(t, err)
	var args []int64
	if kv["args"] != "" {
		for _, a := range strings.Split(kv["args"], ",") {
			n, err := strconv.ParseInt(a, 0, 64)
			require.NoError(t, err)
			args = append(args, n)
		}
	}
	o, err := kernel.LoadObject(kv["object"], kernel.ObjectConfig{Function: kv["function"], Args: args})
	require.NoError(t, err)
	st, ok := patch.Lookup(arch, kv["strategy"])
	require.True(t, ok, kv["strategy"])
	sc := explore.Scenario{Arch: arch, Strategy: st, StackWords: 1024, Image: func() (*kernel.Image, error) { return o.Image, nil },
		ObjectFile: kv["object"], Function: kv["function"], Args: args}
	require.NoError(t, explore.Preflight(sc))
	timeout, err := time.ParseDuration(kv["timeout"])
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if kv["cpu"] != "" { // a budget of CPU time, as corpusCheck's
		budget, err := time.ParseDuration(kv["cpu"])
		require.NoError(t, err)
		start := cpuTime()
		go func() {
			for ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
				if cpuTime()-start > budget.Seconds() {
					cancel()
				}
			}
		}()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := cpuTime()
	maxStates := 0
	if kv["max"] != "" {
		maxStates, err = strconv.Atoi(kv["max"])
		require.NoError(t, err)
	}
	res, err := explore.Check(sc, explore.Options{Context: ctx, Workers: 1, MaxStates: maxStates, POR: kv["por"] != ""})
	secs := cpuTime() - start
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	states := max(res.States, 1)
	t.Logf("%s: %d states, %d transitions, %d runs, %.2f CPU s, %d GCs, %d B and %.1f allocations per state, reason %q",
		res.Verdict, res.States, res.Transitions, res.Runs, secs, after.NumGC-before.NumGC,
		(after.TotalAlloc-before.TotalAlloc)/uint64(states), float64(after.Mallocs-before.Mallocs)/float64(states), res.Reason)
}
