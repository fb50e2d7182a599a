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

// Issue 14, point 8: mcountsim help COMMAND prints the command's help.
func TestHelpCommand(t *testing.T) {
	for _, c := range []struct{ cmd, want string }{
		{"check", "Usage: mcountsim check [flags]"},
		{"replay", "Usage: mcountsim replay [flags]"},
		{"merge", "Usage: mcountsim merge"},
		{"sites", "mcountsim sites [--json] FILE..."},
	} {
		code, out, errOut := mcountsim("help", c.cmd)
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, c.want, c.cmd)
		assert.NotContains(t, out, "mcountsim simulates how a kernel", "not the top-level help")
	}
	code, _, errOut := mcountsim("help", "frob")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `mcountsim help: unknown command "frob"`)
}

// replay takes --max-memory, like check.
func TestReplayMaxMemory(t *testing.T) {
	code, out, errOut := mcountsim("replay", "--strategy", "nop-nop", "--schedule", "8:2,10:1,14:1", "--max-memory", "1GiB")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, "hazard:   foreign-slot")
	code, _, errOut = mcountsim("replay", "--strategy", "nop-nop", "--schedule", "", "--max-memory", "lots")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `--max-memory: bad size "lots"`)
}

// --html to a path that cannot be written fails at once, before the
// search: no progress line (printed at the end of every search), one
// error line.
func TestHTMLUnwritableFailsFirst(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "page.html")
	code, out, errOut := mcountsim("check", "--strategy", "jmp-over", "--progress", "--html", bad)
	assert.Equal(t, 2, code)
	assert.Empty(t, out, "no report: the search did not run")
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	assert.Contains(t, errOut, "mcountsim check: --html: open "+bad)
	assert.NotContains(t, errOut, "states", "no progress line: the search did not run")

	// A failing run leaves no empty page behind.
	page := filepath.Join(t.TempDir(), "p.html")
	code, _, _ = mcountsim("replay", "--strategy", "nop-nop", "--schedule", "9999:1", "--html", page)
	assert.Equal(t, 2, code)
	_, err := os.Stat(page)
	assert.True(t, os.IsNotExist(err), "no page left for a failed run")
}

// The verdict line names the traced functions and strict mode.
func TestVerdictLineFunctionsStrict(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--strategy", "jmp-over", "--bound", "0"}, "(exhaustive); 1 functions, not strict\n"},
		{[]string{"--strategy", "jmp-over", "--bound", "0", "--functions", "2", "--strict"}, "(exhaustive); 2 functions, strict (mixed-site passes are hazards)\n"},
		{[]string{"--strategy", "jmp-over", "--bound", "0", "--iterations", "1", "--object", "../../kernel/testdata/obj/arm-fixture.o", "--function", "leaf", "--args", "7,5"},
			"(exhaustive); function leaf of the object, not strict\n"},
	} {
		code, out, errOut := mcountsim(append([]string{"check"}, c.args...)...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, c.want, c.args)
	}
}

// replay --json: one run is never SAFE; its verdict is NO-HAZARD-IN-RUN
// or UNSAFE, and the outcome says it in words.
func TestReplayJSONVerdict(t *testing.T) {
	var doc struct {
		Mode, Verdict, Outcome string
		Command                string `json:"replay_command"`
	}
	code, out, errOut := mcountsim("replay", "--strategy", "nop-nop", "--schedule", "", "--json")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "replay", doc.Mode)
	assert.Equal(t, "NO-HAZARD-IN-RUN", doc.Verdict)
	assert.Equal(t, "no hazard in this run (a replay says nothing about other schedules)", doc.Outcome)
	assert.Equal(t, `mcountsim replay --arch arm --strategy nop-nop --schedule ""`, doc.Command)
	assert.Equal(t, 1, strings.Count(out, `"verdict"`), "one verdict key")

	code, out, errOut = mcountsim("replay", "--strategy", "nop-nop", "--schedule", "8:2,10:1,14:1", "--json")
	require.Equal(t, 1, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "UNSAFE", doc.Verdict)
	assert.Equal(t, "UNSAFE: the schedule reaches a hazard", doc.Outcome)
}

// The searched line says which bounds its counts cover (a SAFE modular
// check's, its bound's alone); a hazard at bound 0 does not print "0
// branching states, 0 steps".
func TestSearchedLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--arch", "x86", "--strategy", "plain-write"}, "searched: the hazard was met in bound 0, the first searched (a bound cut short by a hazard is not counted)"},
		{[]string{"--strategy", "nop-nop"}, "searched: bound 0, finished without a hazard: "},
		{[]string{"--strategy", "jmp-over", "--bound", "1"}, "searched: bounds 0..1: "},
		{[]string{"--strategy", "jmp-over", "--max-states", "10"}, "searched: "},
		{[]string{"--object", "../../kernel/testdata/obj/arm-loops.o", "--function", "l_classify", "--args", "7,40", "--strategy", "jmp-over", "--workers", "1"},
			"searched: bound 2, which holds every run of the bounds below (the modular searches start there): 5769 branching states, "},
	} {
		_, out, _ := mcountsim(append([]string{"check"}, c.args...)...)
		assert.Contains(t, out, c.want, c.args)
		assert.NotContains(t, out, "complete runs")
		assert.NotContains(t, out, "0 branching states, 0 steps")
	}
}

// sites prints x86 targets as absolute addresses everywhere (also at the
// start of a section) and disassembles Thumb calls.
func TestSitesTargetsAndThumb(t *testing.T) {
	code, out, errOut := mcountsim("sites", "../../objfile/testdata/x86-fentry.o", "../../objfile/testdata/arm-thumb-pg.o")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "callq .+", "no relative targets")
	assert.Contains(t, out, "helper_static+0x0  0x0    reloc  R_X86_64_PLT32  e800000000  callq 0x5")
	assert.NotContains(t, out, "f7ff fffe (thumb)")
	assert.Regexp(t, `fff7feff\s+bl 0x[0-9a-f]+ \(thumb\) \(after push \{lr\}\)`, out)
}
