package x86

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The forms differential test runs each instruction form below, as its
// exact bytes, on random states three ways: on this executor, on the host
// CPU (when it is x86-64 and has the CPUID features the form needs) and
// under qemu-x86_64 -cpu max, through a static C harness that places the
// same bytes between a popfq and a pushfq. A state is rax, rcx, rdx, the
// six status flags and three memory words; rsi points to the middle word,
// so the memory forms address (%rsi). Every register and word is compared
// in full (a 32-bit write must zero-extend, an 8- or 16-bit one must keep
// the rest), and the flags the SDM defines for the form and state
// (definedFlags; "unaffected" counts as defined).

// form is one instruction form of the test.
type form struct {
	name  string
	code  string // hex bytes
	size  int    // operand size in bytes
	kind  byte   // selects the generator and the defined flags, see below
	needs string // a /proc/cpuinfo flag the host needs for it ("" none)
}

// Form kinds.
const (
	kMul      = 'm' // MUL, IMUL (one or three operands): CF, OF
	kDiv      = 'd' // DIV: no flag; the state is chosen so that no #DE occurs
	kIdiv     = 'i' // IDIV, likewise
	kMove     = 'v' // no flag changes: CBW..CQO, BSWAP, CMOVcc, SETcc, MOVBE, MOVSX/ZX, LEA
	kRotate   = 'r' // ROL, ROR by CL or an immediate (count in the form's last byte)
	kRotC     = 'R' // RCL, RCR, likewise
	kDouble   = 'h' // SHLD, SHRD by CL or an immediate
	kCount    = 'c' // TZCNT, LZCNT: CF, ZF
	kPopcnt   = 'p' // POPCNT: all six
	kScan     = 's' // BSF, BSR: ZF; the destination is undefined for a zero source
	kBit      = 'b' // BT*: CF (ZF unaffected)
	kBitMem   = 'B' // BT* with a register offset into (%rsi): CF, ZF
	kArith    = 'a' // XADD, CMPXCHG: all six
	kCmpxchg  = 'x' // CMPXCHG: all six; the accumulator matches half the time
	kCmpxchgM = 'X' // CMPXCHG to (%rsi), likewise
)

func sized(name, code string, sizes ...int) []form {
	var out []form
	for _, sz := range sizes {
		var pre string
		switch sz {
		case 2:
			pre = "66 "
		case 8:
			pre = "48 "
		}
		c := strings.ReplaceAll(code, "P ", pre)
		if sz == 1 {
			c = strings.ReplaceAll(code, "P ", "")
		}
		out = append(out, form{name: fmt.Sprintf("%s%d", name, sz*8), code: c, size: sz})
	}
	return out
}

func kinded(k byte, needs string, fs []form) []form {
	for i := range fs {
		fs[i].kind, fs[i].needs = k, needs
	}
	return fs
}

// allForms lists every form. Opcodes: SDM Vol. 2, appendix A.
func allForms() []form {
	var fs []form
	add := func(k byte, needs string, f ...[]form) {
		for _, x := range f {
			fs = append(fs, kinded(k, needs, x)...)
		}
	}
	add(kMul, "",
		sized("mul", "P f7 e1", 2, 4, 8), []form{{name: "mul8", code: "f6 e1", size: 1}},
		sized("imul1", "P f7 e9", 2, 4, 8), []form{{name: "imul1_8", code: "f6 e9", size: 1}},
		sized("mulm", "P f7 26", 2, 4, 8),
		sized("imul3b", "P 6b c1 85", 2, 4, 8), sized("imul3d", "P 69 c1 39 30 00 70", 4, 8))
	add(kDiv, "", sized("div", "P f7 f1", 2, 4, 8), []form{{name: "div8", code: "f6 f1", size: 1}},
		sized("divm", "P f7 36", 4, 8))
	add(kIdiv, "", sized("idiv", "P f7 f9", 2, 4, 8), []form{{name: "idiv8", code: "f6 f9", size: 1}})
	add(kMove, "",
		[]form{{name: "cbw", code: "66 98", size: 2}, {name: "cwde", code: "98", size: 4}, {name: "cdqe", code: "48 98", size: 8},
			{name: "cwd", code: "66 99", size: 2}, {name: "cdq", code: "99", size: 4}, {name: "cqo", code: "48 99", size: 8},
			{name: "bswap32", code: "0f c8", size: 4}, {name: "bswap64", code: "48 0f c8", size: 8},
			{name: "movsbl", code: "0f be c1", size: 4}, {name: "movsbq", code: "48 0f be c1", size: 8},
			{name: "movsbw", code: "66 0f be c1", size: 2}, {name: "movswl", code: "0f bf c1", size: 4},
			{name: "movswq", code: "48 0f bf c1", size: 8}, {name: "movslq", code: "48 63 c1", size: 8},
			{name: "movzbl", code: "0f b6 c1", size: 4}, {name: "movzbq", code: "48 0f b6 c1", size: 8},
			{name: "movzbw", code: "66 0f b6 c1", size: 2}, {name: "movzwl", code: "0f b7 c1", size: 4},
			{name: "movzwq", code: "48 0f b7 c1", size: 8}, {name: "movzbl_ch", code: "0f b6 c5", size: 4},
			{name: "movsbl_m", code: "0f be 06", size: 4}, {name: "movzwl_m", code: "0f b7 06", size: 4},
			{name: "lea_sib", code: "48 8d 04 48", size: 8}, {name: "lea32", code: "8d 44 0a 05", size: 4},
			{name: "lea16", code: "66 8d 04 88", size: 2}, {name: "lea_d32", code: "48 8d 84 ca 78 56 34 92", size: 8}})
	for c := 0; c < 16; c++ {
		for _, f := range sized(fmt.Sprintf("cmov%x_", c), fmt.Sprintf("P 0f %02x c1", 0x40+c), 2, 4, 8) {
			fs = append(fs, form{name: f.name, code: f.code, size: f.size, kind: kMove})
		}
		fs = append(fs, form{name: fmt.Sprintf("set%x", c), code: fmt.Sprintf("0f %02x c0", 0x90+c), size: 1, kind: kMove})
	}
	add(kMove, "movbe", sized("movbe_ld", "P 0f 38 f0 06", 2, 4, 8), sized("movbe_st", "P 0f 38 f1 06", 2, 4, 8))
	add(kRotate, "",
		sized("rol_cl", "P d3 c0", 2, 4, 8), []form{{name: "rol_cl8", code: "d2 c0", size: 1}},
		sized("ror_cl", "P d3 c8", 2, 4, 8), []form{{name: "ror_cl8", code: "d2 c8", size: 1}},
		sized("rol1_", "P d1 c0", 2, 4, 8), []form{{name: "rol1_8", code: "d0 c0", size: 1}},
		sized("ror1_", "P d1 c8", 2, 4, 8), []form{{name: "ror1_8", code: "d0 c8", size: 1}},
		sized("rol13_", "P c1 c0 0d", 2, 4, 8), []form{{name: "rol5_8", code: "c0 c0 05", size: 1}},
		sized("ror45_", "P c1 c8 2d", 2, 4, 8), []form{{name: "ror3_8", code: "c0 c8 03", size: 1}},
		sized("rolm_cl", "P d3 06", 4, 8))
	add(kRotC, "",
		sized("rcl_cl", "P d3 d0", 2, 4, 8), []form{{name: "rcl_cl8", code: "d2 d0", size: 1}},
		sized("rcr_cl", "P d3 d8", 2, 4, 8), []form{{name: "rcr_cl8", code: "d2 d8", size: 1}},
		sized("rcl1_", "P d1 d0", 2, 4, 8), []form{{name: "rcl1_8", code: "d0 d0", size: 1}},
		sized("rcr1_", "P d1 d8", 2, 4, 8), []form{{name: "rcr1_8", code: "d0 d8", size: 1}},
		sized("rcl9_", "P c1 d0 09", 2, 4, 8), []form{{name: "rcl9_8", code: "c0 d0 09", size: 1}},
		sized("rcr17_", "P c1 d8 11", 2, 4, 8), []form{{name: "rcr5_8", code: "c0 d8 05", size: 1}},
		sized("rcr63_", "P c1 d8 3f", 4, 8), sized("rclm_cl", "P d3 16", 4, 8), sized("rcrm1_", "P d1 1e", 2, 8))
	add(kMove, "", []form{{name: "clc", code: "f8", size: 1}, {name: "stc", code: "f9", size: 1},
		{name: "cmc", code: "f5", size: 1}, {name: "cld", code: "fc", size: 1},
		{name: "lahf", code: "9f", size: 1}, {name: "sahf", code: "9e", size: 1}})
	add(kDouble, "",
		sized("shld_cl", "P 0f a5 c8", 2, 4, 8), sized("shrd_cl", "P 0f ad c8", 2, 4, 8),
		sized("shld7_", "P 0f a4 c8 07", 2, 4, 8), sized("shrd1_", "P 0f ac c8 01", 2, 4, 8),
		sized("shrd33_", "P 0f ac c8 21", 4, 8), sized("shldm_cl", "P 0f a5 0e", 4, 8))
	add(kCount, "bmi1", sized("tzcnt", "f3 P 0f bc c1", 2, 4, 8))
	add(kCount, "abm", sized("lzcnt", "f3 P 0f bd c1", 2, 4, 8))
	add(kPopcnt, "popcnt", sized("popcnt", "f3 P 0f b8 c1", 2, 4, 8))
	add(kScan, "", sized("bsf", "P 0f bc c1", 2, 4, 8), sized("bsr", "P 0f bd c1", 2, 4, 8))
	add(kBit, "",
		sized("bt", "P 0f a3 c8", 2, 4, 8), sized("bts", "P 0f ab c8", 2, 4, 8),
		sized("btr", "P 0f b3 c8", 2, 4, 8), sized("btc", "P 0f bb c8", 2, 4, 8),
		sized("bti", "P 0f ba e0 25", 2, 4, 8), sized("btsi", "P 0f ba e8 25", 2, 4, 8),
		sized("btri", "P 0f ba f0 07", 2, 4, 8), sized("btci", "P 0f ba f8 3f", 2, 4, 8),
		sized("btim", "P 0f ba 26 2b", 4, 8))
	add(kBitMem, "", sized("btm", "P 0f a3 0e", 2, 4, 8), sized("btsm", "P 0f ab 0e", 4, 8),
		sized("btrm", "P 0f b3 0e", 4, 8), sized("btcm", "P 0f bb 0e", 4, 8))
	add(kArith, "", sized("xadd", "P 0f c1 c8", 2, 4, 8), []form{{name: "xadd8", code: "0f c0 c8", size: 1}},
		sized("xaddm", "f0 P 0f c1 0e", 4, 8))
	add(kCmpxchg, "", sized("cmpxchg", "P 0f b1 ca", 2, 4, 8), []form{{name: "cmpxchg8", code: "0f b0 ca", size: 1}})
	add(kCmpxchgM, "", sized("cmpxchgm", "f0 P 0f b1 0e", 4, 8))
	return fs
}

// diffState is the state a form runs on: rax, rcx, rdx, flags, and the
// memory words at rsi-8, rsi and rsi+8.
type diffState [7]uint64

type formVec struct {
	f  *form
	fn int
	in diffState
}

func (f *form) bytes() []byte { return unhex(f.code) }

// opcode returns the form's opcode byte (after the prefixes and 0f) and
// the bytes that follow it.
func (f *form) opcode() (byte, []byte) {
	b := f.bytes()
	for len(b) > 1 && (b[0] == 0x66 || b[0] == 0xf0 || b[0] == 0xf3 || b[0]&0xf0 == 0x40 || b[0] == 0x0f) {
		b = b[1:]
	}
	return b[0], b[1:]
}

// count is the masked count of a rotate or double shift: 1, the form's
// immediate, or CL.
func (v formVec) count() uint64 {
	n := v.in[1] & 0xff
	switch op, rest := v.f.opcode(); op {
	case 0xd0, 0xd1:
		n = 1
	case 0xc0, 0xc1, 0xa4, 0xac:
		n = uint64(rest[len(rest)-1])
	}
	if v.f.size == 8 {
		return n & 63
	}
	return n & 31
}

// defined returns the flags the SDM defines (or leaves unaffected) for v,
// and whether the destination (rax, or the middle word) is defined.
func (v formVec) defined() (flags uint64, dst bool) {
	switch v.f.kind {
	case kMul:
		return FlagCF | FlagOF, true // SDM "MUL", "IMUL": SF, ZF, AF, PF undefined
	case kDiv, kIdiv:
		return 0, true // SDM "DIV", "IDIV": all six undefined
	case kMove:
		return StatusFlags, true
	case kRotate, kRotC:
		// SDM "RCL/RCR/ROL/ROR": a zero count affects no flag; OF is
		// defined for 1-bit rotates only; SF, ZF, AF, PF unaffected.
		switch v.count() {
		case 0, 1:
			return StatusFlags, true
		}
		return StatusFlags &^ FlagOF, true
	case kDouble:
		// SDM "SHLD", "SHRD": a zero count affects nothing; AF undefined;
		// OF defined for a count of 1; a count above the operand size
		// (16-bit only) leaves result and flags undefined.
		n := v.count()
		switch {
		case n == 0:
			return StatusFlags, true
		case v.f.size == 2 && n > 16:
			return 0, false
		case n == 1:
			return FlagCF | FlagOF | FlagSF | FlagZF | FlagPF, true
		}
		return FlagCF | FlagSF | FlagZF | FlagPF, true
	case kCount:
		return FlagCF | FlagZF, true // SDM "TZCNT", "LZCNT": OF, SF, PF, AF undefined
	case kPopcnt:
		return StatusFlags, true
	case kScan:
		// SDM "BSF", "BSR": CF, OF, SF, AF, PF undefined; a zero source
		// leaves the destination undefined.
		return FlagZF, v.in[1]&sizeMask[v.f.size] != 0
	case kBit, kBitMem:
		return FlagCF | FlagZF, true // SDM "BT": OF, SF, AF, PF undefined; ZF unaffected
	}
	return StatusFlags, true // XADD, CMPXCHG: as ADD, CMP
}

func (v formVec) asmBytes() string {
	var parts []string
	for _, b := range v.f.bytes() {
		parts = append(parts, fmt.Sprintf("0x%02x", b))
	}
	return strings.Join(parts, ",")
}

// formsHarnessC returns the harness: one function per form, in order.
func formsHarnessC(fs []form) string {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stdint.h>
typedef void (*fn)(uint64_t *);
#define F(N, BYTES) static void N(uint64_t *s) { uint64_t a = s[0], c = s[1], d = s[2], f = s[3] | 2; \
	__asm__ volatile("push %[f]\n\tpopfq\n\t.byte " BYTES "\n\tpushfq\n\tpop %[f]" \
		: "+a"(a), "+c"(c), "+d"(d), [f] "+r"(f) : "S"(&s[5]) : "cc", "memory"); \
	s[0] = a; s[1] = c; s[2] = d; s[3] = f; }
`)
	var names []string
	for i := range fs {
		n := fmt.Sprintf("f%d", i)
		names = append(names, n)
		fmt.Fprintf(&b, "F(%s, %q) /* %s */\n", n, formVec{f: &fs[i]}.asmBytes(), fs[i].name)
	}
	fmt.Fprintf(&b, "static fn fns[] = {%s};\n", strings.Join(names, ", "))
	b.WriteString(`int main(void) {
	unsigned op; unsigned long long v[7];
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (scanf("%u %llx %llx %llx %llx %llx %llx %llx", &op, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 8) {
		uint64_t s[7];
		for (int i = 0; i < 7; i++) s[i] = v[i];
		fns[op](s);
		printf("%llx %llx %llx %llx %llx %llx %llx\n", (unsigned long long)s[0], (unsigned long long)s[1],
			(unsigned long long)s[2], (unsigned long long)s[3], (unsigned long long)s[4],
			(unsigned long long)s[5], (unsigned long long)s[6]);
	}
	return 0;
}
`)
	return b.String()
}

// formVectors returns n random states per form, chosen for the form.
func formVectors(fs []form, n int) []formVec {
	rng := rand.New(rand.NewSource(21))
	var vs []formVec
	for i := 0; i < n; i++ {
		for fi := range fs {
			f := &fs[fi]
			sz := f.size
			var s diffState
			for j := range s {
				s[j] = rng.Uint64()
				if rng.Intn(3) == 0 {
					s[j] = interesting(rng, sz) | s[j]&^sizeMask[sz]
				}
			}
			s[3] = uint64(rng.Intn(1<<12)) & StatusFlags
			switch f.kind {
			case kRotate, kRotC, kDouble:
				if rng.Intn(2) == 0 {
					s[1] = s[1]&^0xff | uint64(rng.Intn(80))
				}
			case kDiv:
				s[1] = s[1]&^sizeMask[sz] | max(interesting(rng, sz), 1)
				s[5] = s[5]&^sizeMask[sz] | max(interesting(rng, sz), 1)
				div := s[1] & sizeMask[sz]
				if f.code[len(f.code)-2:] == "36" {
					div = s[5] & sizeMask[sz]
				}
				hi := rng.Uint64() % div // the upper half below the divisor: no #DE
				if sz == 1 {
					s[0] = s[0]&^0xff00 | hi<<8
				} else {
					s[2] = s[2]&^sizeMask[sz] | hi
				}
			case kIdiv:
				// A dividend that is a sign-extended value of size bytes
				// (as after cqo) never overflows unless it is the
				// minimum divided by -1, which is avoided.
				s[1] = s[1]&^sizeMask[sz] | max(interesting(rng, sz), 1)
				top := uint64(1) << (sz*8 - 1)
				if s[1]&sizeMask[sz] == sizeMask[sz] && s[0]&sizeMask[sz] == top {
					s[0]++
				}
				ext := uint64(0)
				if s[0]&top != 0 {
					ext = sizeMask[sz]
				}
				if sz == 1 {
					s[0] = s[0]&^0xff00 | ext<<8
				} else {
					s[2] = s[2]&^sizeMask[sz] | ext
				}
			case kCount, kPopcnt, kScan:
				if rng.Intn(8) == 0 {
					s[1] &^= sizeMask[sz]
				}
			case kBitMem:
				s[1] = s[1]&^sizeMask[sz] | uint64(int64(rng.Intn(24*sz))-int64(8*sz))&sizeMask[sz]
			case kCmpxchg:
				if rng.Intn(2) == 0 {
					s[0] = s[0]&^sizeMask[sz] | s[2]&sizeMask[sz]
				}
			case kCmpxchgM:
				if rng.Intn(2) == 0 {
					s[0] = s[0]&^sizeMask[sz] | s[5]&sizeMask[sz]
				}
			}
			vs = append(vs, formVec{f: f, fn: fi, in: s})
		}
	}
	return vs
}

// formData is where the executor's memory words sit: rsi is formData+8.
const formData = 0x9000

// execForm runs v on this executor.
func execForm(t *testing.T, v formVec) (diffState, *Inst) {
	code := v.f.bytes()
	inst, err := Decode(testPC, code)
	require.NoError(t, err, v.f.name)
	require.Equal(t, len(code), int(inst.Len), v.f.name)
	var r Regs
	r.RIP = testPC
	r.R[RAX], r.R[RCX], r.R[RDX], r.R[RSI] = v.in[0], v.in[1], v.in[2], formData+8
	r.SetFlags(v.in[3])
	bus := newTestBus(formData, 24)
	bus.log = false
	for i := 0; i < 3; i++ {
		bus.put64(formData+8*uint64(i), v.in[4+i])
	}
	_, err = Exec(&inst, &r, bus)
	require.NoError(t, err, "%s: %s", v.f.name, Disasm(&inst, testPC, nil))
	out := diffState{r.R[RAX], r.R[RCX], r.R[RDX], r.Flags()}
	for i := 0; i < 3; i++ {
		w, _ := bus.Load(formData+8*uint64(i), 8, 0)
		out[4+i] = w
	}
	return out, &inst
}

// hostHas reports whether /proc/cpuinfo lists flag.
func hostHas(flag string) bool {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for _, f := range strings.Fields(string(b)) {
		if f == flag {
			return true
		}
	}
	return false
}

func TestFormsDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the differential test")
	}
	ci := os.Getenv("CI") == "true"
	gcc := oracle.Tool(t, "gcc", "the x86-64 instruction forms against the CPU or QEMU (isa/x86)", "gcc")
	fs := allForms()
	dir := t.TempDir()
	bin := filepath.Join(dir, "forms")
	src := filepath.Join(dir, "forms.c")
	require.NoError(t, os.WriteFile(src, []byte(formsHarnessC(fs)), 0o644))
	if out, err := exec.Command(gcc, "-O1", "-static", "-mno-red-zone", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("gcc cannot build a static x86-64 harness (%v): %s", err, out)
	}
	type runner struct {
		name string
		argv []string
		has  func(string) bool
	}
	var runners []runner
	if runtime.GOARCH == "amd64" {
		runners = append(runners, runner{"host", []string{bin}, hostHas})
	}
	if q, err := exec.LookPath("qemu-x86_64"); err == nil {
		runners = append(runners, runner{"qemu", []string{q, "-cpu", "max", bin}, func(string) bool { return true }})
	} else if ci {
		t.Fatal("CI=true but qemu-x86_64 is not installed")
	}
	if len(runners) == 0 {
		t.Skip("neither an x86-64 host nor qemu-x86_64: skipping the differential test")
	}
	// 1,000 cases per form.
	all := formVectors(fs, 1000)
	for _, rn := range runners {
		t.Run(rn.name, func(t *testing.T) {
			var vs []formVec
			skipped := map[string]bool{}
			for _, v := range all {
				if v.f.needs == "" || rn.has(v.f.needs) {
					vs = append(vs, v)
				} else {
					skipped[v.f.name] = true
				}
			}
			if len(skipped) > 0 {
				t.Logf("the host lacks a feature for %d forms: not compared here", len(skipped))
			}
			want := runForms(t, rn.argv, vs)
			bad := 0
			for i, v := range vs {
				got, inst := execForm(t, v)
				df, dst := v.defined()
				w := want[i]
				w[3] &= df
				got[3] &= df
				if !dst { // rax
					w[0], got[0] = 0, 0
				}
				if got != w {
					bad++
					if bad <= 20 {
						t.Errorf("%s (%s) in %x: got %x, want %x (flags compared %#x)",
							Disasm(inst, testPC, nil), v.f.name, v.in, got, w, df)
					}
				}
			}
			t.Logf("%d forms x 1000 = %d vectors, %d mismatches", len(vs)/1000, len(vs), bad)
		})
	}
}

func runForms(t *testing.T, argv []string, vs []formVec) []diffState {
	var in bytes.Buffer
	for _, v := range vs {
		fmt.Fprintf(&in, "%d", v.fn)
		for _, x := range v.in {
			fmt.Fprintf(&in, " %x", x)
		}
		in.WriteByte('\n')
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = &in
	out, err := cmd.Output()
	require.NoError(t, err, "%v", argv)
	var res []diffState
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var s diffState
		_, err := fmt.Sscanf(sc.Text(), "%x %x %x %x %x %x %x", &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6])
		require.NoError(t, err)
		res = append(res, s)
	}
	require.Len(t, res, len(vs))
	return res
}
