// Package oracle finds the external tools (qemu-user, cross binutils and
// compilers, llvm-mca, chromium) that some tests compare mcountsim with.
//
// Without the tool a test skips, and says so in one line on the terminal
// even without go test -v (go test shows a passing package's output only
// with -v, so the line goes to /dev/tty when there is one, else to
// stderr); under CI=true a missing tool fails the test instead. The README
// lists the oracles and the one apt-get line that installs them all.
//
// Imports: the standard library only.
package oracle

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
)

// announced holds the tools whose absence this test binary already
// reported on the terminal.
var announced sync.Map

// Tool returns the path of the first of names on PATH. When none is
// installed it fails the test under CI=true and otherwise skips it; the
// first skip for a tool prints one line, e.g.
//
//	oracle: qemu-arm not installed (apt-get install qemu-user): skipping the ARM executor against QEMU (isa/arm)
//
// debPkg is the Debian package that installs it, what says what is not
// checked without it.
func Tool(t testing.TB, debPkg, what string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("oracle: %s not installed (apt-get install %s): skipping %s", names[0], debPkg, what)
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but %s", msg)
	}
	if _, done := announced.LoadOrStore(names[0], true); !done {
		announce(msg)
	}
	t.Skip(msg)
	return ""
}

// Terminal is where announcements go; tests replace it.
var Terminal = func() (io.WriteCloser, error) { return os.OpenFile("/dev/tty", os.O_WRONLY, 0) }

func announce(msg string) {
	if w, err := Terminal(); err == nil {
		fmt.Fprintln(w, msg)
		w.Close()
		return
	}
	fmt.Fprintln(os.Stderr, msg)
}
