package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/kernel"
)

// disasm returns the disassembly of the instructions of [addr, end).
func disasm(t *testing.T, img *kernel.Image, addr, end uint64) []string {
	t.Helper()
	var out []string
	for addr < end {
		inst, err := riscv.Decode(addr, img.Text[addr-img.Base:])
		require.NoError(t, err, "%#x", addr)
		out = append(out, riscv.Disasm(&inst, addr, nil))
		addr += uint64(inst.Len)
	}
	return out
}

func symRange(t *testing.T, img *kernel.Image, name string) (uint64, uint64) {
	t.Helper()
	for _, s := range img.Symbols {
		if s.Name == name {
			return s.Addr, s.Addr + s.Size
		}
	}
	t.Fatalf("no symbol %s", name)
	return 0, 0
}

// The traced function of each era has the shape riscv64-linux-gnu-gcc 12
// -O2 -march=rv64gc gives int f(int x) { return g(x) + 1; } with the era's
// flags (the call's immediates are resolved here, as the linker would).
func TestRISCVTracedFunctions(t *testing.T) {
	body := []string{"addi sp,sp,-16", "sd ra,8(sp)", "auipc ra,0x0", "", "ld ra,8(sp)", "addiw a0,a0,1", "addi sp,sp,16", "ret"}
	nops := func(n int) []string {
		var s []string
		for i := 0; i < n; i++ {
			s = append(s, "nop")
		}
		return s
	}
	for _, c := range []struct {
		era           string
		want          []string
		siteOff, size int
		call          uint64 // rec->ip - site
	}{
		{kernel.RVMcount, []string{"addi sp,sp,-32", "sd s0,16(sp)", "sd ra,24(sp)", "addi s0,sp,32", "sd s1,8(sp)", "mv s1,a0", "mv a0,ra",
			"auipc ra,0x0", "", "mv a0,s1", "auipc ra,0x0", "", "ld ra,24(sp)", "ld s0,16(sp)", "ld s1,8(sp)", "addiw a0,a0,1", "addi sp,sp,32", "ret"}, 0xe, 8, 0},
		{kernel.RVPFE16, append(nops(8), body...), 0, 16, 0},
		{kernel.RVPFE8, append(nops(4), body...), 0, 8, 0},
		{kernel.RVAtomic, append(nops(4), body...), 0, 8, 4},
	} {
		t.Run(c.era, func(t *testing.T) {
			img, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: c.era})
			require.NoError(t, err)
			lo, hi := symRange(t, img, "f0")
			got := disasm(t, img, lo, hi)
			require.Len(t, got, len(c.want))
			for i, w := range c.want {
				if w != "" { // the jalr halves carry resolved offsets
					assert.Equal(t, w, got[i], "f0 instruction %d", i)
				}
			}
			require.Len(t, img.Sites, 1)
			s := img.Sites[0]
			assert.Equal(t, lo+uint64(c.siteOff), s.Addr)
			assert.Equal(t, c.size, s.Len)
			assert.Equal(t, s.Addr+c.call, s.Call)
			assert.Zero(t, lo%4, "functions are 4-byte aligned")
		})
	}
}

// The trampolines of each era, their returns and the symbols they need.
func TestRISCVTrampolines(t *testing.T) {
	for _, c := range []struct {
		era        string
		first, ret string
		regs       bool
	}{
		{kernel.RVMcount, "ld a1,-8(s0)", "ret", false},
		{kernel.RVPFE16, "addi sp,sp,-8", "ret", false},
		{kernel.RVPFE8, "addi sp,sp,-288", "jr t0", true},
		{kernel.RVAtomic, "addi sp,sp,-112", "jr t0", false},
	} {
		t.Run(c.era, func(t *testing.T) {
			img, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: c.era})
			require.NoError(t, err)
			lo, hi := symRange(t, img, "ftrace_caller")
			got := disasm(t, img, lo, hi)
			assert.Equal(t, c.first, got[0])
			assert.Equal(t, c.ret, got[len(got)-1])
			_, ok := img.Symbol("ftrace_regs_caller")
			assert.Equal(t, c.regs, ok)
			if c.regs {
				r, _ := img.Symbol("ftrace_regs_caller")
				assert.Equal(t, uint64(0x1100), r-lo)
				lo, hi := symRange(t, img, "ftrace_regs_caller")
				got := disasm(t, img, lo, hi)
				assert.Equal(t, []string{"li t1,0", "addi sp,sp,-288", "sd t0,0(sp)"}, got[:3])
				assert.Equal(t, []string{"jr t0", "jr t1"}, got[len(got)-2:])
			}
			_, ok = img.Symbol("_mcount")
			assert.Equal(t, c.era == kernel.RVMcount, ok)
			require.Len(t, img.Data, 1)
			assert.Equal(t, uint64(kernel.RISCVData), img.Data[0].Addr)
		})
	}
	_, err := kernel.Build(kernel.RISCV64, kernel.Config{Prologue: "fentry"})
	assert.EqualError(t, err, `kernel: unknown riscv64 prologue "fentry" (want mcount, pfe16, pfe8 or atomic)`)
	img, err := kernel.Build(kernel.RISCV64, kernel.Config{})
	require.NoError(t, err)
	assert.Equal(t, 8, img.Sites[0].Len)
	assert.Equal(t, img.Sites[0].Addr+4, img.Sites[0].Call, "the default is the atomic era")
}
