package isatest

import (
	"fmt"
	"strings"
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
