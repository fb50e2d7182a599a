package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 19, point 4 through the CLI: shards that run at once with
// --exchange merge to the unsharded verdict and to exactly its states,
// steps and runs; each explores at most 2/n of the states.
func TestMergeExchangedShards(t *testing.T) {
	for _, tt := range []struct {
		strategy string
		n, code  int
	}{
		{"jmp-over", 3, 0}, {"jmp-over", 7, 0}, {"nop-nop", 3, 1},
	} {
		dir := t.TempDir()
		x := filepath.Join(dir, "x")
		require.NoError(t, os.Mkdir(x, 0o755))
		files := make([]string, tt.n)
		var wg sync.WaitGroup
		for i := 0; i < tt.n; i++ {
			files[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, out, errOut := mcountsim("check", "--strategy", tt.strategy, "--json", "--workers", "1",
					"--shard", fmt.Sprintf("%d/%d", i, tt.n), "--exchange", x)
				assert.Empty(t, errOut)
				assert.NoError(t, os.WriteFile(files[i], []byte(out), 0o644))
			}()
		}
		wg.Wait()
		_, whole, _ := mcountsim("check", "--strategy", tt.strategy, "--json")
		code, merged, errOut := mcountsim(append([]string{"merge", "--json"}, files...)...)
		require.Equal(t, tt.code, code, errOut)
		w, m := withoutTimes(t, whole), withoutTimes(t, merged)
		for _, k := range []string{"verdict", "states", "transitions", "runs", "schedule", "preemptions", "steps"} {
			assert.Equal(t, w[k], m[k], "%s, %d shards: %s", tt.strategy, tt.n, k)
		}
		for _, s := range m["shards"].([]any) {
			st := s.(map[string]any)["states"].(float64)
			assert.LessOrEqual(t, st, 2*w["states"].(float64)/float64(tt.n), "%s, %d shards", tt.strategy, tt.n)
		}
	}
	code, _, errOut := mcountsim("check", "--strategy", "jmp-over", "--exchange", t.TempDir())
	assert.Equal(t, 2, code)
	assert.Equal(t, "mcountsim check: --exchange needs --shard i/n with n >= 2\n", errOut)
}
