package kernel_test

import (
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
)

// TestRISCVObjects is issue 15's acceptance for check --object: every
// args8.c function (up to 8 arguments in a0-a7), compiled with
// -fpatchable-function-entry=4 (RVC), =2 (no RVC), =8, =8,4 and -pg, runs
// to completion and returns what it returns under qemu-riscv64.
func TestRISCVObjects(t *testing.T) { testObjects64(t, kernel.RISCV64) }

// TestRISCVObjectVerdicts: on real gcc output, the 2025 design (era 3) is
// SAFE and eras 0-2 UNSAFE under preemption: a task preempted inside the
// two-word call resumes in a pair the patcher half rewrote, a wild call.
func TestRISCVObjectVerdicts(t *testing.T) { testVerdicts64(t, kernel.RISCV64) }
