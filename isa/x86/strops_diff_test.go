package x86

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/isa"
	"github.com/stretchr/testify/require"
)

// The string differential test runs each string instruction form below,
// as its exact bytes, on random states three ways, as the forms test does
// (forms_diff_test.go): on this executor (one Exec per iteration, until
// RIP leaves the instruction), on the host CPU and under qemu-x86_64 -cpu
// max. A state is rax, rcx, the six status flags, rsi and rdi (as offsets
// into a 64-byte buffer) and the buffer; all of it is compared.

type strForm struct {
	name string
	code string
	size int
}

func strForms() []strForm {
	var fs []strForm
	for _, op := range []struct {
		name string
		b    byte // the byte-sized opcode; +1 is the wider one
	}{{"movs", 0xa4}, {"cmps", 0xa6}, {"stos", 0xaa}, {"lods", 0xac}, {"scas", 0xae}} {
		for _, w := range []struct {
			suffix, pre string
			size        int
			wide        bool
		}{{"b", "", 1, false}, {"w", "66 ", 2, true}, {"l", "", 4, true}, {"q", "48 ", 8, true}} {
			b := op.b
			if w.wide {
				b++
			}
			reps := []string{"", "f3 "}
			if op.name == "cmps" || op.name == "scas" {
				reps = append(reps, "f2 ")
			}
			for _, rp := range reps {
				name := op.name + w.suffix
				switch rp {
				case "f3 ":
					name = "rep_" + name
				case "f2 ":
					name = "repne_" + name
				}
				// The repeat prefix goes before 66 and REX (REX last).
				fs = append(fs, strForm{name: name, code: fmt.Sprintf("%s%s%02x", rp, w.pre, b), size: w.size})
			}
		}
	}
	return fs
}

// strState: rax, rcx, flags, rsi offset, rdi offset, then the buffer.
type strState [13]uint64

const strBuf = 64

func strHarnessC(fs []strForm) string {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stdint.h>
typedef void (*fn)(uint64_t *);
#define F(N, BYTES) static void N(uint64_t *s) { uint64_t a = s[0], c = s[1], f = s[2] | 2; \
	unsigned char *buf = (unsigned char *)&s[5], *si = buf + s[3], *di = buf + s[4]; \
	__asm__ volatile("push %[f]\n\tpopfq\n\t.byte " BYTES "\n\tpushfq\n\tpop %[f]" \
		: "+a"(a), "+c"(c), "+S"(si), "+D"(di), [f] "+r"(f) : : "cc", "memory"); \
	s[0] = a; s[1] = c; s[2] = f; s[3] = si - buf; s[4] = di - buf; }
`)
	var names []string
	for i := range fs {
		n := fmt.Sprintf("f%d", i)
		names = append(names, n)
		var parts []string
		for _, x := range unhex(fs[i].code) {
			parts = append(parts, fmt.Sprintf("0x%02x", x))
		}
		fmt.Fprintf(&b, "F(%s, %q) /* %s */\n", n, strings.Join(parts, ","), fs[i].name)
	}
	fmt.Fprintf(&b, "static fn fns[] = {%s};\n", strings.Join(names, ", "))
	b.WriteString(`int main(void) {
	unsigned op;
	uint64_t s[13];
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	for (;;) {
		if (scanf("%u", &op) != 1)
			break;
		for (int i = 0; i < 13; i++) {
			unsigned long long v;
			if (scanf("%llx", &v) != 1)
				return 1;
			s[i] = v;
		}
		fns[op](s);
		for (int i = 0; i < 13; i++)
			printf(i ? " %llx" : "%llx", (unsigned long long)s[i]);
		printf("\n");
	}
	return 0;
}
`)
	return b.String()
}

type strVec struct {
	f  *strForm
	fn int
	in strState
}

// strVectors returns n random states per form: a count of 0-7 elements,
// offsets that keep every element inside the buffer, and buffers whose
// elements often match the accumulator or each other (so that REPE and
// REPNE stop early).
func strVectors(fs []strForm, n int) []strVec {
	rng := rand.New(rand.NewSource(21))
	var vs []strVec
	for i := 0; i < n; i++ {
		for fi := range fs {
			f := &fs[fi]
			var s strState
			s[0] = rng.Uint64()
			cnt := uint64(rng.Intn(8))
			s[1] = cnt // rep counts all of rcx
			if !strings.HasPrefix(f.name, "rep") {
				s[1] = rng.Uint64()
			}
			s[2] = uint64(rng.Intn(1<<12)) & StatusFlags
			span := 7 * f.size
			s[3] = uint64(rng.Intn(strBuf - span + 1))
			s[4] = uint64(rng.Intn(strBuf - span + 1))
			var buf [strBuf]byte
			pattern := byte(rng.Intn(3))
			for j := range buf {
				switch pattern {
				case 0:
					buf[j] = byte(rng.Intn(256))
				case 1:
					buf[j] = byte(s[0] >> (8 * (j % f.size)))
				default:
					buf[j] = byte(j % 5)
				}
			}
			if rng.Intn(4) == 0 {
				buf[rng.Intn(strBuf)] ^= 1
			}
			for j := 0; j < 8; j++ {
				for k := 0; k < 8; k++ {
					s[5+j] |= uint64(buf[8*j+k]) << (8 * k)
				}
			}
			vs = append(vs, strVec{f: f, fn: fi, in: s})
		}
	}
	return vs
}

// execStr runs v on this executor: Exec until RIP leaves the
// instruction.
func execStr(t *testing.T, v strVec) strState {
	code := unhex(v.f.code)
	inst, err := Decode(testPC, code)
	require.NoError(t, err, v.f.name)
	require.Equal(t, len(code), int(inst.Len), v.f.name)
	require.NotEqual(t, strNone, inst.str, v.f.name)
	var r Regs
	r.RIP = testPC
	r.R[RAX], r.R[RCX] = v.in[0], v.in[1]
	r.R[RSI], r.R[RDI] = formData+v.in[3], formData+v.in[4]
	r.SetFlags(v.in[2])
	bus := newTestBus(formData, strBuf)
	bus.log = false
	for i := 0; i < 8; i++ {
		bus.put64(formData+8*uint64(i), v.in[5+i])
	}
	for n := 0; ; n++ {
		require.Less(t, n, 100, v.f.name)
		flow, err := Exec(&inst, &r, bus)
		require.NoError(t, err, "%s: %s", v.f.name, Disasm(&inst, testPC, nil))
		if r.RIP != testPC {
			require.Equal(t, isa.FlowNext, flow)
			break
		}
		require.Equal(t, isa.FlowBranch, flow)
	}
	require.Equal(t, testPC+uint64(inst.Len), r.RIP)
	out := strState{r.R[RAX], r.R[RCX], r.Flags(), r.R[RSI] - formData, r.R[RDI] - formData}
	for i := 0; i < 8; i++ {
		out[5+i] = bus.get64(formData + 8*uint64(i))
	}
	return out
}

func TestStringDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the differential test")
	}
	ci := os.Getenv("CI") == "true"
	gcc := oracle.Tool(t, "gcc", "the x86-64 string instructions against the CPU or QEMU (isa/x86)", "gcc")
	fs := strForms()
	dir := t.TempDir()
	bin := filepath.Join(dir, "strs")
	src := filepath.Join(dir, "strs.c")
	require.NoError(t, os.WriteFile(src, []byte(strHarnessC(fs)), 0o644))
	if out, err := exec.Command(gcc, "-O1", "-static", "-mno-red-zone", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("gcc cannot build a static x86-64 harness (%v): %s", err, out)
	}
	var runners [][]string
	if runtime.GOARCH == "amd64" {
		runners = append(runners, []string{bin})
	}
	if q, err := exec.LookPath("qemu-x86_64"); err == nil {
		runners = append(runners, []string{q, "-cpu", "max", bin})
	} else if ci {
		t.Fatal("CI=true but qemu-x86_64 is not installed")
	}
	if len(runners) == 0 {
		t.Skip("neither an x86-64 host nor qemu-x86_64: skipping the differential test")
	}
	vs := strVectors(fs, 300)
	for _, argv := range runners {
		t.Run(filepath.Base(argv[0]), func(t *testing.T) {
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
			sc := bufio.NewScanner(bytes.NewReader(out))
			bad, i := 0, 0
			for ; sc.Scan(); i++ {
				require.Less(t, i, len(vs))
				var w strState
				f := strings.Fields(sc.Text())
				require.Len(t, f, len(w))
				for j := range w {
					_, err := fmt.Sscanf(f[j], "%x", &w[j])
					require.NoError(t, err)
				}
				w[2] &= StatusFlags
				got := execStr(t, vs[i])
				if got != w {
					bad++
					if bad <= 20 {
						t.Errorf("%s in %x: got %x, want %x", vs[i].f.name, vs[i].in, got, w)
					}
				}
			}
			require.Equal(t, len(vs), i)
			t.Logf("%d forms x 300 = %d vectors, %d mismatches", len(fs), len(vs), bad)
		})
	}
}
