package arm64_test

import (
	"fmt"

	"github.com/mcountsim/mcountsim/isa/arm64"
)

// The two words Linux toggles at an arm64 call site, and whether another
// CPU may execute them while they change.
func ExampleInCMODXSet() {
	const site = 0xffff800008010004
	bl, _ := arm64.BL(site, 0xffff800008020000) // BL ftrace_caller
	for _, w := range []arm64.Word{arm64.MovReg(arm64.X9, arm64.LR), arm64.Nop(), bl} {
		fmt.Printf("%v %-30s cmodx=%v\n", w, arm64.DisasmWord(site, uint32(w)), arm64.InCMODXSet(uint32(w)))
	}
	// Output:
	// aa1e03e9 mov x9, x30                    cmodx=false
	// d503201f nop                            cmodx=true
	// 94003fff bl 0xffff800008020000          cmodx=true
}
