package kernel_test

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/objfile"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/stretchr/testify/require"
)

// The A64 words the BTI tests look for.
const (
	a64BTIC   = 0xd503245f // bti c
	a64Nop    = 0xd503201f
	a64MovX9  = 0xaa1e03e9 // mov x9, x30
	a64BLMask = 0xfc000000
	a64BL     = 0x94000000
)

// btiObjects are bti.c's objects (testdata/obj/build.sh) at the flags of
// CONFIG_ARM64_BTI_KERNEL, with their layout and the strategy that
// patches it.
var btiObjects = []struct{ file, layout, strategy string }{
	{"arm64-pfe2-bti.o", kernel.ARM64PFE2, "arm64-nop-bl"},     // -mbranch-protection=standard
	{"arm64-pfe2-btionly.o", kernel.ARM64PFE2, "arm64-nop-bl"}, // -mbranch-protection=bti
	{"arm64-pfe4-2-bti.o", kernel.ARM64PFE42, "arm64-call-ops"},
}

// TestBTISites (issue 21): with -mbranch-protection=bti or standard, gcc
// puts "bti c" at the entry of every function that may be called
// indirectly, before the patchable NOPs, and LinkObject finds rec->ip as
// Linux's ftrace_call_adjust does: with =2 the site is the two words at
// entry+4 (rec->ip entry+8); with =4,2 it is the literal at entry-8, the
// bti c and the two words after it (rec->ip entry+8), the bti c a Gap no
// strategy writes. t_twice, a static function only called directly, has
// no landing pad: its site is where it is without BTI.
func TestBTISites(t *testing.T) {
	for _, fx := range btiObjects {
		o, err := kernel.LoadObject(filepath.Join(objDir, fx.file), kernel.ObjectConfig{Function: "t_apply", Args: []int64{4, 6, 7}})
		require.NoError(t, err, fx.file)
		img := o.Image
		require.Equal(t, fx.layout, img.Prologue, fx.file)
		word := func(addr uint64) uint32 { return binary.LittleEndian.Uint32(img.Text[addr-img.Base:]) }
		sites := map[string]kernel.Site{}
		for _, s := range img.Sites {
			sites[s.Func] = s
		}
		require.Len(t, sites, 5, fx.file)
		for _, fn := range []string{"op_add", "op_mul", "op_sub", "t_apply", "t_twice"} {
			sym, ok := img.Symbol(fn)
			require.True(t, ok, fn)
			s := sites[fn]
			pad := fn != "t_twice"
			want := kernel.Site{Func: fn, Addr: sym, Len: 8, Call: sym + 4}
			switch {
			case fx.layout == kernel.ARM64PFE2 && pad:
				want = kernel.Site{Func: fn, Addr: sym + 4, Len: 8, Call: sym + 8}
			case fx.layout == kernel.ARM64PFE42 && pad:
				want = kernel.Site{Func: fn, Addr: sym - 8, Len: 20, Call: sym + 8, Gap: 8}
			case fx.layout == kernel.ARM64PFE42:
				want = kernel.Site{Func: fn, Addr: sym - 8, Len: 16, Call: sym + 4}
			}
			require.Equal(t, want, s, "%s %s", fx.file, fn)
			if pad {
				require.Equal(t, uint32(a64BTIC), word(sym), "%s: %s starts with bti c", fx.file, fn)
			}
			require.Equal(t, uint32(a64Nop), word(s.Call), "%s %s: rec->ip is a NOP in the object", fx.file, fn)
		}

		// objfile finds the same sites: the entry of __patchable_function_entries.
		f, err := objfile.Open(filepath.Join(objDir, fx.file))
		require.NoError(t, err)
		found, err := f.Sites()
		require.NoError(t, err)
		offs := map[string]int64{}
		for _, s := range found {
			require.Equal(t, []objfile.Method{objfile.MethodPFE}, s.Methods, s.FunctionRef())
			require.Equal(t, "nop", s.Disasm, s.FunctionRef())
			offs[s.Function] = s.FunctionOffset
		}
		want := map[string]int64{"op_add": 4, "op_mul": 4, "op_sub": 4, "t_apply": 4, "t_twice": 0}
		if fx.layout == kernel.ARM64PFE42 {
			want = map[string]int64{"op_add": -8, "op_mul": -8, "op_sub": -8, "t_apply": -8, "t_twice": -8}
		}
		require.Equal(t, want, offs, fx.file)
	}
}

// TestBTIRuns: t_apply calls an op_* through its table (blr onto the
// callee's bti c) and tail-calls t_twice; every call returns what it
// returns under qemu-aarch64, sites disabled and enabled, and with the
// sites booted enabled the patcher's words are where Linux writes them:
// mov x9, x30 and the bl after the bti c, which stays (and the CALL_OPS
// literal at entry-8, which points at tracer_ops).
func TestBTIRuns(t *testing.T) {
	calls := []struct {
		c    call
		want int32
	}{
		{call{"t_apply", []int64{4, 6, 7}}, (6*7)*2 + 1},
		{call{"t_apply", []int64{3, 6, 7}}, (6+7)*2 + 1},
		{call{"t_apply", []int64{5, 6, 7}}, (6-7)*2 + 1},
		{call{"op_add", []int64{4, 6}}, 10},
	}
	for _, fx := range btiObjects {
		var nat map[string]int32
		if haveTools(t, "the values qemu returned", "arm64") {
			var cs []call
			for _, c := range calls {
				cs = append(cs, c.c)
			}
			nat = native(t, "arm64", "btiharness.c", fx.file, cs, nil)
		}
		for _, c := range calls {
			if nat != nil {
				require.Equal(t, c.want, nat[fx.file+" "+c.c.String()], "%s %v natively", fx.file, c.c)
			}
			for _, st := range []string{fx.strategy, fx.strategy + "+enabled"} {
				got, returned, traced, m := runObject(t, fx.file, st, c.c)
				require.Empty(t, m.Hazards(), "%s %v under %q", fx.file, c.c, st)
				require.True(t, returned, "%s %v under %q never returned", fx.file, c.c, st)
				require.Equal(t, c.want, got, "%s %v under %q", fx.file, c.c, st)
				require.Equal(t, st != fx.strategy, traced, "%s %v under %q: the tracer runs when enabled", fx.file, c.c, st)
				if st == fx.strategy {
					continue
				}
				img := m.Image()
				word := func(addr uint64) uint32 { return binary.LittleEndian.Uint32(m.Text()[addr-img.Base:]) }
				ftrace, _ := img.Symbol("ftrace_caller")
				ops, _ := img.Symbol("tracer_ops")
				for _, fn := range []string{"op_add", "t_twice"} {
					sym, _ := img.Symbol(fn)
					mov, bl := sym, sym+4 // no landing pad
					if fn == "op_add" {
						require.Equal(t, uint32(a64BTIC), word(sym), "%s %s: the bti c stays", fx.file, fn)
						mov, bl = sym+4, sym+8
					}
					require.Equal(t, uint32(a64MovX9), word(mov), "%s %s: mov x9, x30 at %#x", fx.file, fn, mov)
					require.Equal(t, uint32(a64BL), word(bl)&a64BLMask, "%s %s: bl at %#x", fx.file, fn, bl)
					require.Equal(t, int64(ftrace)-int64(bl), int64(int32(word(bl)<<6))>>4, "%s %s: the bl goes to ftrace_caller", fx.file, fn)
					if fx.layout == kernel.ARM64PFE42 {
						require.Equal(t, ops, binary.LittleEndian.Uint64(m.Text()[sym-8-img.Base:]), "%s %s: the literal", fx.file, fn)
					}
				}
			}
		}
	}

	// paciasp as the landing pad before the NOPs (pacentry.s): the site
	// is at entry+4 as after a bti c.
	o, err := kernel.LoadObject(filepath.Join(objDir, "arm64-pfe2-pacentry.o"), kernel.ObjectConfig{Function: "p_inc", Args: []int64{4}})
	require.NoError(t, err)
	sym, _ := o.Image.Symbol("p_inc")
	require.Equal(t, []kernel.Site{{Func: "p_inc", Addr: sym + 4, Len: 8, Call: sym + 8}}, o.Image.Sites)
	got, returned, traced, m := runObject(t, "arm64-pfe2-pacentry.o", "arm64-nop-bl+enabled", call{"p_inc", []int64{4}})
	require.Empty(t, m.Hazards())
	require.True(t, returned && traced)
	require.Equal(t, int32(5), got)

	// A word that is no landing pad before the NOPs (notpad.s) is refused.
	_, err = kernel.LoadObject(filepath.Join(objDir, "arm64-pfe2-notpad.o"), kernel.ObjectConfig{Function: "q_inc", Args: []int64{4}})
	require.EqualError(t, err, "testdata/obj/arm64-pfe2-notpad.o: unsupported object: site at q_inc+0x4 (nop) is not two entry NOPs (-fpatchable-function-entry=2), four around the entry (=4,2) or bl _mcount (-pg), after a BTI landing pad or not")
}

// TestBTIGapIsSkipped: a form's offsets skip the bti c of a CALL_OPS
// site: offset 8 is entry+4, so the 8-byte literal cannot go there (it
// would not be 8-aligned), while a word can.
func TestBTIGapIsSkipped(t *testing.T) {
	o, err := kernel.LoadObject(filepath.Join(objDir, "arm64-pfe4-2-bti.o"), kernel.ObjectConfig{Function: "op_add", Args: []int64{4, 6}})
	require.NoError(t, err)
	sym, _ := o.Image.Symbol("op_add")
	require.Equal(t, sym+4, o.Image.Sites[0].At(8))
	require.Equal(t, sym-4, o.Image.Sites[0].At(4))
	require.Equal(t, 16, o.Image.Sites[0].Span())
	s, ok := patch.Lookup(kernel.ARM64, "arm64-call-ops")
	require.True(t, ok)
	require.NoError(t, s.Validate(o.Image))
	bad := *s
	bad.Forms = append([]patch.Form{{Name: "late", Pieces: []patch.Piece{{Off: 8, Insn: ".quad tracer_ops"}}}}, s.Forms...)
	require.EqualError(t, bad.Validate(o.Image), fmt.Sprintf("invalid strategy: form late, offset 8: \".quad tracer_ops\": a literal at %#x is not 8-byte aligned", sym+4))
	bad.Forms[0].Pieces[0].Off = 16
	require.EqualError(t, bad.Validate(o.Image), "invalid strategy: form late: offset 16 is outside the 16-byte site")
}

// TestBTIVerdicts: the same verdicts as without BTI, at the CLI's
// defaults: arm64-nop-bl SAFE and arm64-both-sm UNSAFE at entry+4,
// arm64-call-ops SAFE around the landing pad.
func TestBTIVerdicts(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("searches: slow under the race detector")
	}
	for _, v := range []struct {
		file, strategy string
		c              call
		want           explore.Verdict
	}{
		{"arm64-pfe2-bti.o", "arm64-nop-bl", call{"t_apply", []int64{4, 6, 7}}, explore.Safe},
		{"arm64-pfe2-bti.o", "arm64-both-sm", call{"t_apply", []int64{4, 6, 7}}, explore.Unsafe},
		{"arm64-pfe2-btionly.o", "arm64-nop-bl", call{"op_add", []int64{4, 6}}, explore.Safe},
		{"arm64-pfe2-btionly.o", "arm64-both-sm", call{"op_add", []int64{4, 6}}, explore.Unsafe},
		{"arm64-pfe4-2-bti.o", "arm64-call-ops", call{"op_add", []int64{4, 6}}, explore.Safe},
		{"arm64-pfe2-pacentry.o", "arm64-nop-bl", call{"p_inc", []int64{4}}, explore.Safe},
		{"arm64-pfe2-pacentry.o", "arm64-both-sm", call{"p_inc", []int64{4}}, explore.Unsafe},
	} {
		got, what, _, err := corpusCheck(filepath.Join(objDir, v.file), kernel.ARM64, v.strategy, v.c)
		require.NoError(t, err)
		require.Equal(t, v.want, got, "%s %v under %s: %s", v.file, v.c, v.strategy, what)
	}
}

// TestBigFrameNative (issue 21): bigframe.c's big_frame(3), whose frame
// is 5 KiB, returns 13578 under qemu-arm (cmd/mcountsim's
// TestStackWordsBigFrame checks the simulator against the same value);
// its task faults below a 1024-word stack and runs within 2048 words.
func TestBigFrameNative(t *testing.T) {
	const file, want = "arm-bigframe.o", 13578
	c := call{"big_frame", []int64{3}}
	if haveTools(t, "the value qemu returned", "arm") {
		nat := native(t, "arm", "bigframeharness.c", file, []call{c}, nil)
		require.Equal(t, int32(want), nat[file+" "+c.String()])
	}
	o, err := kernel.LoadObject(filepath.Join(objDir, file), kernel.ObjectConfig{Function: c.fn, Args: c.args})
	require.NoError(t, err)
	st, _ := patch.Lookup(kernel.ARM, "jmp-over")
	for _, w := range []struct {
		words int
		fault string
	}{{1024, "store of 4 bytes at 0x7efffbe8 outside the task's stack [0x7f000000,0x7f001000) and data: page 0x7efff000 is not mapped"}, {2048, ""}} {
		sc := explore.Scenario{Arch: kernel.ARM, Strategy: st, StackWords: w.words, Image: func() (*kernel.Image, error) { return o.Image, nil }, ObjectFile: file, Function: c.fn, Args: c.args}
		err := explore.Preflight(sc)
		if w.fault == "" {
			require.NoError(t, err)
			continue
		}
		require.ErrorContains(t, err, w.fault)
	}
}
