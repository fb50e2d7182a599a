package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 21: --stack-words sets each task's stack. big_frame (bigframe.c)
// has a 5 KiB frame: with an --object's default 1024 words (4 KiB) its
// callee's first store below the stack faults even unpatched; with 2048
// words (Linux's ARM THREAD_SIZE, 8 KiB) it runs, SAFE under jmp-over,
// and returns 13578, what it returns under qemu-arm (kernel's
// TestBigFrameNative).
func TestStackWordsBigFrame(t *testing.T) {
	obj := filepath.Join(objFixtures, "arm-bigframe.o")
	args := []string{"check", "--object", obj, "--function", "big_frame", "--args", "3", "--strategy", "jmp-over"}
	code, out, stderr := mcountsim(args...)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, "mcountsim check: --object: big_frame cannot run even unpatched: fault at step 20, cpu 0, task 0, pc 0x8040 <s_touch+0x1c>: "+
		"pc 0x8040: e780c103 (str ip, [r0, r3, lsl #2]): store of 4 bytes at 0x7efffbe8 outside the task's stack [0x7f000000,0x7f001000) and data: page 0x7efff000 is not mapped: memory fault\n", stderr)

	code, out, stderr = mcountsim(append(args, "--stack-words", "2048", "--json")...)
	require.Equal(t, 0, code, stderr)
	var doc struct {
		Config struct {
			StackWords int `json:"stack_words"`
		} `json:"config"`
		Verdict string `json:"verdict"`
		Space   struct {
			Scenario string `json:"scenario"`
		} `json:"space"`
		Returns []struct {
			Function  string  `json:"function"`
			Value     *uint64 `json:"value"`
			Reference *uint64 `json:"reference"`
		} `json:"returns"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "SAFE", doc.Verdict)
	assert.Equal(t, 2048, doc.Config.StackWords)
	assert.Equal(t, "arm jmp-over, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles, object "+obj+": big_frame(3), stack 2048 words", doc.Space.Scenario)
	n := 0
	for _, r := range doc.Returns {
		if r.Function == "big_frame" {
			require.NotNil(t, r.Value)
			assert.Equal(t, uint64(13578), *r.Value)
			assert.Equal(t, uint64(13578), *r.Reference)
			n++
		}
	}
	assert.Equal(t, 4, n, "two tasks, two iterations")

	// nop-nop is UNSAFE there, and its replay command carries the stack.
	code, out, stderr = mcountsim("check", "--object", obj, "--function", "big_frame", "--args", "3", "--strategy", "nop-nop", "--stack-words", "2048", "--json")
	require.Equal(t, 1, code, stderr)
	var unsafe struct {
		Replay string `json:"replay_command"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &unsafe))
	assert.Contains(t, unsafe.Replay, " --stack-words 2048 ")
	replay := strings.Fields(strings.TrimPrefix(unsafe.Replay, "mcountsim "))
	replay[len(replay)-1] = strings.Trim(replay[len(replay)-1], `"`)
	code, out, stderr = mcountsim(replay...)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "UNSAFE: the schedule reaches a hazard")
}

// The defaults stay what they were: the JSON config states them, and the
// replay command names no --stack-words for them.
func TestStackWordsDefaults(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"check", "--strategy", "nop-nop"}, 64},
		{[]string{"check", "--arch", "riscv64", "--strategy", "rv-pfe8-retarget"}, 128},
		{[]string{"check", "--object", filepath.Join(objFixtures, "arm-real.o"), "--function", "lcm", "--args", "21,6", "--strategy", "nop-nop"}, 1024},
	} {
		code, out, stderr := mcountsim(append(c.args, "--json")...)
		require.Equal(t, 1, code, "%v: %s", c.args, stderr)
		var doc struct {
			Config struct {
				StackWords int `json:"stack_words"`
			} `json:"config"`
			Space struct {
				Scenario string `json:"scenario"`
			} `json:"space"`
			Replay string `json:"replay_command"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		assert.Equal(t, c.want, doc.Config.StackWords, "%v", c.args)
		assert.NotContains(t, doc.Space.Scenario, "stack", "%v", c.args)
		assert.NotContains(t, doc.Replay, "--stack-words", "%v", c.args)
	}
}

// Bad values are refused with one line naming the flag, from the command
// line and from a scenario file; with --tracer the stack is the tracer
// kernel's THREAD_SIZE, which must be a power of two.
func TestStackWordsBadValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stack-words", "15"}, "mcountsim check: --stack-words must be 16..4096, got 15\n"},
		{[]string{"--stack-words", "4097"}, "mcountsim check: --stack-words must be 16..4096, got 4097\n"},
		{[]string{"--stack-words", "-64"}, "mcountsim check: --stack-words must be 16..4096, got -64\n"},
		{[]string{"--stack-words", "1k"}, "mcountsim check: invalid value \"1k\" for flag -stack-words: parse error\n"},
		{[]string{"--tracer", "irqsave", "--stack-words", "1000"}, "mcountsim check: --stack-words with --tracer must be a power of two from 64 to 4096 (the tracer kernel's THREAD_SIZE, which it masks sp with to find thread_info), got 1000\n"},
		{[]string{"--tracer", "irqsave", "--stack-words", "32"}, "mcountsim check: --stack-words with --tracer must be a power of two from 64 to 4096 (the tracer kernel's THREAD_SIZE, which it masks sp with to find thread_info), got 32\n"},
	} {
		code, out, stderr := mcountsim(append([]string{"check", "--strategy", "jmp-over"}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out)
		assert.Equal(t, c.want, stderr, "%v", c.args)
	}

	dir := t.TempDir()
	src, err := os.ReadFile("../../examples/strategies/jmp-over.strategy")
	require.NoError(t, err)
	file := filepath.Join(dir, "s.strategy")
	require.NoError(t, os.WriteFile(file, append([]byte("config stack-words=9000\n"), src...), 0o644))
	code, _, stderr := mcountsim("check", "--strategy-file", file)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "stack-words")
	assert.Contains(t, stderr, "want an integer in 16..4096, got \"9000\"")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), stderr)

	// A good value in the file is the flag's, and the command line wins.
	require.NoError(t, os.WriteFile(file, append([]byte("config stack-words=256\n"), src...), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "stack 256 words"}, {[]string{"--stack-words", "512"}, "stack 512 words"}} {
		code, out, stderr := mcountsim(append([]string{"check", "--strategy-file", file, "--json"}, c.args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, out, c.want)
	}
}

// The tracer kernel's THREAD_SIZE follows --stack-words: its verdict
// holds with an 8 KiB stack too.
func TestStackWordsTracer(t *testing.T) {
	code, out, stderr := mcountsim("check", "--strategy", "jmp-over", "--tracer", "irqsave", "--stack-words", "2048", "--bound", "1", "--tasks", "1")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "stack 2048 words, tracer irqsave")
	assert.Contains(t, out, "verdict:  SAFE")
}
