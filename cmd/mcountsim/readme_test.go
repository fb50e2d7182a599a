package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's command blocks are run, and their shown outputs compared
// with what the commands print (issue 14, point 5), so that the README
// cannot drift from the tool.
//
// A ```sh block whose every line is an mcountsim command (written
// `mcountsim ARGS` or `go run ./cmd/mcountsim ARGS`) is run in-process from
// the repository's root, with `--html FILE` sent to a temporary directory.
// If the next block is a plain ``` block, it is the commands' output (their
// stdouts, one after the other), where a line `[...]` stands for any number
// of lines; every other line must be printed exactly, in order. A block
// after the line `<!-- readme-test: skip -->` is not run.
//
// When the tool's figures change (state counts, steps, schedules),
// regenerate the shown outputs with
//
//	go test ./cmd/mcountsim -run README -update
//
// which keeps the cuts and rewrites each shown line with the line that
// the tool now prints in its place (lines are matched with their digits
// masked; a line whose words changed is reported for a hand edit).
func TestREADME(t *testing.T) {
	readme, err := filepath.Abs("../../README.md")
	require.NoError(t, err)
	data, err := os.ReadFile(readme)
	require.NoError(t, err)
	blocks := readmeBlocks(string(data))
	htmlDir := t.TempDir()
	t.Chdir(filepath.Dir(readme))
	lines := strings.Split(string(data), "\n")
	ran, compared := 0, 0
	for _, b := range blocks {
		if b.skip || !b.mcountsim {
			continue
		}
		ran++
		var out strings.Builder
		for _, cmd := range b.commands {
			args := readmeArgs(t, cmd, htmlDir)
			code, stdout, stderr := mcountsim(args...)
			if code == 2 {
				t.Errorf("README.md:%d: %s: exit 2 (a usage or input error): %s", b.line, cmd, stderr)
				continue
			}
			out.WriteString(stdout)
		}
		if b.output == nil {
			continue
		}
		compared++
		actual := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
		fixed, err := matchShown(b.output.text, actual)
		switch {
		case sitesUpdating() && fixed != nil:
			copy(lines[b.output.line:], fixed) // same number of lines
		case sitesUpdating():
			t.Errorf("README.md:%d: cannot regenerate (edit it by hand): %v\nthe commands print:\n%s", b.output.line, err, out.String())
		case err != nil:
			t.Errorf("README.md:%d: the shown output of %q is stale: %v\n(regenerate: go test ./cmd/mcountsim -run README -update)",
				b.output.line, strings.Join(b.commands, "; "), err)
		}
	}
	require.Greater(t, ran, 5, "the README's commands were found")
	require.Greater(t, compared, 5, "the README's outputs were found")
	if sitesUpdating() && !t.Failed() {
		require.NoError(t, os.WriteFile(readme, []byte(strings.Join(lines, "\n")), 0o644))
	}
}

type readmeBlock struct {
	line      int // 0-based line of the first line inside the fence
	lang      string
	text      []string
	commands  []string
	mcountsim bool // every line is an mcountsim command
	skip      bool
	output    *readmeBlock
}

var commandPrefix = regexp.MustCompile(`^(go run \./cmd/mcountsim|mcountsim)( |$)`)

// readmeBlocks returns the ```sh blocks of a Markdown text, each with the
// plain block that follows it, if any.
func readmeBlocks(md string) []*readmeBlock {
	var blocks []*readmeBlock
	var cur *readmeBlock
	var prev *readmeBlock // the last sh block, waiting for its output
	skipNext := false
	sc := bufio.NewScanner(strings.NewReader(md))
	for n := 0; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &readmeBlock{line: n + 1, lang: strings.TrimPrefix(line, "```"), skip: skipNext}
			skipNext = false
		case cur != nil && line == "```":
			switch {
			case cur.lang == "sh":
				cur.mcountsim = len(cur.text) > 0
				for _, l := range cur.text {
					cur.commands = append(cur.commands, l)
					cur.mcountsim = cur.mcountsim && commandPrefix.MatchString(l)
				}
				blocks = append(blocks, cur)
				prev = cur
			case cur.lang == "" && prev != nil:
				prev.output = cur
				prev = nil
			default:
				prev = nil
			}
			cur = nil
		case cur != nil:
			cur.text = append(cur.text, line)
		case strings.TrimSpace(line) == "<!-- readme-test: skip -->":
			skipNext = true
		case strings.TrimSpace(line) != "":
			prev = nil // prose between a command and a block: not its output
		}
	}
	return blocks
}

// readmeArgs turns a shown command into run's arguments.
func readmeArgs(t *testing.T, cmd, htmlDir string) []string {
	words := shellWords(t, commandPrefix.ReplaceAllString(cmd, "mcountsim$2"))[1:]
	for i := range words {
		if words[i] == "--html" && i+1 < len(words) {
			words[i+1] = filepath.Join(htmlDir, filepath.Base(words[i+1]))
		}
	}
	return words
}

var digits = regexp.MustCompile(`[0-9]+`)

func shape(s string) string { return digits.ReplaceAllString(s, "#") }

// matchShown matches the shown lines (with `[...]` cuts) against the
// actual ones. Lines are aligned by shape (digits masked), then must be
// equal; fixed is the shown text with each kept line replaced by its
// actual counterpart.
func matchShown(shown, actual []string) (fixed []string, err error) {
	// Segments of consecutive kept lines, between cuts.
	type segment struct{ from, to int } // shown[from:to]
	var segs []segment
	start := 0
	for i := 0; i <= len(shown); i++ {
		if i == len(shown) || shown[i] == "[...]" {
			if i > start {
				segs = append(segs, segment{start, i})
			}
			start = i + 1
		}
	}
	leadingCut := len(shown) > 0 && shown[0] == "[...]"
	trailingCut := len(shown) > 0 && shown[len(shown)-1] == "[...]"
	fixed = append([]string(nil), shown...)
	at := 0 // next actual line
	fits := func(s segment, a int) bool {
		if a+s.to-s.from > len(actual) {
			return false
		}
		for k := s.from; k < s.to; k++ {
			if shape(shown[k]) != shape(actual[a+k-s.from]) {
				return false
			}
		}
		return true
	}
	var mismatches []string
	for si, s := range segs {
		a := -1
		switch {
		case si == 0 && !leadingCut:
			if fits(s, 0) {
				a = 0
			}
		case si == len(segs)-1 && !trailingCut:
			if e := len(actual) - (s.to - s.from); e >= at && fits(s, e) {
				a = e
			}
		default:
			for c := at; c+s.to-s.from <= len(actual); c++ {
				if fits(s, c) {
					a = c
					break
				}
			}
		}
		if a < 0 {
			return nil, fmt.Errorf("shown lines %d-%d (%q ...) are not printed (in that order)", s.from+1, s.to, shown[s.from])
		}
		for k := s.from; k < s.to; k++ {
			got := actual[a+k-s.from]
			if got != shown[k] {
				mismatches = append(mismatches, fmt.Sprintf("shown:   %s\nprinted: %s", shown[k], got))
			}
			fixed[k] = got
		}
		at = a + s.to - s.from
	}
	if len(segs) > 0 && !trailingCut && at != len(actual) {
		return nil, fmt.Errorf("the output goes on after the shown lines (add a [...] cut)")
	}
	if len(mismatches) > 0 {
		return fixed, fmt.Errorf("%d line(s) differ:\n%s", len(mismatches), strings.Join(mismatches, "\n"))
	}
	return fixed, nil
}

// matchShown itself: cuts, shapes, anchors.
func TestMatchShown(t *testing.T) {
	actual := []string{"a 1", "b 2", "c 3", "d 4"}
	for _, c := range []struct {
		shown []string
		ok    bool
		fixed []string
	}{
		{[]string{"a 1", "b 2", "c 3", "d 4"}, true, nil},
		{[]string{"a 1", "[...]", "d 4"}, true, nil},
		{[]string{"[...]", "c 3", "[...]"}, true, nil},
		{[]string{"a 1", "[...]"}, true, nil},
		{[]string{"a 1", "b 2"}, false, nil},                                      // output goes on
		{[]string{"[...]", "b 2"}, false, nil},                                    // b is not last
		{[]string{"c 3", "[...]"}, false, nil},                                    // c is not first
		{[]string{"a 1", "[...]", "d 9"}, false, []string{"a 1", "[...]", "d 4"}}, // stale figure, fixable
		{[]string{"a 1", "[...]", "x 4"}, false, nil},                             // stale words
	} {
		fixed, err := matchShown(c.shown, actual)
		if c.ok {
			require.NoError(t, err, "%q", c.shown)
			require.Equal(t, c.shown, fixed)
			continue
		}
		require.Error(t, err, "%q", c.shown)
		if c.fixed != nil {
			require.Equal(t, c.fixed, fixed)
		}
	}
}
