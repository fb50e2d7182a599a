package cost

import (
	"errors"
	"fmt"
	"strings"
)

// The package's sentinel errors. An *MCAError (Predict) or an *InputError
// (a sample or a comparison) wraps them, so errors.Is works.
var (
	// Errors of Predict.

	// ErrNoMCA: no llvm-mca executable was found (Debian package llvm).
	ErrNoMCA = errors.New("llvm-mca not found")
	// ErrArch: the architecture is not one Predict knows.
	ErrArch = errors.New("unknown architecture")
	// ErrUnknownCPU: LLVM does not know the CPU name for the target.
	ErrUnknownCPU = errors.New("unknown CPU")
	// ErrNoModel: LLVM knows the CPU but has no scheduling model for it
	// that llvm-mca can use (some only have itineraries, e.g. cortex-a8).
	ErrNoModel = errors.New("has no scheduling model")
	// ErrUnscheduled: the CPU's model has no scheduling class for one of
	// the instructions (cortex-a9's cannot schedule LDM/STM, e.g.
	// ldm sp!, {lr}).
	ErrUnscheduled = errors.New("instruction not in the scheduling model")
	// ErrAsm: llvm-mca's assembler rejected an instruction, or the input
	// is not a list of instructions.
	ErrAsm = errors.New("cannot assemble")

	// Errors of a sample or a comparison.

	// ErrEmpty: the input holds no measurement.
	ErrEmpty = errors.New("no measurements")
	// ErrSyntax: a line is neither a number nor a Go benchmark line.
	ErrSyntax = errors.New("not a number")
	// ErrTooFew: a sample of one run has no spread, so nothing can be
	// said about noise or significance.
	ErrTooFew = errors.New("too few measurements")
	// ErrUnit: the samples are in different units, or the asked-for unit
	// is not in the input.
	ErrUnit = errors.New("unit mismatch")
	// ErrBenchmarks: a Go benchmark file holds results of more than one
	// benchmark and none was chosen.
	ErrBenchmarks = errors.New("more than one benchmark")
)

// MCAError is a failed prediction for one CPU.
type MCAError struct {
	Arch, CPU string
	// Index is the position in the input of the instruction at fault, or
	// -1 when the error is not about one instruction.
	Index int
	// Instruction is the instruction text at fault, if known.
	Instruction string
	Msg         string
	Err         error
}

func (e *MCAError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llvm-mca %s: ", e.Arch)
	if e.CPU != "" {
		fmt.Fprintf(&b, "%s ", e.CPU)
	}
	if e.Index >= 0 {
		fmt.Fprintf(&b, "instruction %d ", e.Index)
	}
	if e.Instruction != "" {
		fmt.Fprintf(&b, "%q: ", e.Instruction)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *MCAError) Unwrap() error { return e.Err }

// InputError is an error about one input file, and Line, when it is not
// 0, is the 1-based line it is about.
type InputError struct {
	File string
	Line int
	Msg  string // what is wrong, for the user
	Err  error  // one of the sentinels of a sample or a comparison
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

func (e *InputError) Unwrap() error { return e.Err }
