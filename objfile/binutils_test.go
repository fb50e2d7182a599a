package objfile_test

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/objfile"
)

// fixtures returns the committed fixture objects and executables.
func fixtures(t testing.TB) []string {
	t.Helper()
	objs, err := filepath.Glob("testdata/*.o")
	require.NoError(t, err)
	exes, err := filepath.Glob("testdata/*.exe")
	require.NoError(t, err)
	all := append(objs, exes...)
	require.NotEmpty(t, all, "no fixtures: run testdata/build.sh")
	sort.Strings(all)
	return all
}

// readelfFor returns the readelf that build.sh's toolchain pairs with a
// fixture, and the Debian package that provides it.
func readelfFor(path string) (tool, pkg string) {
	base := filepath.Base(path)
	switch {
	case strings.HasPrefix(base, "arm64-"):
		return "aarch64-linux-gnu-readelf", "binutils-aarch64-linux-gnu"
	case strings.HasPrefix(base, "arm-"):
		return "arm-linux-gnueabi-readelf", "binutils-arm-linux-gnueabi"
	case strings.HasPrefix(base, "riscv64-"):
		return "riscv64-linux-gnu-readelf", "binutils-riscv64-linux-gnu"
	}
	return "readelf", "binutils"
}

// callBack gives, for the call relocation types against profiling hooks,
// how many bytes the call instruction starts before the relocated field.
var callBack = map[string]uint64{
	"R_ARM_CALL": 0, "R_ARM_PC24": 0, "R_ARM_JUMP24": 0, "R_ARM_THM_CALL": 0, "R_ARM_THM_JUMP24": 0,
	"R_X86_64_PLT32": 1, "R_X86_64_PC32": 1, "R_X86_64_GOTPCRELX": 2, "R_X86_64_GOTPCREL": 2,
	"R_AARCH64_CALL26": 0, "R_AARCH64_JUMP26": 0, "R_RISCV_CALL": 0, "R_RISCV_CALL_PLT": 0,
}

var hooks = map[string]bool{"__gnu_mcount_nc": true, "mcount": true, "__fentry__": true, "_mcount": true}

type readelfSection struct {
	name       string
	addr, size uint64
	exec       bool
}

// binutilsSites computes, with readelf only, the sites each method should
// find, as "section+0xoff" strings.
func binutilsSites(t *testing.T, tool, path string) map[objfile.Method][]string {
	t.Helper()
	run := func(args ...string) string {
		out, err := exec.Command(tool, append(args, path)...).Output()
		require.NoError(t, err, "%s %v", tool, args)
		return string(out)
	}
	// Sections.
	secs := map[string]readelfSection{}
	secNames := map[string]string{} // by index
	for _, line := range strings.Split(run("-SW"), "\n") {
		i := strings.Index(line, "]")
		if !strings.HasPrefix(strings.TrimSpace(line), "[") || i < 0 {
			continue
		}
		idx := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[:i]), "["))
		f := strings.Fields(line[i+1:])
		if len(f) < 9 || f[0] == "Name" {
			continue
		}
		addr, err1 := strconv.ParseUint(f[2], 16, 64)
		size, err2 := strconv.ParseUint(f[4], 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		flags := ""
		if len(f) == 10 {
			flags = f[6]
		}
		secs[f[0]] = readelfSection{f[0], addr, size, strings.Contains(flags, "X") && f[1] != "NOBITS"}
		secNames[idx] = f[0]
	}
	// Symbols: the section each one is defined in (for local labels such
	// as RISC-V's .LPFE1, which the tables' relocations refer to).
	symSec := map[string]string{}
	for _, line := range strings.Split(run("-sW"), "\n") {
		f := strings.Fields(line)
		if len(f) == 8 && strings.HasSuffix(f[0], ":") {
			if name, ok := secNames[f[6]]; ok {
				symSec[f[7]] = name
			}
		}
	}
	is64 := strings.Contains(run("-h"), "ELF64")
	width := 4
	if is64 {
		width = 8
	}
	// Table contents, as little-endian words.
	words := func(table string) []uint64 {
		s, ok := secs[table]
		if !ok {
			return nil
		}
		var data []byte
		sc := bufio.NewScanner(strings.NewReader(run("-x", table)))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 2 || !strings.HasPrefix(f[0], "0x") {
				continue
			}
			for _, g := range f[1:] {
				if uint64(len(data)) >= s.size {
					break
				}
				b, err := hex.DecodeString(g)
				if err != nil || len(g) > 8 {
					break
				}
				data = append(data, b...)
			}
		}
		require.Len(t, data, int(s.size), "hex dump of %s", table)
		var ws []uint64
		for i := 0; i+width <= len(data); i += width {
			var w uint64
			for j := width - 1; j >= 0; j-- {
				w = w<<8 | uint64(data[i+j])
			}
			ws = append(ws, w)
		}
		return ws
	}
	site := func(sec string, off uint64) string { return fmt.Sprintf("%s+%#x", sec, off) }
	want := map[objfile.Method][]string{}
	tables := map[string]objfile.Method{objfile.McountLocSection: objfile.MethodMloc, objfile.PatchableEntrySection: objfile.MethodPFE}
	arm := strings.Contains(run("-h"), "ARM") && !is64
	relocated := map[string]bool{}
	// addrSite records the site at link-time address addr of an entry of
	// a linked file's table.
	addrSite := func(table string, addr uint64) {
		found := false
		for _, s := range secs {
			if s.exec && s.addr != 0 && addr >= s.addr && addr < s.addr+s.size {
				want[tables[table]] = append(want[tables[table]], site(s.name, addr-s.addr))
				found = true
			}
		}
		require.True(t, found, "%s entry %#x outside executable sections", table, addr)
	}

	// Relocations.
	var target string
	for _, line := range strings.Split(run("-rW"), "\n") {
		if strings.HasPrefix(line, "Relocation section '") {
			name := strings.SplitN(line, "'", 3)[1]
			target = strings.TrimPrefix(strings.TrimPrefix(name, ".rela"), ".rel")
			continue
		}
		f := strings.Fields(line)
		if target == "" || len(f) < 3 {
			continue
		}
		off, err := strconv.ParseUint(f[0], 16, 64)
		if err != nil {
			continue
		}
		// Position-independent files: a RELATIVE dynamic relocation
		// (.rela.dyn, .rel.dyn) whose offset falls inside a table fills
		// in an entry with its addend, which REL keeps in the data.
		if strings.HasSuffix(f[2], "_RELATIVE") {
			for table := range tables {
				s, ok := secs[table]
				if !ok || s.addr == 0 || off < s.addr || off >= s.addr+s.size {
					continue
				}
				relocated[table] = true
				var addr uint64
				if len(f) >= 4 {
					addr, err = strconv.ParseUint(f[3], 16, 64)
					require.NoError(t, err, line)
				} else {
					addr = words(table)[(off-s.addr)/uint64(width)]
				}
				if arm {
					addr &^= 1
				}
				addrSite(table, addr)
			}
			continue
		}
		if len(f) < 5 {
			continue
		}
		typ, sym := f[2], f[4]
		if m, ok := tables[target]; ok {
			relocated[target] = true
			var addend uint64
			if len(f) >= 7 {
				a, err := strconv.ParseUint(f[6], 16, 64)
				require.NoError(t, err, line)
				addend = a
				if f[5] == "-" {
					addend = -a
				}
			} else {
				addend = words(target)[off/uint64(width)] // REL: in the data
			}
			symval, err := strconv.ParseUint(f[3], 16, 64)
			require.NoError(t, err, line)
			pos := symval + addend
			if arm {
				pos &^= 1
			}
			sec := sym
			if _, isSection := secs[sym]; !isSection {
				sec = symSec[sym]
			}
			require.NotEmpty(t, sec, "%s entry against unknown symbol %s", target, sym)
			want[m] = append(want[m], site(sec, pos))
			continue
		}
		back, isCall := callBack[typ]
		if secs[target].exec && isCall && hooks[sym] {
			want[objfile.MethodReloc] = append(want[objfile.MethodReloc], site(target, off-back))
		}
	}
	// Linked files: absolute addresses in the tables.
	for table := range tables {
		if _, ok := secs[table]; !ok || relocated[table] {
			continue
		}
		for _, addr := range words(table) {
			addrSite(table, addr)
		}
	}
	for m := range want {
		sort.Strings(want[m])
	}
	return want
}

// TestSitesMatchBinutils checks, for every fixture, that each method finds
// exactly the sites readelf's view of the relocations and tables implies.
func TestSitesMatchBinutils(t *testing.T) {
	for _, path := range fixtures(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tool, pkg := readelfFor(path)
			oracle.Tool(t, pkg, "the sites against readelf's (objfile)", tool)
			want := binutilsSites(t, tool, path)
			f, err := objfile.Open(path)
			require.NoError(t, err)
			sites, err := f.Sites()
			require.NoError(t, err)
			got := map[objfile.Method][]string{}
			for _, s := range sites {
				for _, m := range s.Methods {
					got[m] = append(got[m], fmt.Sprintf("%s+%#x", s.Section, s.SectionOffset))
				}
			}
			for _, m := range []objfile.Method{objfile.MethodReloc, objfile.MethodMloc, objfile.MethodPFE} {
				sort.Strings(got[m])
				require.Equal(t, want[m], got[m], "method %v", m)
			}
			require.NotEmpty(t, sites, "every fixture has sites")
		})
	}
}
