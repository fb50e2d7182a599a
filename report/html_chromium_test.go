package report

import (
	"bytes"
	"context"
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
	"github.com/mcountsim/mcountsim/kernel"
)

// chromium finds a headless-capable Chromium. Outside CI a missing browser
// skips the test; under CI=true (.ci/run installs Debian's chromium) it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but no chromium on PATH (.ci/run installs Debian's chromium)")
	}
	t.Skip("chromium not installed (apt-get install chromium); the HTML timeline is not checked in a browser")
	return ""
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
		assert.Equal(t, "1", a["data-current-step"], "it starts at the first step")
		assert.Contains(t, string(dom), `<tr id="e0" class="ev-switch switch current"`)
	})
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
		// The page opens at the first step, where "first" is disabled: every
		// click counted is one on "next".
		assert.Equal(t, strconv.Itoa(n), a["data-clicks"], "one click on next per step")
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
