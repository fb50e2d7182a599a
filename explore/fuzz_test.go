package explore_test

// Schedule fuzzing: Go's fuzzer chooses the schedules (explore.RunBytes).
//
// FuzzJmpOver is an ordinary fuzz target: jmp-over (Steve's fix) must never
// reach a hazard. Plain go test runs its seeds; under -fuzz every input is a
// schedule, and a crasher the fuzzer saved would be a real bug, failing
// plain go test until fixed — the usual Go contract, and what users get
// from mcountsimtest.FuzzSchedules.
//
// FuzzFindNopNop shows that the fuzzer finds the seed's race. A target that
// fails on the hazard is what makes the fuzzer stop and save the input, but
// nop-nop is *known* to be unsafe, so its saved crasher, run by plain go
// test, would fail the build forever. The target therefore has two modes:
//
//   - when it is the target being fuzzed (go test -fuzz FuzzFindNopNop), a
//     run that reaches a hazard fails: the fuzzer reports it and saves the
//     input under testdata/fuzz/FuzzFindNopNop/;
//   - otherwise (plain go test, or fuzzing another target) each input is a
//     saved crasher, replayed as a regression test: it must still reach a
//     hazard of seed 000's kind — a task passed the site through a
//     combination of words the site never held (when enabling, nop then bl:
//     foreign-slot; when disabling, push {lr} then nop: bad-return) — and
//     its schedule must replay to the same hazards. The target has no f.Add
//     seeds, so the only inputs are the committed crashers.
//
// To search from an empty corpus, move the committed crasher aside (the
// fuzzer runs the corpus first and would stop on it at once) and use a
// fresh cache directory:
//
//	mv explore/testdata/fuzz/FuzzFindNopNop /tmp/
//	go test -run '^$' -fuzz '^FuzzFindNopNop$' -fuzztime 60s \
//	    -test.fuzzcachedir "$(mktemp -d)" ./explore

import (
	"flag"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/mcountsimtest"
	"github.com/mcountsim/mcountsim/patch"
)

func scenario(t testing.TB, name string) explore.Scenario {
	t.Helper()
	s, ok := patch.Lookup(kernel.ARM, name)
	require.True(t, ok, "no built-in %s", name)
	return explore.Scenario{Strategy: s}
}

// FuzzJmpOver: no schedule of jmp-over within preemption bound 2 reaches a
// hazard.
func FuzzJmpOver(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 1, 3}) // preempt inside the site, then run the patcher
	mcountsimtest.FuzzSchedules(f, scenario(f, "jmp-over"), explore.Options{Bound: 2})
}

// fuzzing reports whether go test -fuzz is fuzzing the target named name.
func fuzzing(name string) bool {
	fl := flag.Lookup("test.fuzz")
	if fl == nil || fl.Value.String() == "" {
		return false
	}
	ok, err := regexp.MatchString(fl.Value.String(), name)
	return err == nil && ok
}

// FuzzFindNopNop: see the comment at the top of this file.
func FuzzFindNopNop(f *testing.F) {
	sc := scenario(f, "nop-nop")
	opts := explore.Options{Bound: 2}
	find := fuzzing("FuzzFindNopNop")
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := explore.RunBytes(sc, opts, data)
		require.NoError(t, err)
		if find {
			if res.Hazard != nil {
				t.Fatalf("found the nop-nop race: %v\nreplay: mcountsim replay --arch arm --strategy nop-nop --schedule %q",
					res.Hazard, res.Schedule)
			}
			return
		}
		// A saved crasher: it still reaches seed 000's hazard, and its
		// schedule replays to the same hazards.
		require.Equal(t, explore.Unsafe, res.Verdict,
			"the crasher %x no longer reaches a hazard (schedule %q). If the machine's options changed (a new "+
				"kind of choice, a different order), saved schedules change meaning: find a new crasher with "+
				"go test -fuzz FuzzFindNopNop (see fuzz_test.go) and replace the old one", data, res.Schedule)
		require.NotNil(t, res.Hazard)
		assert.Contains(t, []detect.Kind{detect.ForeignSlot, detect.BadReturn, detect.StackImbalance}, res.Hazard.Kind)
		require.NotEmpty(t, res.Replay.Explanation)
		pass := res.Replay.Explanation[len(res.Replay.Explanation)-1]
		assert.Equal(t, "f0", pass.Function)
		assert.True(t, pass.Mixed, "the task ran a combination the site never held")
		again, err := explore.Replay(sc, res.Schedule, opts)
		require.NoError(t, err)
		assert.Equal(t, res.Hazards, again.Hazards)
		t.Logf("crasher %x is schedule %q: %v", data, res.Schedule, res.Hazard)
	})
}

// RunBytes agrees with Replay, consumes bytes only at real choices, and
// treats missing bytes as the default.
func TestRunBytes(t *testing.T) {
	sc := scenario(t, "nop-nop")
	opts := explore.Options{Bound: 2}

	def, err := explore.RunBytes(sc, opts, nil)
	require.NoError(t, err)
	assert.Equal(t, "", def.Schedule)
	zeros, err := explore.RunBytes(sc, opts, make([]byte, 64))
	require.NoError(t, err)
	assert.Equal(t, "", zeros.Schedule, "zero bytes choose the defaults")
	assert.Equal(t, def.Steps, zeros.Steps)

	// Every byte string gives a schedule that Replay reproduces, and
	// options wrap around (b % n).
	found := 0
	for i := 0; i < 300; i++ {
		data := []byte{byte(i), byte(i * 31), byte(i * 7), byte(i >> 2), byte(i * 3), byte(i * 11)}
		res, err := explore.RunBytes(sc, opts, data)
		require.NoError(t, err)
		again, err := explore.Replay(sc, res.Schedule, opts)
		require.NoError(t, err, "schedule %q of %x", res.Schedule, data)
		require.Equal(t, res.Hazards, again.Hazards, "schedule %q", res.Schedule)
		require.Equal(t, res.Steps, again.Steps)
		if res.Hazard != nil {
			found++
			// The choices stop at the first hazard.
			s, err := explore.ParseSchedule(res.Schedule)
			require.NoError(t, err)
			if len(s) > 0 {
				assert.LessOrEqual(t, s[len(s)-1].Step, res.Hazard.Step)
			}
		}
	}
	assert.Greater(t, found, 0, "some of 300 byte strings reach the race")

	// Bytes beyond the run's choices are ignored.
	a, err := explore.RunBytes(sc, opts, []byte{1, 2, 3})
	require.NoError(t, err)
	b, err := explore.RunBytes(sc, opts, append([]byte{1, 2, 3}, make([]byte, 500)...))
	require.NoError(t, err)
	assert.Equal(t, a.Schedule, b.Schedule)

	// Errors from the scenario come back as errors.
	_, err = explore.RunBytes(explore.Scenario{}, opts, nil)
	assert.Error(t, err)
}
