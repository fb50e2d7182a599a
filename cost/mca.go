package cost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Prediction is llvm-mca's estimate for one instruction sequence on one CPU.
type Prediction struct {
	Arch, CPU string
	// Iterations is how many times llvm-mca ran the sequence (100).
	Iterations int
	// Instructions is the sequence's length as llvm-mca saw it, after the
	// call rewrite (see Predict).
	Instructions int
	// TotalCycles is llvm-mca's simulated cycle count for all iterations.
	TotalCycles int
	// Cycles is TotalCycles / Iterations: the predicted cycles per
	// execution of the sequence in a steady loop, dependencies included.
	Cycles float64
	// BlockRThroughput is the model's lower bound from resource pressure
	// alone, in cycles per iteration.
	BlockRThroughput float64
	IPC              float64
	// Rewritten counts the calls (and riscv64 jumps) Predict replaced,
	// see Predict.
	Rewritten int
	// Notes are llvm-mca's warnings, e.g. that a return's PC update is
	// ignored.
	Notes []string
}

// Iterations is how many times Predict has llvm-mca run a sequence.
const Iterations = 100

// mcaTimeout bounds one llvm-mca run.
const mcaTimeout = 60 * time.Second

// arches maps the architecture names mcountsim uses to LLVM triples and the
// CPUs reported by default. The defaults are CPUs whose LLVM 14 models
// schedule every instruction of the site forms (push/pop, LDM/STM, NOPs,
// branches): on ARM, cortex-a8 has only itineraries (no model) and the
// cortex-a9 and cortex-a15 models cannot schedule LDM/STM, so A32 is
// reported for cortex-a57 (out of order) and cortex-r52 (in order).
var arches = map[string]struct {
	triple string
	cpus   []string
}{
	"arm":     {"arm-linux-gnueabi", []string{"cortex-a57", "cortex-r52"}},
	"x86":     {"x86_64-linux-gnu", []string{"skylake", "znver3"}},
	"arm64":   {"aarch64-linux-gnu", []string{"cortex-a53", "cortex-a72"}},
	"riscv64": {"riscv64-linux-gnu", []string{"sifive-u74", "rocket-rv64"}},
}

// archAlias maps other spellings (objfile's, Go's, GNU's) to arches' keys.
var archAlias = map[string]string{
	"x86-64": "x86", "x86_64": "x86", "amd64": "x86", "aarch64": "arm64",
}

func archKey(arch string) (string, error) {
	if a, ok := archAlias[arch]; ok {
		arch = a
	}
	if _, ok := arches[arch]; !ok {
		return "", &MCAError{Arch: arch, Index: -1, Err: ErrArch,
			Msg: fmt.Sprintf("unknown architecture %q (want arm, x86, arm64 or riscv64)", arch)}
	}
	return arch, nil
}

// Triple returns the LLVM target triple Predict uses for arch ("arm",
// "x86" (or "x86-64"), "arm64", "riscv64").
func Triple(arch string) (string, error) {
	a, err := archKey(arch)
	if err != nil {
		return "", err
	}
	return arches[a].triple, nil
}

// CPUs returns the CPUs to report by default for arch, each with an LLVM
// scheduling model that covers the site forms.
func CPUs(arch string) ([]string, error) {
	a, err := archKey(arch)
	if err != nil {
		return nil, err
	}
	return append([]string(nil), arches[a].cpus...), nil
}

var mcaPath = sync.OnceValues(func() (string, error) {
	if p, err := exec.LookPath("llvm-mca"); err == nil {
		return p, nil
	}
	for v := 30; v >= 14; v-- {
		if p, err := exec.LookPath("llvm-mca-" + strconv.Itoa(v)); err == nil {
			return p, nil
		}
	}
	return "", ErrNoMCA
})

// MCAVersion returns the version line of the llvm-mca Predict runs
// ("Debian LLVM version 14.0.6"), or an error wrapping ErrNoMCA.
func MCAVersion() (string, error) {
	p, err := mcaPath()
	if err != nil {
		return "", fmt.Errorf("%w (install the llvm package)", err)
	}
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", p, err)
	}
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, "LLVM version") {
			return strings.TrimSpace(line), nil
		}
	}
	return "", fmt.Errorf("%s --version: no version line", p)
}

// Cycles returns Predict(arch, cpu, asm).Cycles: the predicted cycles per
// execution of the sequence.
func Cycles(arch, cpu string, asm []string) (float64, error) {
	p, err := Predict(arch, cpu, asm)
	return p.Cycles, err
}

// Predict runs llvm-mca -mtriple=<arch's triple> -mcpu=cpu
// -iterations=100 over asm, a straight-line instruction sequence in GNU
// assembler syntax as golang.org/x/arch's GNUSyntax prints it (AT&T on
// x86), one instruction an element.
//
// llvm-mca models a loop of the sequence as straight-line code: every
// instruction is in the I-cache, every branch is predicted and costs only
// its issue slot, and the instructions after a taken branch are the ones
// that follow it in asm, so asm must be the executed sequence (a callee's
// body included when it is to be costed). It does not model calls: LLVM 14
// gives a call a latency of 100 cycles on everything it writes, which
// would dominate any sequence. Predict therefore rewrites each call as the
// jump it contains — ARM and arm64 "bl"/"blx"/"blr" become "b"/"bx"/"br"
// (the link-register write, one cycle in these models, is dropped),
// riscv64 "jal"/"j"/"call"/"tail" become "beq x0, x0, 0" and
// "jalr"/"jr"/"ret" "bne RS, x0, 0" (LLVM 14 treats every riscv64 jump as
// a call; the branch keeps the unit and the register read), an x86 "call"
// becomes "pushq $0" (the return-address store and the %rsp update) plus
// "jmp" — and counts them in Rewritten. Returns are kept; llvm-mca
// notes that it ignores their PC update. Other fixups: trailing blanks are
// trimmed and x86 "jmpq IMM" becomes "jmp IMM".
//
// It fails with an *MCAError wrapping ErrNoMCA, ErrArch, ErrUnknownCPU,
// ErrNoModel ("cpu has no scheduling model"), ErrUnscheduled or ErrAsm,
// never with a guess.
func Predict(arch, cpu string, asm []string) (Prediction, error) {
	a, err := archKey(arch)
	if err != nil {
		return Prediction{}, err
	}
	fail := func(index int, insn string, sentinel error, format string, args ...any) (Prediction, error) {
		return Prediction{}, &MCAError{Arch: a, CPU: cpu, Index: index, Instruction: insn, Err: sentinel, Msg: fmt.Sprintf(format, args...)}
	}
	if cpu == "" || strings.ContainsAny(cpu, " \t\n=") || strings.HasPrefix(cpu, "-") || cpu == "help" {
		return fail(-1, "", ErrUnknownCPU, "not a CPU name")
	}
	src, lineOf, calls, err := mcaSource(a, asm)
	if err != nil {
		var me *MCAError
		if errors.As(err, &me) {
			me.Arch, me.CPU = a, cpu
		}
		return Prediction{}, err
	}
	path, err := mcaPath()
	if err != nil {
		return fail(-1, "", ErrNoMCA, "no llvm-mca executable in PATH (install the llvm package)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcaTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-mtriple="+arches[a].triple, "-mcpu="+cpu,
		"-iterations="+strconv.Itoa(Iterations), "-")
	cmd.Stdin = strings.NewReader(src)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	notes, mErr := mcaDiagnose(stderr.String(), lineOf, asm)
	if mErr != nil {
		mErr.Arch, mErr.CPU = a, cpu
		return Prediction{}, mErr
	}
	if runErr != nil {
		return fail(-1, "", ErrAsm, "%v: %s", runErr, oneLine(stderr.String()))
	}
	p, err := mcaSummary(stdout.String())
	if err != nil {
		return fail(-1, "", ErrAsm, "%v", err)
	}
	p.Arch, p.CPU, p.Rewritten, p.Notes = a, cpu, calls, notes
	return p, nil
}

// mcaSource writes asm as llvm-mca input, one rewritten instruction (or
// two, for an x86 call) a line; lineOf[i] is the input index of line i+1.
func mcaSource(arch string, asm []string) (src string, lineOf []int, calls int, err error) {
	if len(asm) == 0 {
		return "", nil, 0, &MCAError{Index: -1, Err: ErrAsm, Msg: "no instructions"}
	}
	var b strings.Builder
	for i, insn := range asm {
		text := strings.TrimSpace(insn)
		switch {
		case text == "":
			return "", nil, 0, &MCAError{Index: i, Err: ErrAsm, Msg: "empty instruction"}
		case strings.ContainsAny(text, "\n\r\x00;"):
			return "", nil, 0, &MCAError{Index: i, Instruction: insn, Err: ErrAsm, Msg: "one instruction an element, please"}
		case strings.HasPrefix(text, "."), strings.HasSuffix(text, ":"):
			return "", nil, 0, &MCAError{Index: i, Instruction: insn, Err: ErrAsm, Msg: "directives and labels are not instructions"}
		}
		lines, isCall := rewriteInsn(arch, text)
		if isCall {
			calls++
		}
		for _, l := range lines {
			b.WriteString(l)
			b.WriteByte('\n')
			lineOf = append(lineOf, i)
		}
	}
	return b.String(), lineOf, calls, nil
}

var (
	armCond   = "(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?"
	reARMBL   = regexp.MustCompile(`^bl` + armCond + `(\s.*)$`)
	reARMBLX  = regexp.MustCompile(`^blx` + armCond + `(\s.*)$`)
	reA64BL   = regexp.MustCompile(`^bl(\s.*)$`)
	reA64BLR  = regexp.MustCompile(`^blr(\s.*)$`)
	reX86Call = regexp.MustCompile(`^(?:addr32\s+)?call[lqw]?\s+(.+)$`)
	reX86JmpQ = regexp.MustCompile(`^jmpq\s+([^*].*)$`)
)

// rewriteInsn applies Predict's documented fixups to one instruction and
// reports whether it was a call.
func rewriteInsn(arch, text string) ([]string, bool) {
	switch arch {
	case "arm":
		if m := reARMBLX.FindStringSubmatch(text); m != nil {
			op := "b" // blx <label>: a call that switches to Thumb
			if isARMReg(strings.TrimSpace(m[2])) {
				op = "bx"
			}
			return []string{op + m[1] + m[2]}, true
		}
		if m := reARMBL.FindStringSubmatch(text); m != nil {
			return []string{"b" + m[1] + m[2]}, true
		}
	case "arm64":
		if m := reA64BLR.FindStringSubmatch(text); m != nil {
			return []string{"br" + m[1]}, true
		}
		if m := reA64BL.FindStringSubmatch(text); m != nil {
			return []string{"b" + m[1]}, true
		}
	case "riscv64":
		// LLVM 14 flags every jal and jalr as a call (j, jr and ret
		// too): each becomes a conditional branch that reads the same
		// register, whose target llvm-mca ignores.
		op, args, _ := strings.Cut(text, " ")
		args = strings.TrimSpace(args)
		switch op {
		case "j", "jal", "call", "tail":
			return []string{"beq x0, x0, 0"}, true
		case "ret":
			return []string{"bne ra, x0, 0"}, true
		case "jr", "jalr":
			return []string{"bne " + rvJumpReg(args) + ", x0, 0"}, true
		}
	case "x86":
		if m := reX86Call.FindStringSubmatch(text); m != nil {
			jmp := "jmp " + m[1]
			if strings.HasPrefix(m[1], "*") {
				jmp = "jmpq " + m[1]
			}
			return []string{"pushq $0", jmp}, true
		}
		if m := reX86JmpQ.FindStringSubmatch(text); m != nil {
			return []string{"jmp " + m[1]}, false
		}
	}
	return []string{text}, false
}

var reARMReg = regexp.MustCompile(`^(r\d\d?|sb|sl|fp|ip|sp|lr|pc)$`)

// rvJumpReg is the register a jr/jalr jumps through: "rs", "rd, rs, off",
// "rd, off(rs)" or "off(rs)".
func rvJumpReg(args string) string {
	if i := strings.IndexByte(args, '('); i >= 0 {
		return strings.TrimSuffix(strings.TrimSpace(args[i+1:]), ")")
	}
	parts := strings.Split(args, ",")
	if len(parts) >= 2 {
		return strings.TrimSpace(parts[1])
	}
	return strings.TrimSpace(parts[0])
}

func isARMReg(s string) bool { return reARMReg.MatchString(s) }

var (
	reMCALoc  = regexp.MustCompile(`^<stdin>:(\d+):\d+: error: (.*)$`)
	reMCANote = regexp.MustCompile(`^note: instruction:\s*(.*)$`)
)

// mcaDiagnose reads llvm-mca's stderr: any error (llvm-mca may exit 0
// after skipping a line it could not assemble) becomes an *MCAError;
// warnings with their notes are returned.
func mcaDiagnose(stderr string, lineOf []int, asm []string) ([]string, *MCAError) {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	next := func(i int) string {
		if i+1 < len(lines) {
			return strings.TrimSpace(lines[i+1])
		}
		return ""
	}
	var notes []string
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
		case strings.Contains(line, "is not a recognized processor"):
			return nil, &MCAError{Index: -1, Err: ErrUnknownCPU, Msg: "LLVM does not know this CPU for the target"}
		case strings.Contains(line, "unable to find instruction-level scheduling information"):
			msg := "has no scheduling model llvm-mca can use"
			if strings.Contains(next(i), "itineraries") {
				msg += " (it provides only itineraries, which llvm-mca does not support)"
			}
			return nil, &MCAError{Index: -1, Err: ErrNoModel, Msg: msg}
		case strings.Contains(line, "unsupported instruction"), strings.Contains(line, "unable to resolve scheduling class"):
			e := &MCAError{Index: -1, Err: ErrUnscheduled, Msg: "the CPU's scheduling model cannot schedule it: " + strings.TrimPrefix(line, "error: ")}
			if m := reMCANote.FindStringSubmatch(next(i)); m != nil {
				e.Instruction = oneLine(m[1])
				for j, insn := range asm {
					if oneLine(insn) == e.Instruction {
						e.Index = j
						break
					}
				}
			}
			return nil, e
		case reMCALoc.MatchString(line):
			m := reMCALoc.FindStringSubmatch(line)
			n, _ := strconv.Atoi(m[1])
			e := &MCAError{Index: -1, Err: ErrAsm, Msg: "the assembler rejects it: " + m[2]}
			if n >= 1 && n <= len(lineOf) {
				e.Index = lineOf[n-1]
				e.Instruction = asm[e.Index]
			}
			return nil, e
		case strings.HasPrefix(line, "error:"):
			return nil, &MCAError{Index: -1, Err: ErrAsm, Msg: oneLine(strings.TrimPrefix(line, "error: "))}
		case strings.HasPrefix(line, "warning:"):
			note := strings.TrimPrefix(line, "warning: ")
			if n := next(i); strings.HasPrefix(n, "note:") {
				note += " (" + strings.TrimPrefix(n, "note: ") + ")"
			}
			notes = append(notes, note)
		}
	}
	return notes, nil
}

// mcaSummary parses the summary block of llvm-mca's default output.
func mcaSummary(out string) (Prediction, error) {
	var p Prediction
	var insns int
	found := map[string]bool{}
	for line := range strings.Lines(out) {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		var err error
		switch key {
		case "Iterations":
			p.Iterations, err = strconv.Atoi(val)
		case "Instructions":
			insns, err = strconv.Atoi(val)
		case "Total Cycles":
			p.TotalCycles, err = strconv.Atoi(val)
		case "Block RThroughput":
			p.BlockRThroughput, err = strconv.ParseFloat(val, 64)
		case "IPC":
			p.IPC, err = strconv.ParseFloat(val, 64)
		default:
			continue
		}
		if err != nil {
			return Prediction{}, fmt.Errorf("llvm-mca summary %q: %v", strings.TrimSpace(line), err)
		}
		found[key] = true
	}
	for _, k := range []string{"Iterations", "Instructions", "Total Cycles", "Block RThroughput"} {
		if !found[k] {
			return Prediction{}, fmt.Errorf("llvm-mca printed no %q line", k)
		}
	}
	if p.Iterations <= 0 {
		return Prediction{}, fmt.Errorf("llvm-mca ran %d iterations", p.Iterations)
	}
	p.Instructions = insns / p.Iterations
	p.Cycles = float64(p.TotalCycles) / float64(p.Iterations)
	return p, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
