package main

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// TestModelDoc keeps docs/model.md true: the statements marked
// [test: TestModelDoc/...] there are checked here against the code.
func TestModelDoc(t *testing.T) {
	raw, err := os.ReadFile("../../docs/model.md")
	require.NoError(t, err)
	doc := string(raw)
	section := func(title string) string {
		i := strings.Index(doc, "\n## "+title)
		require.GreaterOrEqual(t, i, 0, "model.md has a section %q", title)
		rest := doc[i+1:]
		if j := strings.Index(rest[3:], "\n## "); j >= 0 {
			return rest[:j+3]
		}
		return rest
	}

	t.Run("defaults", func(t *testing.T) {
		sc := explore.Scenario{Arch: kernel.ARM}.WithDefaults()
		assert.Equal(t, 2, sc.CPUs)
		assert.Equal(t, 2, sc.Tasks)
		assert.Equal(t, 2, sc.Iterations)
		assert.Equal(t, 2, sc.Toggles)
		assert.Equal(t, 1, sc.Functions)
		assert.Equal(t, 2, explore.DefaultBound)
		assert.Equal(t, 8, explore.MaxCPUs)
		s1 := section("1. The simulated system")
		for _, want := range []string{"`cpus` CPUs (default 2, at most 8)", "`tasks` workers\n  (default 2)",
			"(`iterations`, default 2)", "(default 2: enable, then disable)", "**one** traced function, `f0`", "**preemption bound** (default 2)"} {
			assert.Contains(t, s1, want)
		}
		_, out, _ := mcountsim("check", "--strategy", "nop-nop", "--bound", "0")
		assert.Contains(t, out, "scenario: arm nop-nop, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles, 1 functions")
	})

	t.Run("arm-text", func(t *testing.T) {
		// The counterexample's trace runs the text §1 describes.
		_, out, _ := mcountsim("check", "--strategy", "nop-nop")
		for _, insn := range []string{"f0: push {r4, lr}", "f0+0x8: bl 0x8038 <__gnu_mcount_nc>", "f0+0xc: mov r4, r0", "f0+0x10: add r0, r4, #1",
			"f0+0x14: pop {r4, pc}", "__gnu_mcount_nc: push {r0, r1, r2, r3, lr}", "__gnu_mcount_nc+0x4: ldr r1, [sp, #20]",
			"__gnu_mcount_nc+0x8: sub r0, lr, #4", "__gnu_mcount_nc+0x10: pop {r0, r1, r2, r3}", "__gnu_mcount_nc+0x14: ldr lr, [sp, #4]",
			"__gnu_mcount_nc+0x18: ldr pc, [sp], #8"} {
			assert.Contains(t, out, insn)
		}
		_, list, _ := mcountsim("strategies")
		assert.Contains(t, list, "+0 push {lr}; +4 bl __gnu_mcount_nc")
		assert.Contains(t, doc, "`push {lr}` (`e52de004`)")
		assert.Contains(t, out, "e52de004 (push {lr})")
	})

	t.Run("preemption", func(t *testing.T) {
		code, _, _ := mcountsim("check", "--strategy", "nop-nop", "--preempt", "none")
		assert.Equal(t, 0, code, "under preempt none the seed race cannot happen")
		code, out, _ := mcountsim("check", "--strategy", "nop-nop")
		assert.Equal(t, 1, code, "full is the default")
		assert.Contains(t, out, "preempt full")
		assert.Contains(t, out, "~~ PREEMPTED (by its CPU's stopper) ~~", "a stopper taking a CPU counts as a preemption")
		assert.Contains(t, out, "found with 1 preemption(s)")
	})

	t.Run("strategies", func(t *testing.T) {
		row := regexp.MustCompile("(?m)^\\| (arm|x86) \\| `([a-z0-9-]+)` \\| (SAFE|UNSAFE) \\|")
		rows := row.FindAllStringSubmatch(section("2. Built-in strategies"), -1)
		var documented, builtin []string
		for _, r := range rows {
			documented = append(documented, r[1]+"/"+r[2])
			t.Run(r[2], func(t *testing.T) {
				code, out, errOut := mcountsim("check", "--arch", r[1], "--strategy", r[2])
				want := map[string]int{"SAFE": 0, "UNSAFE": 1}[r[3]]
				require.Equal(t, want, code, "%s/%s: model.md says %s\n%s%s", r[1], r[2], r[3], out, errOut)
				if r[2] == "plain-write" {
					assert.Contains(t, out, "hazard:   torn-fetch", "x86 bytes stored one by one tear")
				}
			})
		}
		for _, s := range patch.Builtins() {
			if s.Arch == kernel.ARM || s.Arch == kernel.X86 {
				builtin = append(builtin, s.Arch.String()+"/"+s.Name)
			}
		}
		sort.Strings(documented)
		sort.Strings(builtin)
		assert.Equal(t, builtin, documented, "§2 lists every ARM and x86 built-in")
	})

	t.Run("hazards", func(t *testing.T) {
		item := regexp.MustCompile("(?m)^- `([a-z-]+)`")
		var documented, kinds []string
		for _, m := range item.FindAllStringSubmatch(section("3. Hazards"), -1) {
			documented = append(documented, m[1])
		}
		for k := detect.Kind(1); ; k++ {
			if strings.HasPrefix(k.String(), "Kind(") {
				break
			}
			kinds = append(kinds, k.String())
		}
		sort.Strings(documented)
		sort.Strings(kinds)
		assert.Equal(t, kinds, documented, "§3 lists exactly the hazard kinds the detectors report")
		// §1a's rule is enforced by a hazard of its own.
		_, err := detect.ParseKind("cmodx")
		assert.NoError(t, err)
	})
}
