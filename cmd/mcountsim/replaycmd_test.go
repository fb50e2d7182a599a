package main

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/report"
)

// shellWords splits a command line the way a POSIX shell splits the
// commands that report.ReplayCommand prints (words, "double" and 'single'
// quotes).
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case '"', '\'':
			j := strings.IndexByte(line[i+1:], c)
			require.GreaterOrEqual(t, j, 0, "unbalanced quote in %q", line)
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

var (
	replayLine = regexp.MustCompile(`(?m)^replay:   (mcountsim replay .*)$`)
	hazardLine = regexp.MustCompile(`(?m)^(hazard|then): .*$`)
)

// replayPrinted runs the command a report printed and checks that it
// reproduces the run: the same hazards, the same trace.
func replayPrinted(t *testing.T, command, checked string) {
	t.Helper()
	words := shellWords(t, command)
	require.Equal(t, "mcountsim", words[0])
	code, out, errOut := mcountsim(words[1:]...)
	require.Equal(t, 1, code, "%s: %s", command, errOut)
	assert.Equal(t, hazardLine.FindAllString(checked, -1), hazardLine.FindAllString(out, -1), command)
	trace := func(s string) string {
		i, j := strings.Index(s, "\ntrace"), strings.Index(s, "\nschedule:")
		require.True(t, i >= 0 && j > i, s)
		return s[i:j]
	}
	assert.Equal(t, trace(checked), trace(out), "%s prints the same trace", command)
}

// Issue 14, point 2: every printed replay command (text, JSON, HTML)
// reproduces its run: objects with their function and arguments,
// strategy files with every setting (their config lines would apply
// otherwise), non-default settings.
func TestPrintedReplayCommandsReplay(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "my-two-step.strategy")
	// The config lines say 1 cpu and 3 tasks; the command line overrides
	// both, so the replay command must name them.
	text, err := os.ReadFile("../../examples/strategies/two-step-sched.strategy")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, append(text, "config cpus=1 tasks=3 strict=true\n"...), 0o644))
	obj := "../../kernel/testdata/obj/arm-fixture.o"
	for _, c := range []struct {
		name string
		args []string
		want string // in the printed command
	}{
		{"builtin", []string{"--strategy", "nop-nop"}, "--strategy nop-nop --schedule"},
		{"settings", []string{"--strategy", "nop-nop", "--cpus", "3", "--iterations", "1", "--strict", "--bound", "1"},
			"--cpus 3 --iterations 1 --bound 1 --strict"},
		{"object", []string{"--object", obj, "--function", "big", "--args", "3,4", "--strategy", "nop-nop", "--iterations", "1"},
			"--object " + obj + " --function big --args 3,4 --iterations 1"},
		{"strategy-file", []string{"--strategy-file", file, "--cpus", "2", "--tasks", "2", "--strict=false"},
			"--strategy-file " + file + " --cpus 2 --tasks 2 --iterations 2 --toggles 2 --functions 1 --bound 2 --stack-words 64 --preempt full --strict=false"},
		{"x86", []string{"--arch", "x86", "--strategy", "plain-write", "--prologue", "mcount"}, "--prologue mcount"},
		// A run of the whole search broke a premise of the stable data
		// bytes (sched/stable.go): the counterexample comes from the search
		// made again without the reductions that rest on the reference run,
		// and replays so.
		{"searched-again", []string{"--object", "../../kernel/testdata/obj/arm-shared.o", "--function", "s_first", "--args", "7",
			"--strategy", "nop-nop", "--modular", "off", "--workers", "1"}, "--args 7 --no-reference-reductions --schedule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := mcountsim(append([]string{"check"}, c.args...)...)
			require.Equal(t, 1, code, errOut)
			m := replayLine.FindStringSubmatch(out)
			require.Len(t, m, 2, out)
			assert.Contains(t, m[1], c.want)
			replayPrinted(t, m[1], out)

			// JSON and HTML print the same command.
			_, js, _ := mcountsim(append([]string{"check", "--json"}, c.args...)...)
			var doc struct {
				Command string `json:"replay_command"`
				Note    string `json:"replay_note"`
			}
			require.NoError(t, json.Unmarshal([]byte(js), &doc))
			assert.Equal(t, m[1], doc.Command)
			assert.Empty(t, doc.Note)
			page := filepath.Join(t.TempDir(), "p.html")
			mcountsim(append([]string{"check", "--html", page}, c.args...)...)
			data, err := os.ReadFile(page)
			require.NoError(t, err)
			assert.Contains(t, html.UnescapeString(string(data)), m[1])
		})
	}
}

// A strategy built in Go has no name a command line knows: the command
// names the file patch.Format writes and the note says so; written there,
// the command replays the run.
func TestReplayCommandGoDefinedStrategy(t *testing.T) {
	nopNop, ok := patch.Lookup(kernel.ARM, "nop-nop")
	require.True(t, ok)
	mine := *nopNop
	mine.Name, mine.Origin = "my-nops", "built in Go"
	sc, opts := explore.Scenario{Strategy: &mine}, explore.Options{}
	res, err := explore.Check(sc, opts)
	require.NoError(t, err)
	require.Equal(t, explore.Unsafe, res.Verdict)

	var b strings.Builder
	require.NoError(t, report.TextFor(&b, sc, opts, res))
	out := b.String()
	cmd := report.ReplayCommand(sc, opts, res.Schedule)
	assert.Contains(t, out, "replay:   "+cmd+"\n")
	note := report.ReplayNote(sc, res.Schedule)
	assert.Contains(t, note, "write patch.Format(strategy) to my-nops.strategy first")
	assert.Contains(t, note, `explore.Replay(sc, "`+res.Schedule+`", opts)`)
	assert.Contains(t, out, "          ("+note+")\n")
	assert.Contains(t, cmd, "--strategy-file my-nops.strategy")

	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("my-nops.strategy", []byte(patch.Format(&mine)), 0o644))
	replayPrinted(t, cmd, out)
}

// A text built in Go cannot be named on a command line: the note says to
// replay from Go.
func TestReplayNoteGoOnly(t *testing.T) {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	img := func() (*kernel.Image, error) { return kernel.Build(kernel.ARM, kernel.Config{}) }
	for _, c := range []struct {
		sc   explore.Scenario
		want string
	}{
		{explore.Scenario{Strategy: nopNop}, ""},
		{explore.Scenario{Strategy: nopNop, Image: img}, "the text is built in Go (Scenario.Image): replay from Go with explore.Replay(sc, \"1:1\", opts)"},
		{explore.Scenario{Strategy: nopNop, NoInt3Emulation: true}, "Go-only knob"},
		{explore.Scenario{Strategy: nopNop, StackWords: 128}, ""}, // --stack-words 128
	} {
		if c.want == "" {
			assert.Empty(t, report.ReplayNote(c.sc, "1:1"))
			continue
		}
		assert.Contains(t, report.ReplayNote(c.sc, "1:1"), c.want)
	}
	assert.Equal(t, `mcountsim replay --arch arm --strategy nop-nop --stack-words 128 --schedule "1:1"`,
		report.ReplayCommand(explore.Scenario{Strategy: nopNop, StackWords: 128}, explore.Options{}, "1:1"))
}
