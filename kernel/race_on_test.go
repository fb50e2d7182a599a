//go:build race

package kernel_test

// raceEnabled: the race detector slows the searches of the verdict tests
// tenfold; under it they are skipped (explore's race tests cover the
// search's goroutines on small scenarios).
const raceEnabled = true
