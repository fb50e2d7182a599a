package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// The example tells the whole story: the nop-nop crash, then the fix.
func TestSeedRaceStory(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	w.Close()
	out, _ := io.ReadAll(r)
	for _, want := range []string{
		"mcountsim: UNSAFE with 1 preemption(s).",
		"executes mov r0, r0",
		"executes bl ",
		"foreign-slot in __gnu_mcount_nc+0x14",
		"bad-return in f0+0x14",
		"mcountsim: SAFE: every schedule within preemption bound 2",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
