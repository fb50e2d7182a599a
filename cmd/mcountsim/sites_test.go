package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The -update flag rewrites the golden files. It may be shared with other
// tests of this package, so define it only if nobody has.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func sitesUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.(flag.Getter).Get() == true
}

// sitesFixtures are the objfile package's fixture objects.
func sitesFixtures(t *testing.T) []string {
	t.Helper()
	objs, err := filepath.Glob("../../objfile/testdata/*.o")
	require.NoError(t, err)
	exes, err := filepath.Glob("../../objfile/testdata/*.exe")
	require.NoError(t, err)
	require.NotEmpty(t, objs)
	return append(objs, exes...)
}

func sitesRun(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = runSites(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func sitesGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "sites", name)
	if sitesUpdating() {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file: run go test -run TestSites -update")
	require.Equal(t, string(want), got, "golden %s differs (go test -run TestSites -update to refresh)", path)
}

// TestSitesGoldenJSON compares `mcountsim sites --json` on every fixture
// with its golden JSON Lines file.
func TestSitesGoldenJSON(t *testing.T) {
	for _, path := range sitesFixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			code, out, errOut := sitesRun("--json", path)
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.NotEmpty(t, lines)
			for _, line := range lines {
				var rec map[string]any
				require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
				for _, key := range []string{"file", "arch", "section", "function", "site_offset",
					"function_offset", "methods", "reloc_type", "bytes", "disasm"} {
					assert.Contains(t, rec, key)
				}
				assert.Equal(t, path, rec["file"])
			}
			sitesGolden(t, filepath.Base(path)+".jsonl", out)
		})
	}
}

// TestSitesText checks the text format and the total line.
func TestSitesText(t *testing.T) {
	code, out, errOut := sitesRun("../../objfile/testdata/arm-thumb-mloc.o", "../../objfile/testdata/x86-objtool.o",
		"../../objfile/testdata/arm64-pfe4-2.o")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	require.True(t, strings.HasSuffix(out, "\n34 sites in 34 functions\n"), out)
	sitesGolden(t, "text.golden", out)
}

// TestSitesErrors checks that every failure exits 2 with one line on
// stderr naming the file, and prints nothing on stdout.
func TestSitesErrors(t *testing.T) {
	dir := t.TempDir()
	notELF := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(notELF, []byte("hello\n"), 0o644))
	data, err := os.ReadFile("../../objfile/testdata/arm-pg.o")
	require.NoError(t, err)
	truncated := filepath.Join(dir, "cut.o")
	require.NoError(t, os.WriteFile(truncated, data[:len(data)/2], 0o644))
	mips := filepath.Join(dir, "mips.o")
	bad := append([]byte(nil), data...)
	bad[18] = 8 // e_machine = EM_MIPS
	require.NoError(t, os.WriteFile(mips, bad, 0o644))
	missing := filepath.Join(dir, "missing.o")

	tests := []struct {
		name string
		args []string
		want string // stderr
	}{
		{"no file", nil, "mcountsim sites: no FILE given (see mcountsim sites --help)\n"},
		{"bad flag", []string{"--jsn", "x.o"}, "mcountsim sites: flag provided but not defined: -jsn (see mcountsim sites --help)\n"},
		{"missing", []string{missing}, "mcountsim sites: " + missing + ": no such file or directory\n"},
		{"not ELF", []string{notELF}, "mcountsim sites: " + notELF + ": not an ELF file (no \\x7fELF magic)\n"},
		{"truncated", []string{"--json", truncated}, "mcountsim sites: " + truncated + ": "},
		{"unsupported machine", []string{"../../objfile/testdata/arm-pg.o", mips}, "mcountsim sites: " + mips + ": unsupported machine EM_MIPS (ELFCLASS32, ELFDATA2LSB)\n"},
		{"directory", []string{dir}, "mcountsim sites: " + dir + ": not a regular file (a directory)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := sitesRun(tt.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.True(t, strings.HasPrefix(errOut, tt.want), "stderr %q, want prefix %q", errOut, tt.want)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %q", errOut)
		})
	}
}

// TestSitesHelp checks --help: usage with examples on stdout, exit 0.
func TestSitesHelp(t *testing.T) {
	code, out, errOut := sitesRun("--help")
	require.Equal(t, 0, code)
	require.Empty(t, errOut)
	require.Contains(t, out, "usage: mcountsim sites [--json] FILE...")
	require.Contains(t, out, "Examples:")
	require.Contains(t, out, "-json")
}
