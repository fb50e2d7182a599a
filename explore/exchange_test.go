package explore

import (
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runExchanged runs the n shards of sc at once, exchanging through one
// fresh directory.
func runExchanged(t *testing.T, sc Scenario, opts Options, n int) []*Result {
	t.Helper()
	dir := t.TempDir()
	res := make([]*Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts
			o.Shard, o.Exchange = Shard{Index: i, Count: n}, dir
			res[i], errs[i] = Check(sc, o)
		}()
	}
	wg.Wait()
	for i := range errs {
		require.NoError(t, errs[i], "shard %d/%d", i, n)
	}
	return res
}

// Issue 19, point 4: shards that exchange the states they do not own
// split the work: their states and steps add up to exactly the unsharded
// figures, their end states unite to the unsharded runs, each explores at
// most 2/n of the states, and the verdict is the unsharded one.
func TestExchangedShardsSplitTheWork(t *testing.T) {
	for _, tt := range []struct {
		strategy string
		tasks    int
		verdict  Verdict
	}{
		{"jmp-over", 2, Safe},
		{"nop-nop", 2, Unsafe},
	} {
		sc := Scenario{Strategy: builtin(t, tt.strategy), Tasks: tt.tasks}
		whole, err := Check(sc, Options{noOlderViews: true, Bound: 2})
		require.NoError(t, err)
		require.Equal(t, tt.verdict, whole.Verdict)
		// (jmp-over with 3 tasks and 2, 4, 8 shards, as processes:
		// bench/shards.sh.)
		for _, c := range []struct {
			n           int
			splitAlways bool
		}{{2, false}, {3, false}, {7, false}, {3, true}} {
			n := c.n
			t0 := time.Now()
			// (splitAlways: the workers of each shard split their
			// subtrees at every branching point, share.go.)
			shards := runExchanged(t, sc, Options{noOlderViews: true, Bound: 2, Workers: 2, splitAlways: c.splitAlways}, n)
			t.Logf("%s %d tasks %d shards: %v", tt.strategy, tt.tasks, n, time.Since(t0))
			var states, trans, largest int
			ends := map[string]bool{}
			var unsafe []*Result
			for i, r := range shards {
				states += r.States
				trans += r.Transitions
				largest = max(largest, r.States)
				for _, h := range r.EndStates {
					ends[h] = true
				}
				assert.Len(t, r.EndStates, r.Runs)
				switch r.Verdict {
				case Unsafe:
					unsafe = append(unsafe, r)
				case Safe:
					assert.Equal(t, Safe, tt.verdict)
				default:
					assert.Equal(t, Unsafe, tt.verdict, "shard %d: %s", i, r.Reason)
					assert.Contains(t, r.Reason, "found a hazard within bound 1")
				}
			}
			assert.Equal(t, whole.States, states, "%s/%d tasks, %d shards: states", tt.strategy, tt.tasks, n)
			assert.Equal(t, whole.Transitions, trans, "%s/%d tasks, %d shards: steps", tt.strategy, tt.tasks, n)
			assert.Equal(t, whole.Runs, len(ends), "%s/%d tasks, %d shards: runs", tt.strategy, tt.tasks, n)
			assert.LessOrEqual(t, largest, 2*whole.States/n, "%s/%d tasks, %d shards: the largest shard", tt.strategy, tt.tasks, n)
			if tt.verdict == Unsafe {
				require.NotEmpty(t, unsafe, "a shard finds the hazard")
				for _, u := range unsafe { // (two may, in the same round)
					assert.Equal(t, whole.Schedule, u.Schedule, "the canonical counterexample")
					assert.Equal(t, whole.Preemptions, u.Preemptions)
				}
			}
		}
	}
}

func TestExchangeErrors(t *testing.T) {
	sc := Scenario{Strategy: builtin(t, "jmp-over")}
	dir := t.TempDir()
	_, err := Check(sc, Options{noOlderViews: true, Exchange: dir})
	assert.EqualError(t, err, "an exchange directory needs an exhaustive search of 2 or more shards")
	_, err = Check(sc, Options{noOlderViews: true, Exchange: filepath.Join(dir, "nope"), Shard: Shard{0, 2}})
	assert.ErrorContains(t, err, "exchange directory: stat ")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "end-1"), nil, 0o644))
	_, err = Check(sc, Options{noOlderViews: true, Exchange: dir, Shard: Shard{0, 2}})
	assert.EqualError(t, err, "exchange directory "+dir+" holds the files of a finished search (use an empty directory per search)")
}

// The path files: what is written reads back; damaged files are errors.
func TestExchangePaths(t *testing.T) {
	paths := [][]int32{{}, {0, 0, 3}, {1}, {0, 2, 0, 0, 0, 7, 0}}
	data := encodePaths(paths)
	got, err := decodePaths(data)
	require.NoError(t, err)
	assert.Equal(t, paths, got)
	for _, bad := range [][]byte{nil, {5}, data[:len(data)-1], append(append([]byte(nil), data...), 0), {1, 2, 1, 3, 1}, {1, 1, 1, 0, 0}} {
		_, err := decodePaths(bad)
		assert.EqualError(t, err, "malformed exchange file", "%v", bad)
	}
	sortPaths(paths)
	assert.True(t, sort.SliceIsSorted(paths, func(i, j int) bool { return less(paths[i], paths[j]) }))
	st, err := parseStatus(status{sent: 12, stop: "timeout of 1s reached"}.encode())
	require.NoError(t, err)
	assert.Equal(t, status{sent: 12, stop: "timeout of 1s reached"}, st)
	for _, bad := range []string{"", "1 2 x", "-1 0 ", "1 0"} {
		_, err := parseStatus([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func less(a, b []int32) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}
