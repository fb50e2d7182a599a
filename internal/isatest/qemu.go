// Package isatest holds what the tests of the ISA packages (isa/arm,
// isa/arm64, isa/riscv, isa/x86) share: the differential test of an executor
// against qemu-user (Harness, Diff), a recording isa.Bus (Bus) and a plain
// one for benchmarks (SliceBus, BenchRun), and the parser of objdump -D
// that the encoder cross-checks read (ParseObjdump), and the fuzzers' check
// of an execution error (Fault).
//
// A differential test builds testdata/qemu/harness.c of its package with
// the cross gcc into a static program that reads fixed-size cases on
// stdin, runs each and writes one fixed-size result per case; Diff runs
// groups of cases through it, in parallel, and compares every result with
// the executor's. What a case is, how it is drawn, and how it runs through
// the executor stay in the ISA package.
//
// Imports: isa, internal/oracle and the standard library; only tests
// import isatest.
package isatest

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/internal/oracle"
)

// Tools says how to build and run a package's harness.
type Tools struct {
	What     string   // what goes unchecked without the tools, for oracle.Tool
	QEMU     string   // the qemu-user program, e.g. qemu-arm
	GCC      string   // the cross compiler, e.g. arm-linux-gnueabi-gcc
	GCCPkg   string   // the Debian packages that install GCC
	CFlags   []string // flags beyond -static -O2 -Wall
	QEMUArgs []string // qemu options before the harness (-cpu ...)
	InSize   int      // bytes of one case on the harness's stdin
	OutSize  int      // bytes of one result on its stdout
}

// Harness is a built harness, ready to run under qemu-user.
type Harness struct {
	Tools
	qemu, path string
}

// Build finds the tools (skipping the test without them, failing it under
// CI=true: see oracle.Tool) and compiles testdata/qemu/harness.c.
func Build(t *testing.T, tools Tools) *Harness {
	t.Helper()
	h := &Harness{Tools: tools}
	h.qemu = oracle.Tool(t, "qemu-user", tools.What, tools.QEMU)
	gcc := oracle.Tool(t, tools.GCCPkg, tools.What, tools.GCC)
	h.path = filepath.Join(t.TempDir(), "harness")
	args := append([]string{"-static"}, tools.CFlags...)
	args = append(args, "-O2", "-Wall", "-o", h.path, filepath.Join("testdata", "qemu", "harness.c"))
	out, err := exec.Command(gcc, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("building the harness: %v\n%s", err, out)
	}
	return h
}

// Run writes in, the marshalled n cases, to the harness and returns its
// results, OutSize bytes each.
func (h *Harness) Run(in []byte, n int) ([]byte, error) {
	cmd := exec.Command(h.qemu, append(h.QEMUArgs[:len(h.QEMUArgs):len(h.QEMUArgs)], h.path)...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	out, rerr := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("%s harness: %v (after %d of %d cases)\n%s",
			h.QEMU, err, len(out)/h.OutSize, n, stderr.String())
	}
	if rerr != nil {
		return nil, rerr
	}
	if len(out) != n*h.OutSize {
		return nil, fmt.Errorf("%s harness wrote %d bytes for %d cases", h.QEMU, len(out), n)
	}
	return out, nil
}
