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

// The differential test runs ALU instructions on random operands three
// ways: on this executor, on the host CPU (when it is x86-64) and under
// qemu-x86_64 (when installed), through a small static C harness built with
// the host gcc. It compares the result and the flags the SDM defines.

// diffOp is one ALU operation of the differential test.
type diffOp struct {
	name  string
	kind  byte   // 'b' binary (op %rcx,%rax), 'u' unary, 's' shift by %cl, 'm' imul %rcx,%rax
	op8   []byte // opcode bytes for the 8-bit form (nil: none), modrm follows
	op    []byte // opcode bytes for the 16/32/64-bit forms
	modrm byte
	flags uint64 // flags the SDM defines (shifts: see shiftFlags)
}

const arith = FlagCF | FlagPF | FlagAF | FlagZF | FlagSF | FlagOF
const logic = FlagCF | FlagPF | FlagZF | FlagSF | FlagOF

var diffOps = []diffOp{
	{"add", 'b', []byte{0x00}, []byte{0x01}, 0xc8, arith},
	{"adc", 'b', []byte{0x10}, []byte{0x11}, 0xc8, arith},
	{"sub", 'b', []byte{0x28}, []byte{0x29}, 0xc8, arith},
	{"sbb", 'b', []byte{0x18}, []byte{0x19}, 0xc8, arith},
	{"and", 'b', []byte{0x20}, []byte{0x21}, 0xc8, logic},
	{"or", 'b', []byte{0x08}, []byte{0x09}, 0xc8, logic},
	{"xor", 'b', []byte{0x30}, []byte{0x31}, 0xc8, logic},
	{"cmp", 'b', []byte{0x38}, []byte{0x39}, 0xc8, arith},
	{"test", 'b', []byte{0x84}, []byte{0x85}, 0xc8, logic},
	{"inc", 'u', []byte{0xfe}, []byte{0xff}, 0xc0, arith},
	{"dec", 'u', []byte{0xfe}, []byte{0xff}, 0xc8, arith},
	{"neg", 'u', []byte{0xf6}, []byte{0xf7}, 0xd8, arith},
	{"not", 'u', []byte{0xf6}, []byte{0xf7}, 0xd0, arith},
	{"shl", 's', []byte{0xd2}, []byte{0xd3}, 0xe0, 0},
	{"shr", 's', []byte{0xd2}, []byte{0xd3}, 0xe8, 0},
	{"sar", 's', []byte{0xd2}, []byte{0xd3}, 0xf8, 0},
	{"imul", 'm', nil, []byte{0x0f, 0xaf}, 0xc1, FlagCF | FlagOF},
}

var diffSizes = []int{1, 2, 4, 8}

var cTypes = map[int]string{1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}

// harnessC returns the C source of the harness: one function per
// (operation, size), in the order of diffOps and diffSizes.
func harnessC() string {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stdint.h>
typedef void (*fn)(uint64_t *, uint64_t, uint64_t *);
#define PRE "push %[f]\n\tpopfq\n\t"
#define POST "\n\tpushfq\n\tpop %[f]"
#define B(N, I, T) static void N(uint64_t *a, uint64_t b, uint64_t *fl) { T x = (T)*a, y = (T)b; uint64_t f = *fl; \
	__asm__ volatile(PRE I " %[y], %[x]" POST : [x] "+r"(x), [f] "+r"(f) : [y] "r"(y) : "cc", "memory"); *a = x; *fl = f; }
#define U(N, I, T) static void N(uint64_t *a, uint64_t b, uint64_t *fl) { T x = (T)*a; uint64_t f = *fl; (void)b; \
	__asm__ volatile(PRE I " %[x]" POST : [x] "+r"(x), [f] "+r"(f) : : "cc", "memory"); *a = x; *fl = f; }
#define S(N, I, T) static void N(uint64_t *a, uint64_t b, uint64_t *fl) { T x = (T)*a; uint8_t c = (uint8_t)b; uint64_t f = *fl; \
	__asm__ volatile(PRE I " %%cl, %[x]" POST : [x] "+r"(x), [f] "+r"(f) : "c"(c) : "cc", "memory"); *a = x; *fl = f; }
#define M B
`)
	var names []string
	for _, o := range diffOps {
		for _, sz := range diffSizes {
			if o.op8 == nil && sz == 1 {
				continue
			}
			n := fmt.Sprintf("%s%d", o.name, sz*8)
			names = append(names, n)
			fmt.Fprintf(&b, "%c(%s, %q, %s)\n", o.kind-'a'+'A', n, o.name, cTypes[sz])
		}
	}
	fmt.Fprintf(&b, "static fn fns[] = {%s};\n", strings.Join(names, ", "))
	b.WriteString(`int main(void) {
	unsigned op; unsigned long long a, b, f;
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	while (scanf("%u %llx %llx %llx", &op, &a, &b, &f) == 4) {
		uint64_t x = a, fl = f | 2;
		fns[op](&x, b, &fl);
		printf("%llx %llx\n", (unsigned long long)x, (unsigned long long)fl);
	}
	return 0;
}
`)
	return b.String()
}

type diffVec struct {
	op          *diffOp
	size        int
	fn          int // index in the harness's table
	a, b, flags uint64
}

func (v diffVec) code() []byte {
	var c []byte
	switch v.size {
	case 2:
		c = append(c, 0x66)
	case 8:
		c = append(c, 0x48)
	}
	if v.size == 1 {
		c = append(c, v.op.op8...)
	} else {
		c = append(c, v.op.op...)
	}
	return append(c, v.op.modrm)
}

// definedFlags returns the flags the SDM defines for v.
func (v diffVec) definedFlags() uint64 {
	if v.op.kind != 's' {
		return v.op.flags
	}
	n := v.b & 31
	if v.size == 8 {
		n = v.b & 63
	}
	bitsz := uint64(v.size) * 8
	switch {
	case n == 0:
		return arith // unchanged
	case n == 1:
		return logic
	case n < bitsz || v.op.name == "sar":
		return FlagCF | FlagPF | FlagZF | FlagSF
	}
	return FlagPF | FlagZF | FlagSF
}

func interesting(rng *rand.Rand, size int) uint64 {
	m := sizeMask[size]
	top := uint64(1) << (size*8 - 1)
	switch rng.Intn(8) {
	case 0:
		return 0
	case 1:
		return 1
	case 2:
		return m
	case 3:
		return top
	case 4:
		return top - 1
	case 5:
		return uint64(rng.Intn(64))
	}
	return rng.Uint64() & m
}

func diffVectors(n int) []diffVec {
	rng := rand.New(rand.NewSource(1))
	var vs []diffVec
	for i := 0; i < n; i++ {
		fn := 0
		for oi := range diffOps {
			o := &diffOps[oi]
			for _, sz := range diffSizes {
				if o.op8 == nil && sz == 1 {
					continue
				}
				v := diffVec{op: o, size: sz, fn: fn, a: interesting(rng, sz), b: interesting(rng, sz),
					flags: uint64(rng.Intn(1<<12)) & StatusFlags}
				if o.kind == 's' {
					v.b = uint64(rng.Intn(80))
				}
				vs = append(vs, v)
				fn++
			}
		}
	}
	return vs
}

func runHarness(t *testing.T, argv []string, vs []diffVec) [][2]uint64 {
	var in bytes.Buffer
	for _, v := range vs {
		fmt.Fprintf(&in, "%d %x %x %x\n", v.fn, v.a, v.b, v.flags)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = &in
	out, err := cmd.Output()
	require.NoError(t, err, "%v", argv)
	var res [][2]uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var x, f uint64
		_, err := fmt.Sscanf(sc.Text(), "%x %x", &x, &f)
		require.NoError(t, err)
		res = append(res, [2]uint64{x, f})
	}
	require.Len(t, res, len(vs))
	return res
}

func TestALUDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the differential test")
	}
	ci := os.Getenv("CI") == "true" // CI installs the tools: a missing one is a failure there
	gcc := oracle.Tool(t, "gcc", "the x86-64 executor against the CPU or QEMU (isa/x86)", "gcc")
	var runners [][]string
	dir := t.TempDir()
	bin := filepath.Join(dir, "harness")
	if runtime.GOARCH == "amd64" {
		runners = append(runners, []string{bin})
	}
	if q, err := exec.LookPath("qemu-x86_64"); err == nil {
		runners = append(runners, []string{q, bin})
	} else {
		if ci {
			t.Fatal("CI=true but qemu-x86_64 is not installed")
		}
		t.Log("qemu-x86_64 not found: comparing with the host CPU only")
	}
	if len(runners) == 0 {
		t.Skip("neither an x86-64 host nor qemu-x86_64: skipping the differential test")
	}
	src := filepath.Join(dir, "harness.c")
	require.NoError(t, os.WriteFile(src, []byte(harnessC()), 0o644))
	out, err := exec.Command(gcc, "-O1", "-static", "-mno-red-zone", "-o", bin, src).CombinedOutput()
	if err != nil {
		t.Skipf("gcc cannot build a static x86-64 harness (%v): %s", err, out)
	}

	// At least 1,000 cases per instruction form (op and operand size).
	vs := diffVectors(1000)
	for _, argv := range runners {
		t.Run(filepath.Base(argv[0]), func(t *testing.T) {
			want := runHarness(t, argv, vs)
			bad := 0
			for i, v := range vs {
				inst, err := Decode(0, v.code())
				require.NoError(t, err)
				r := Regs{}
				r.R[RAX], r.R[RCX] = v.a, v.b
				r.SetFlags(v.flags)
				_, err = Exec(&inst, &r, newTestBus(0, 0))
				require.NoError(t, err)
				m := sizeMask[v.size]
				df := v.definedFlags()
				gotX, gotF := r.R[RAX]&m, r.Flags()&df
				wantX, wantF := want[i][0]&m, want[i][1]&df
				if gotX != wantX || gotF != wantF {
					bad++
					if bad <= 10 {
						t.Errorf("%s (%s) a=%#x b=%#x flags=%#x: got %#x flags %#x, want %#x flags %#x (compared %#x)",
							Disasm(&inst, 0, nil), v.op.name, v.a, v.b, v.flags, gotX, gotF, wantX, wantF, df)
					}
				}
			}
			t.Logf("%d forms x 1000 = %d vectors, %d mismatches", len(vs)/1000, len(vs), bad)
		})
	}
}
