package kernel_test

import (
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
)

// TestARM64Objects is issue 16's acceptance for check --object: every
// args8.c function (up to 8 arguments in x0-x7), compiled with
// -fpatchable-function-entry=2, =4,2 and -pg, runs to completion and
// returns what it returns under qemu-aarch64.
func TestARM64Objects(t *testing.T) { testObjects64(t, kernel.ARM64) }

// TestARM64ObjectVerdicts: on a real -O2 frame, Linux's strategies are
// SAFE and the both-words foils UNSAFE (the plain stores break the CMODX
// rule; under stop_machine a task preempted between the two words returns
// through a stale x9).
func TestARM64ObjectVerdicts(t *testing.T) { testVerdicts64(t, kernel.ARM64) }
