package kernel_test

import (
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/stretchr/testify/require"
)

// TestJumpTable (issue 21): an object with a static branch links, its
// __jump_table laid out as data with the entry's relocations applied (on
// x86-64 the key's R_X86_64_PC64, which LinkObject refused), and the
// function runs the disabled key's nop: j_key(7, 5) returns 7*3 + 5, as
// under qemu-user.
func TestJumpTable(t *testing.T) {
	c := call{"j_key", []int64{7, 5}}
	for _, fx := range []struct{ file, strategy string }{
		{"x86-fentry-jumplabel.o", "text-poke-bp"}, {"arm-jumplabel.o", "jmp-over"},
		{"arm64-pfe2-jumplabel.o", "arm64-nop-bl"}, {"rv-atomic-jumplabel.o", "rv-atomic"},
	} {
		got, returned, _, m := runObject(t, fx.file, fx.strategy, c)
		require.Empty(t, m.Hazards(), fx.file)
		require.True(t, returned, fx.file)
		require.Equal(t, int32(26), got, fx.file)
	}
	o, err := kernel.LoadObject(filepath.Join(objDir, "x86-fentry-jumplabel.o"), kernel.ObjectConfig{Function: "j_key"})
	require.NoError(t, err)
	seg := map[string]kernel.Segment{}
	for _, s := range o.Image.Data {
		seg[s.Name] = s
	}
	jt, bss := seg["__jump_table"], seg[".bss"]
	require.Len(t, jt.Bytes, 16)
	// The key, jl_key at .bss+0, as an offset from the entry's third field.
	require.Equal(t, bss.Addr-(jt.Addr+8), binary.LittleEndian.Uint64(jt.Bytes[8:]))
	// The branch: the 5-byte nop, at the offset from the first field.
	nop := jt.Addr + uint64(int64(int32(binary.LittleEndian.Uint32(jt.Bytes))))
	fn, ok := o.Image.Symbol("j_key")
	require.True(t, ok)
	require.Equal(t, []byte{0x0f, 0x1f, 0x44, 0x00, 0x00}, o.Image.Text[nop-o.Image.Base:nop-o.Image.Base+5])
	require.Greater(t, nop, fn)
}
