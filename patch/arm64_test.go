package patch

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
)

func arm64Image(t *testing.T, prologue string) *kernel.Image {
	t.Helper()
	img, err := kernel.Build(kernel.ARM64, kernel.Config{Prologue: prologue})
	require.NoError(t, err)
	return img
}

// The arm64 pieces, as bytes in text order (little-endian words).
func TestAssembleARM64(t *testing.T) {
	img := arm64Image(t, kernel.ARM64PFE42) // f0 at 0x400030, ftrace_caller 0x400058
	for _, c := range []struct {
		insn string
		addr uint64
		want string
	}{
		{"nop", 0x400030, "1f2003d5"},
		{"mov x9, x30", 0x400030, "e9031eaa"},
		{"MOV  X9,  LR", 0x400030, "e9031eaa"},
		{"mov x0, x30", 0x400030, "e0031eaa"},
		{"bl ftrace_caller", 0x400034, "09000094"}, // 94000009: +0x24
		{"b ftrace_caller", 0x400034, "09000014"},
		{"bl .+8", 0x400034, "02000094"},
		{"d503201f", 0x400034, "1f2003d5"},
		{".quad tracer_ops", 0x400028, "0010400000000000"},
		{".quad ftrace_nop_ops", 0x400028, "1010400000000000"},
		{".quad 0x1122334455667788", 0x400028, "8877665544332211"},
	} {
		b, err := Assemble(img, c.insn, c.addr)
		require.NoError(t, err, c.insn)
		assert.Equal(t, c.want, hex.EncodeToString(b), c.insn)
	}
	for _, c := range []struct{ insn, err string }{
		{"bl nowhere", `"bl nowhere": unknown symbol "nowhere"`},
		{".quad nowhere", `".quad nowhere": unknown symbol "nowhere"`},
		{"mov x1, x2", `cannot assemble "mov x1, x2" (write it as 8 hex digits)`},
		{"00000000", `"00000000" (00000000) does not decode`},
	} {
		_, err := Assemble(img, c.insn, 0x400030)
		assert.EqualError(t, err, c.err, c.insn)
	}
	_, err := Assemble(img, ".quad tracer_ops", 0x400034)
	assert.EqualError(t, err, `".quad tracer_ops": a literal at 0x400034 is not 8-byte aligned`)
}

// Each arm64 built-in validates against the layout it names, and only
// that one; its program writes what the kernel writes.
func TestARM64Builtins(t *testing.T) {
	want := map[string]string{
		"arm64-nop-bl": kernel.ARM64PFE2, "arm64-call-ops": kernel.ARM64PFE42, "arm64-mcount": kernel.ARM64PG,
		"arm64-both-plain": kernel.ARM64PFE2, "arm64-both-sm": kernel.ARM64PFE2,
	}
	for name, layout := range want {
		s, ok := Lookup(kernel.ARM64, name)
		require.True(t, ok, name)
		assert.Equal(t, layout, s.Prologue, name)
		require.NoError(t, s.Validate(arm64Image(t, layout)), name)
	}
	// The layouts a strategy does not fit: no room for the entry pair on
	// a -pg site, none for the literal on a pfe2 one.
	for _, c := range []struct{ name, layout string }{
		{"arm64-nop-bl", kernel.ARM64PG}, {"arm64-both-plain", kernel.ARM64PG}, {"arm64-both-sm", kernel.ARM64PG},
		{"arm64-call-ops", kernel.ARM64PFE2}, {"arm64-call-ops", kernel.ARM64PG},
	} {
		s, _ := Lookup(kernel.ARM64, c.name)
		assert.ErrorIs(t, s.Validate(arm64Image(t, c.layout)), ErrInvalid, "%s on %s", c.name, c.layout)
	}
	type store struct {
		op   string
		addr uint64
		hex  string
	}
	for _, c := range []struct {
		name  string
		boot  []store
		steps []store // enable, then disable
	}{
		{"arm64-nop-bl", []store{{"", 0x400028, "e9031eaa"}},
			[]store{{"store", 0x40002c, "09000094"}, {"store", 0x40002c, "1f2003d5"}}},
		{"arm64-call-ops", []store{{"", 0x400028, "1010400000000000"}, {"", 0x400030, "e9031eaa"}},
			[]store{{"store", 0x400028, "0010400000000000"}, {"store", 0x400034, "09000094"},
				{"store", 0x400028, "1010400000000000"}, {"store", 0x400034, "1f2003d5"}}},
		{"arm64-mcount", []store{{"", 0x400040, "1f2003d5"}},
			[]store{{"store", 0x400040, "09000094"}, {"store", 0x400040, "1f2003d5"}}},
		{"arm64-both-plain", []store{{"", 0x400028, "1f2003d5"}, {"", 0x40002c, "1f2003d5"}},
			[]store{{"store", 0x400028, "e9031eaa"}, {"store", 0x40002c, "09000094"},
				{"store", 0x400028, "1f2003d5"}, {"store", 0x40002c, "1f2003d5"}}},
		{"arm64-both-sm", []store{{"", 0x400028, "1f2003d5"}, {"", 0x40002c, "1f2003d5"}},
			[]store{{"stop_machine", 0x400028, "e9031eaa"}, {"stop_machine", 0x40002c, "09000094"},
				{"stop_machine", 0x400028, "1f2003d5"}, {"stop_machine", 0x40002c, "1f2003d5"}}},
	} {
		s, _ := Lookup(kernel.ARM64, c.name)
		prog, err := Compile(s, arm64Image(t, s.Prologue), 2)
		require.NoError(t, err, c.name)
		var boot, steps []store
		for _, b := range prog.Boot {
			boot = append(boot, store{"", b.Addr, hex.EncodeToString(b.Bytes)})
		}
		for _, op := range prog.Ops {
			for _, st := range op.Stores {
				steps = append(steps, store{op.Kind.String(), st.Addr, hex.EncodeToString(st.Bytes)})
			}
		}
		assert.Equal(t, c.boot, boot, c.name)
		assert.Equal(t, c.steps, steps, c.name)
	}
}

// A strategy file names its layout; Format writes it back.
func TestARM64LayoutInFiles(t *testing.T) {
	s, _ := Lookup(kernel.ARM64, "arm64-call-ops")
	text := Format(s)
	assert.Contains(t, text, "layout   pfe4-2\n")
	f := parseString(t, "ops.strategy", text)
	assert.Equal(t, kernel.ARM64PFE42, f.Strategy.Prologue)
	// Without the layout line, the default (pfe2) has no room for the literal.
	_, err := ParseFile("ops.strategy", strings.NewReader(strings.Replace(text, "layout   pfe4-2\n", "", 1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside the 8-byte site")
}
