package isatest

import (
	"errors"
	"testing"

	"github.com/mcountsim/mcountsim/isa"
)

// Fault fails t unless err, from executing the instruction at pc, is an
// *isa.Fault at pc that wraps one of sentinels (the fuzzers' contract for
// every execution failure), and returns the fault.
func Fault(t testing.TB, err error, pc uint64, sentinels ...error) *isa.Fault {
	t.Helper()
	var e *isa.Fault
	if !errors.As(err, &e) || e.PC != pc {
		t.Fatalf("error %#v is not an *isa.Fault at pc %#x", err, pc)
	}
	for _, s := range sentinels {
		if errors.Is(err, s) {
			_ = err.Error()
			return e
		}
	}
	t.Fatalf("error %v wraps none of %v", err, sentinels)
	return nil
}
