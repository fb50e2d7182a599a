package report

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/internal/oracle"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// chromium finds a headless-capable Chromium. Outside CI a missing browser
// skips the test, saying so on the terminal (internal/oracle); under
// CI=true (.ci/run installs Debian's chromium) it fails.
func chromium(t *testing.T) string {
	t.Helper()
	return oracle.Tool(t, "chromium", "the HTML timeline in a headless browser (report)",
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
}

// runChromium runs a headless browser on url with extra arguments and
// returns its standard output.
func runChromium(t *testing.T, bin, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--hide-scrollbars",
		"--user-data-dir=" + t.TempDir(), "--virtual-time-budget=3000",
	}, args...)
	all = append(all, url)
	cmd := exec.CommandContext(ctx, bin, all...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "chromium %v failed; stderr:\n%s", all, stderr.String())
	return stdout.Bytes()
}

var bodyRE = regexp.MustCompile(`<body([^>]*)>`)
var attrRE = regexp.MustCompile(`([a-z-]+)="([^"]*)"`)

// bodyAttrs reads the attributes the page's script set on <body>.
func bodyAttrs(t *testing.T, dom []byte) map[string]string {
	t.Helper()
	m := bodyRE.FindSubmatch(dom)
	require.NotNil(t, m, "no <body> in the DOM:\n%s", dom)
	attrs := map[string]string{}
	for _, a := range attrRE.FindAllSubmatch(m[1], -1) {
		attrs[string(a[1])] = string(a[2])
	}
	return attrs
}

// Acceptance 2: the nop-nop page loads in a real browser without script
// errors, its own controls step to the hazard, and it draws.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "nop-nop")}
	res, page := renderHTML(t, sc, explore.Options{Bound: explore.DefaultBound})
	require.NotNil(t, res.Hazard)
	hazardStep := res.Hazard.Step
	file := filepath.Join(dir, "nop-nop.html")
	require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
	url := "file://" + file

	t.Run("loads", func(t *testing.T) {
		dom := runChromium(t, bin, url, "--dump-dom")
		a := bodyAttrs(t, dom)
		assert.Equal(t, "ok", a["data-status"], "the script ran to its end without errors")
		assert.Equal(t, strconv.Itoa(hazardStep), a["data-current-step"], "it opens at the hazard, not at step 1")
		assert.Equal(t, "true", a["data-current-hazard"])
		assert.Contains(t, string(dom), `<tr id="e0" class="ev-switch switch"`, "the first row is neither current nor greyed")
	})
	// Issue 14, point 6: at a projector's sizes, with or without
	// #step=hazard, the hazard row, the stack panel and the slot the
	// trampoline expected are in the window (the page measures its own
	// boxes, getBoundingClientRect, and reports them on <body>).
	for _, size := range []struct{ w, h int }{{1280, 800}, {1920, 1080}} {
		for _, frag := range []string{"", "#step=hazard"} {
			name := fmt.Sprintf("%dx%d%s", size.w, size.h, frag)
			t.Run(name, func(t *testing.T) {
				win := fmt.Sprintf("--window-size=%d,%d", size.w, size.h)
				dom := runChromium(t, bin, url+frag, win, "--dump-dom")
				a := bodyAttrs(t, dom)
				assert.Equal(t, "ok", a["data-status"])
				assert.Equal(t, "measured", a["data-layout"])
				// The window's inner size: its width, and its height less
				// the browser's own bars.
				var vw, vh int
				_, err := fmt.Sscanf(a["data-viewport"], "%dx%d", &vw, &vh)
				require.NoError(t, err, a["data-viewport"])
				assert.Equal(t, size.w, vw)
				assert.LessOrEqual(t, vh, size.h)
				assert.Greater(t, vh, size.h*3/4)
				assert.Equal(t, strconv.Itoa(hazardStep), a["data-current-step"])
				assert.Equal(t, "true", a["data-hazard-in-view"], "the hazard row is in the window")
				assert.Equal(t, "true", a["data-current-in-view"])
				assert.Equal(t, "true", a["data-stack-in-view"], "the stack panel is in the window")
				assert.Equal(t, "true", a["data-expected-in-view"], "the slot the trampoline expected is in the window")
				// The stack panel shows worker0's stack: the slot the
				// trampoline loaded lr from, written from r4 by f0's push.
				assert.Regexp(t, `<section id="stack" data-task="0" data-slots="\d+">`, string(dom))
				assert.Regexp(t, `<tr class="expected[^"]*" data-addr="0x7f0000e8"><td><code>0x7f0000e8</code></td><td><code>[0-9a-f]{8}</code></td><td>from r4 by <code>f0: push \{r4, lr\}</code> <a class="goto" href="#step=6"`, string(dom))
				// The idle worker's lane is collapsed.
				assert.Contains(t, string(dom), `<th class="lane lane-task c-w1 lane-idle"`)
				shot := filepath.Join(dir, fmt.Sprintf("nop-nop-%dx%d.png", size.w, size.h))
				runChromium(t, bin, url+frag, win, "--screenshot="+shot)
				if keep := os.Getenv("MCOUNTSIM_SCREENSHOT_DIR"); keep != "" {
					b, err := os.ReadFile(shot)
					require.NoError(t, err)
					require.NoError(t, os.WriteFile(filepath.Join(keep, filepath.Base(shot)), b, 0o644))
				}
			})
		}
	}
	// The "hazard" button, pressed by the page's own script for #step=hazard.
	t.Run("hazard button", func(t *testing.T) {
		dom := runChromium(t, bin, url+"#step=hazard", "--dump-dom")
		a := bodyAttrs(t, dom)
		assert.Equal(t, "ok", a["data-status"])
		assert.Equal(t, "step=hazard", a["data-driven"])
		assert.Equal(t, strconv.Itoa(hazardStep), a["data-current-step"])
		assert.Equal(t, "true", a["data-current-hazard"])
		assert.Regexp(t, `<tr id="e\d+" class="[^"]*first-hazard[^"]*current[^"]*" data-step="`+strconv.Itoa(hazardStep)+`" data-kind="hazard" aria-current="step">`, string(dom))
		assert.Regexp(t, `<span id="position">step `+strconv.Itoa(hazardStep)+` \(\d+/\d+\) ⚠</span>`, string(dom))
		assert.Regexp(t, `<p id="state-summary">step `+strconv.Itoa(hazardStep)+` · cpu\d · worker0 · foreign-slot`, string(dom))
	})
	// "first", then "next" until the hazard: stepping one step at a time.
	t.Run("next to hazard", func(t *testing.T) {
		dom := runChromium(t, bin, url+"#walk=hazard", "--dump-dom")
		a := bodyAttrs(t, dom)
		assert.Equal(t, "ok", a["data-status"])
		assert.Equal(t, strconv.Itoa(hazardStep), a["data-current-step"])
		assert.Equal(t, "true", a["data-current-hazard"])
		steps := pageDataOf(t, page).Steps
		n := 0
		for steps[n] != hazardStep {
			n++
		}
		// The page opens at the hazard: one click on "first", then one on
		// "next" per step.
		assert.Equal(t, strconv.Itoa(n+1), a["data-clicks"], "first, then one click on next per step")
	})
	t.Run("screenshot", func(t *testing.T) {
		shot := filepath.Join(dir, "nop-nop.png")
		runChromium(t, bin, url+"#step=hazard", "--window-size=1400,2100", "--screenshot="+shot)
		f, err := os.Open(shot)
		require.NoError(t, err)
		defer f.Close()
		img, err := png.Decode(f)
		require.NoError(t, err)
		assert.Equal(t, image.Rect(0, 0, 1400, 2100), img.Bounds())
		// The page drew: many colours, the verdict's red, the stop_machine
		// span's purple and the current step's yellow among them.
		colours := map[[3]uint32]int{}
		for y := 0; y < 2100; y += 2 {
			for x := 0; x < 1400; x += 2 {
				r, g, b, _ := img.At(x, y).RGBA()
				colours[[3]uint32{r >> 8, g >> 8, b >> 8}]++
			}
		}
		assert.Greater(t, len(colours), 50, "a rendered page, not a blank one")
		for name, want := range map[string][3]uint32{"hazard red": {0xd9, 0x2d, 0x2d}, "stop_machine purple": {0x8e, 0x6b, 0xbf}, "current yellow": {0xff, 0xe2, 0x7a}} {
			assert.Greater(t, colours[want], 20, "%s drawn", name)
		}
		if keep := os.Getenv("MCOUNTSIM_SCREENSHOT"); keep != "" {
			b, err := os.ReadFile(shot)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(keep, b, 0o644))
			t.Logf("screenshot written to %s", keep)
		}
	})
	// A tracer kernel's page (issue 17): the interrupt rows are rendered,
	// with their badges and thread_info.
	t.Run("tracer irq rows", func(t *testing.T) {
		tr, err := patch.LookupTracer("resched-read", nil)
		require.NoError(t, err)
		sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "add-sp"), Tracer: tr}
		res, page := renderHTML(t, sc, explore.Options{})
		require.NotNil(t, res.Hazard)
		file := filepath.Join(dir, "resched-read.html")
		require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
		dom := runChromium(t, bin, "file://"+file, "--dump-dom")
		a := bodyAttrs(t, dom)
		assert.Equal(t, "ok", a["data-status"])
		assert.Equal(t, strconv.Itoa(res.Hazard.Step), a["data-current-step"])
		assert.Regexp(t, `<tr id="e\d+" class="ev-irq[^"]*" data-step="43" data-kind="irq">`, string(dom))
		assert.Regexp(t, `<span class="badge b-irq">resched-ipi</span>`, string(dom))
		assert.Regexp(t, `<tr id="e\d+" class="ev-state[^"]*" data-step="48" data-kind="state">`, string(dom))
	})
	// A SAFE page works too.
	t.Run("safe", func(t *testing.T) {
		sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "jmp-over")}
		_, page := renderHTML(t, sc, explore.Options{Bound: 1})
		file := filepath.Join(dir, "jmp-over.html")
		require.NoError(t, os.WriteFile(file, []byte(page), 0o644))
		d := pageDataOf(t, page)
		last := d.Steps[len(d.Steps)-1]
		dom := runChromium(t, bin, "file://"+file+"#step="+strconv.Itoa(last), "--dump-dom")
		a := bodyAttrs(t, dom)
		assert.Equal(t, "ok", a["data-status"])
		assert.Equal(t, strconv.Itoa(last), a["data-current-step"])
		assert.Equal(t, "false", a["data-current-hazard"])
	})
}
