package isatest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ObjdumpLine is one instruction of objdump -D: its encoding as objdump
// prints it (hex digits) and its text, runs of white space made single.
type ObjdumpLine struct {
	Hex, Text string
}

// ParseObjdump reads the "   4:	e52de004 	push	{lr}	@ comment" lines
// of objdump -D into offset → line, cutting each text at the first of
// cuts (comment markers, " <" before a symbol).
func ParseObjdump(out string, cuts ...string) map[uint64]ObjdumpLine {
	m := map[uint64]ObjdumpLine{}
	for _, l := range strings.Split(out, "\n") {
		var off uint64
		var hex string
		if _, err := fmt.Sscanf(l, " %x:\t%s", &off, &hex); err != nil {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		if len(f) < 3 {
			continue
		}
		text := f[2]
		for _, c := range cuts {
			if i := strings.Index(text, c); i >= 0 {
				text = text[:i]
			}
		}
		m[off] = ObjdumpLine{Hex: hex, Text: strings.Join(strings.Fields(text), " ")}
	}
	return m
}

// Objdump disassembles code with the objdump at tool (args select the
// machine: "-marm", "-maarch64", …) as a raw binary and returns its lines
// by offset (ParseObjdump with cuts).
func Objdump(t testing.TB, tool string, args []string, code []byte, cuts ...string) map[uint64]ObjdumpLine {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "code.bin")
	if err := os.WriteFile(bin, code, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tool, append(append([]string{"-D", "-b", "binary"}, args...), bin)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, out)
	}
	return ParseObjdump(string(out), cuts...)
}
