package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mergeSeeds are real check --json documents: shards 0/2 and 1/2 of
// jmp-over (SAFE), the unsharded jmp-over (SAFE) and nop-nop (UNSAFE), and
// a budget-cut shard of jmp-over (INCOMPLETE).
var mergeSeeds = sync.OnceValue(func() map[string]string {
	docs := map[string]string{}
	for name, args := range map[string][]string{
		"safe0":      {"--strategy", "jmp-over", "--shard", "0/2", "--no-symmetry"},
		"safe1":      {"--strategy", "jmp-over", "--shard", "1/2", "--no-symmetry"},
		"unsafe":     {"--strategy", "nop-nop"},
		"whole":      {"--strategy", "jmp-over", "--no-symmetry"},
		"incomplete": {"--strategy", "jmp-over", "--max-states", "20", "--shard", "0/2", "--no-symmetry"},
	} {
		_, out, _ := mcountsim(append([]string{"check", "--json"}, args...)...)
		docs[name] = out
	}
	return docs
})

// mutateDoc decodes a seed document, applies edit and encodes it again.
func mutateDoc(t *testing.T, seed string, edit func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(mergeSeeds()[seed]), &m))
	edit(m)
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

func space(m map[string]any) map[string]any  { return m["space"].(map[string]any) }
func config(m map[string]any) map[string]any { return m["config"].(map[string]any) }

// Issue 20, point 4: merge refuses every document that check --json could
// not have written, naming the file and the reason, with exit status 2.
func TestMergeHostileDocuments(t *testing.T) {
	seeds := mergeSeeds()
	for name, doc := range seeds {
		_, err := parseShard(name, []byte(doc))
		require.NoError(t, err, "seed %s", name)
	}
	set := func(seed, key string, v any) string {
		return mutateDoc(t, seed, func(m map[string]any) { m[key] = v })
	}
	setSpace := func(seed, key string, v any) string {
		return mutateDoc(t, seed, func(m map[string]any) { space(m)[key] = v })
	}
	tests := []struct {
		name, doc, reason string
	}{
		{"huge shard count", setSpace("safe0", "shard", "0/9223372036854775807"), `bad shard "0/9223372036854775807" (want i/n with 0 <= i < n <= 65536)`},
		{"large shard count", setSpace("safe0", "shard", "0/1000000000"), `bad shard "0/1000000000"`},
		{"shard index out of range", setSpace("safe0", "shard", "2/2"), `bad shard "2/2"`},
		{"signed shard", setSpace("safe0", "shard", "+0/2"), `bad shard "+0/2"`},
		{"negative shard", setSpace("safe0", "shard", "-1/2"), `bad shard "-1/2"`},
		{"zero shards", setSpace("safe0", "shard", "0/0"), `bad shard "0/0"`},
		{"SAFE with a hazard", mutateDoc(t, "safe0", func(m map[string]any) {
			var u map[string]any
			require.NoError(t, json.Unmarshal([]byte(seeds["unsafe"]), &u))
			m["hazard"] = u["hazard"]
		}), "SAFE with a hazard"},
		{"SAFE with a schedule", set("safe0", "schedule", "8:2"), "SAFE with a schedule"},
		{"SAFE with steps", set("safe0", "steps", 12), "SAFE with a schedule"},
		{"SAFE with a reason", set("safe0", "reason", "why not"), "SAFE with a reason for stopping"},
		{"SAFE short of its bound", setSpace("safe0", "bounds_done", 2), "SAFE within bound 2 with bounds_done 2"},
		{"SAFE shard claims exhaustive", setSpace("safe0", "exhaustive", true), `SAFE with exhaustive true for shard "0/2"`},
		{"UNSAFE without a hazard", set("safe0", "verdict", "UNSAFE"), "UNSAFE without a hazard"},
		{"UNSAFE with a null hazard", set("unsafe", "hazard", nil), "UNSAFE without a hazard"},
		{"UNSAFE with a hazard without kind", set("unsafe", "hazard", map[string]any{"step": 3}), "UNSAFE with a hazard that is not an object with a kind"},
		{"UNSAFE with a hazard past its run", mutateDoc(t, "unsafe", func(m map[string]any) { m["hazard"].(map[string]any)["step"] = 1e6 }), "hazard at step 1000000 of a 28-step run"},
		{"UNSAFE without a schedule", set("unsafe", "steps", 0), "UNSAFE without a schedule (steps 0)"},
		{"UNSAFE with a bad schedule", set("unsafe", "schedule", "8:2,3:1"), `UNSAFE with a bad schedule: bad schedule element "3:1": steps must increase`},
		{"UNSAFE beyond its bound", set("unsafe", "preemptions", 3), "UNSAFE with 3 preemptions, more than bound 2"},
		{"INCOMPLETE without a reason", set("incomplete", "reason", ""), "INCOMPLETE without a reason"},
		{"INCOMPLETE with a hazard", set("incomplete", "hazard", map[string]any{"kind": "x"}), "INCOMPLETE with a hazard"},
		{"negative states", set("safe0", "states", -5), "negative states (-5)"},
		{"negative elapsed", set("safe0", "elapsed_ns", -1), "negative elapsed_ns (-1)"},
		{"negative tasks", mutateDoc(t, "safe0", func(m map[string]any) { space(m)["tasks"] = -2; config(m)["tasks"] = -2 }), "negative space.tasks (-2)"},
		{"states beyond int64", set("safe0", "states", 1e19), "cannot unmarshal number 10000000000000000000"},
		{"config and space disagree", mutateDoc(t, "safe0", func(m map[string]any) { config(m)["cpus"] = 3 }), "config and space describe different scenarios"},
		{"bounds_done past the bound", setSpace("incomplete", "bounds_done", 4), "bounds_done 4 is past bound 2"},
		{"end states and runs disagree", set("safe0", "runs", 3), "1 end_states for 3 runs"},
		{"bad end state", mutateDoc(t, "safe0", func(m map[string]any) { m["end_states"].([]any)[0] = "xyz" }), `end state 0 ("xyz") is not a 128-bit hex hash`},
		{"repeated end state", mutateDoc(t, "safe0", func(m map[string]any) {
			e := m["end_states"].([]any)
			m["end_states"], m["runs"] = append(e, e[0]), len(e)+1
		}), "end states not sorted and distinct at 1"},
		{"end states in an unsharded result", mutateDoc(t, "unsafe", func(m map[string]any) { m["end_states"] = []string{strings.Repeat("0", 32)} }), "end_states in an unsharded result"},
		{"unknown field", set("safe0", "bogus", 1), `json: unknown field "bogus"`},
		{"unknown space field", setSpace("safe0", "bogus", 1), `json: unknown field "bogus"`},
		{"replay document", set("safe0", "mode", "replay"), `not a check --json result (mode "replay")`},
		{"pct search", setSpace("safe0", "search", "pct"), `a "pct" search; only exhaustive searches have shards`},
		{"no search", mutateDoc(t, "safe0", func(m map[string]any) { delete(space(m), "search") }), `a "" search`},
		{"no verdict", mutateDoc(t, "safe0", func(m map[string]any) { delete(m, "verdict") }), "no verdict"},
		{"unknown verdict", set("safe0", "verdict", "MAYBE"), `unknown verdict "MAYBE"`},
		{"trailing garbage", seeds["safe0"] + "xyz", "trailing data after the JSON document"},
		{"two documents", seeds["safe0"] + seeds["safe1"], "trailing data after the JSON document"},
		{"repeated key", strings.Replace(seeds["safe0"], `"verdict": "SAFE"`, `"verdict": "SAFE", "verdict": "UNSAFE"`, 1), `key "verdict" repeated in one object`},
		{"repeated key in another case", strings.Replace(seeds["safe0"], `"verdict": "SAFE"`, `"verdict": "SAFE", "Verdict": "UNSAFE"`, 1), `key "Verdict" repeated in one object`},
		{"deep nesting", strings.Replace(seeds["unsafe"], `"hazard": {`, `"hazard": {"x":`+strings.Repeat("[", 100)+strings.Repeat("]", 100)+`,`, 1), "JSON nested deeper than 64 levels"},
		{"empty", "", "not a check --json result: EOF"},
		{"not JSON", "verdict: SAFE\n", "not a check --json result: invalid character"},
		{"an array", "[1, 2]", "not a check --json result: json: cannot unmarshal array"},
	}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseShard("doc.json", []byte(tt.doc))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "doc.json: "), err.Error())
			assert.Contains(t, err.Error(), tt.reason)

			path := filepath.Join(dir, fmt.Sprintf("doc-%d.json", i))
			require.NoError(t, os.WriteFile(path, []byte(tt.doc), 0o644))
			code, out, errOut := mcountsim("merge", path)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errOut, "mcountsim merge: "+path+": "), errOut)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		})
	}
}

// Issue 20, point 4: documents that are each fine but are not shards of
// one split, or whose sums overflow, are refused; a large split with one
// shard present is INCOMPLETE with a short reason.
func TestMergeHostileSets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(doc), 0o644))
		return path
	}
	seeds := mergeSeeds()
	safe0, safe1 := write("safe0.json", seeds["safe0"]), write("safe1.json", seeds["safe1"])
	code, _, errOut := mcountsim("merge", safe0, safe1)
	require.Equal(t, 0, code, errOut)

	big := write("big.json", mutateDoc(t, "safe1", func(m map[string]any) { m["states"] = math.MaxInt64 - 10 }))
	code, _, errOut = mcountsim("merge", safe0, big)
	assert.Equal(t, 2, code)
	assert.Equal(t, "mcountsim merge: "+big+": the states summed over the shards overflow\n", errOut)

	other := write("other.json", mutateDoc(t, "safe1", func(m map[string]any) {
		space(m)["scenario"] = "arm jmp-over, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles, 9 functions"
	}))
	code, _, errOut = mcountsim("merge", safe0, other)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "are results of different scenarios or searches")

	code, _, errOut = mcountsim("merge", safe0, write("unsharded.json", seeds["whole"]))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "shards of different splits")

	wide := write("wide.json", mutateDoc(t, "safe0", func(m map[string]any) { space(m)["shard"] = "3/65536" }))
	code, out, errOut := mcountsim("merge", wide)
	assert.Equal(t, 3, code, errOut)
	assert.Contains(t, out, "missing shard(s) 0/65536, 1/65536, 2/65536, 4/65536, 5/65536, 6/65536, 7/65536, 8/65536, and 65527 more\n")
	assert.Less(t, len(out), 2000)
}

// FuzzMergeDocument: the merge reader never panics, and a document it
// accepts merges alone without an error into its own verdict. The seeds
// are the real documents made small (compact, without the trace and with
// at most two end states: a few hundred bytes), so that minimizing a new
// input takes little of the run.
func FuzzMergeDocument(f *testing.F) {
	for _, doc := range mergeSeeds() {
		var m map[string]any
		require.NoError(f, json.Unmarshal([]byte(doc), &m))
		delete(m, "run")
		delete(m, "hazards")
		if e, ok := m["end_states"].([]any); ok && len(e) > 2 {
			m["end_states"], m["runs"] = e[:2], 2
		}
		small, err := json.Marshal(m)
		require.NoError(f, err)
		_, err = parseShard("seed", small)
		require.NoError(f, err)
		f.Add(small)
	}
	f.Add([]byte(`{"mode":"check","verdict":"SAFE","space":{"search":"exhaustive","shard":"0/1","bound":0,"bounds_done":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseShard("fuzz.json", data)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "fuzz.json: "), err.Error())
			require.NotContains(t, err.Error(), "\n")
			return
		}
		m, err := merge([]*shardDoc{d})
		require.NoError(t, err)
		if d.shard.Whole() || d.Verdict == m.Verdict {
			require.Equal(t, d.Verdict, m.Verdict)
		} else {
			require.Equal(t, "INCOMPLETE", m.Verdict.String(), "a part of a split alone")
		}
	})
}
