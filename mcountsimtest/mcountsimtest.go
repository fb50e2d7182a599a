// Package mcountsimtest helps Go test suites check patch strategies with
// mcountsim, as net/http/httptest helps HTTP tests. It is built on testify's
// require: a helper that fails stops the test with t.FailNow.
//
//	func TestMyStrategyIsSafe(t *testing.T) {
//		mcountsimtest.RequireSafe(t, explore.Scenario{Strategy: mine}, explore.Options{Bound: 2})
//	}
//
// On failure a helper logs what a person needs to act: the verdict and the
// space it covers, the schedule with the Go call and the command line that
// replay it, the text report with the trace of the run (one column per
// task), and the path of an HTML timeline of the run (package report)
// written into t.TempDir(). The test's temporary directory is removed when
// the test ends; set MCOUNTSIM_HTML_DIR to a directory to keep the pages.
//
// # Fuzzing schedules
//
// FuzzSchedules turns a fuzz test into a search over schedules driven by
// Go's fuzzer (explore.RunBytes): each input is one run, and a run that
// reaches a hazard fails. The fuzzer then saves the input under
// testdata/fuzz/<FuzzName>/, and plain `go test` replays it as an ordinary
// test case — failing, with the same report, until the strategy is fixed.
//
//	func FuzzMyStrategy(f *testing.F) {
//		mcountsimtest.FuzzSchedules(f, explore.Scenario{Strategy: mine}, explore.Options{Bound: 2})
//	}
//
//	go test -run '^$' -fuzz '^FuzzMyStrategy$' -fuzztime 60s ./mypkg
//
// The exhaustive check (RequireSafe) is the stronger statement within its
// bound; fuzzing is for scenarios too large to exhaust (more tasks, CPUs,
// iterations or toggles), where it samples schedules that no bound limits
// but the preemption bound of opts.
//
// Nothing but tests should import this package.
//
// Imports: explore, report, detect, testify and the standard library.
package mcountsimtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/detect"
	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/report"
)

// HTMLDirEnv names the environment variable that, when set, is the
// directory the helpers write HTML timelines to instead of t.TempDir().
const HTMLDirEnv = "MCOUNTSIM_HTML_DIR"

// RequireSafe checks sc within opts (explore.Check) and stops the test
// unless the verdict is SAFE: every schedule of the space was explored and
// none reached a hazard. An UNSAFE verdict is reported with its
// counterexample, an INCOMPLETE one with the budget that ran out. It
// returns the result.
func RequireSafe(t testing.TB, sc explore.Scenario, opts explore.Options) *explore.Result {
	t.Helper()
	res, err := explore.Check(sc, opts)
	require.NoError(t, err, "mcountsim: checking %v", sc)
	if res.Verdict != explore.Safe {
		fail(t, sc, opts, res, fmt.Sprintf("%v: want SAFE, got %v", sc, res.Verdict))
	}
	return res
}

// RequireHazard checks sc within opts and stops the test unless the verdict
// is UNSAFE with a hazard of the given kind in the counterexample's run:
// the first hazard or one of its consequences (nop-nop's foreign-slot is
// followed by a bad-return and a fault, and RequireHazard accepts any of
// the three). It returns the result, whose Hazard is the first hazard.
func RequireHazard(t testing.TB, sc explore.Scenario, opts explore.Options, kind detect.Kind) *explore.Result {
	t.Helper()
	res, err := explore.Check(sc, opts)
	require.NoError(t, err, "mcountsim: checking %v", sc)
	switch {
	case res.Verdict != explore.Unsafe:
		fail(t, sc, opts, res, fmt.Sprintf("%v: want UNSAFE with a %v hazard, got %v", sc, kind, res.Verdict))
	case !hasKind(res, kind):
		fail(t, sc, opts, res, fmt.Sprintf("%v: want a %v hazard, the counterexample has %s", sc, kind, kinds(res)))
	}
	return res
}

// RequireSafeRun runs the one schedule that data chooses (explore.RunBytes)
// and stops the test if it reaches a hazard. It is the body of
// FuzzSchedules, for fuzz targets that do more with each run.
func RequireSafeRun(t testing.TB, sc explore.Scenario, opts explore.Options, data []byte) *explore.Result {
	t.Helper()
	res, err := explore.RunBytes(sc, opts, data)
	require.NoError(t, err, "mcountsim: running %v", sc)
	if res.Hazard != nil {
		fail(t, sc, opts, res, fmt.Sprintf("%v: the schedule %q reaches a hazard", sc, res.Schedule))
	}
	return res
}

// FuzzSchedules makes f a fuzz target over the schedules of sc within the
// preemption bound of opts: every input drives one run, and a run that
// reaches a hazard fails with RequireSafe's report. The seed corpus is the
// default schedule plus whatever testdata/fuzz/<name>/ holds.
func FuzzSchedules(f *testing.F, sc explore.Scenario, opts explore.Options) {
	f.Helper()
	f.Add([]byte{})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		RequireSafeRun(t, sc, opts, data)
	})
}

func hasKind(res *explore.Result, kind detect.Kind) bool {
	for _, h := range res.Hazards {
		if h.Kind == kind {
			return true
		}
	}
	return false
}

func kinds(res *explore.Result) string {
	var ks []string
	for _, h := range res.Hazards {
		ks = append(ks, h.Kind.String())
	}
	if len(ks) == 0 {
		return "no hazard"
	}
	return strings.Join(ks, ", then ")
}

// fail logs the report of res and stops the test.
func fail(t testing.TB, sc explore.Scenario, opts explore.Options, res *explore.Result, headline string) {
	t.Helper()
	sc = explore.AsSearched(sc, res)
	var b strings.Builder
	fmt.Fprintf(&b, "mcountsim: %s\n", headline)
	fmt.Fprintf(&b, "verdict:  %v: %s\n", res.Verdict, res.Space.Description)
	if res.Verdict == explore.Unsafe || res.Mode == "replay" {
		in := "sc"
		if res.Space.NoReferenceReductions {
			in = "explore.AsSearched(sc, res)" // the search turned them off
		}
		fmt.Fprintf(&b, "replay:   explore.Replay(%s, %q, opts)\n", in, res.Schedule)
		fmt.Fprintf(&b, "          %s\n", report.ReplayCommand(sc, opts, res.Schedule))
		if note := report.ReplayNote(sc, res.Schedule); note != "" {
			fmt.Fprintf(&b, "          (%s)\n", note)
		}
	}
	b.WriteString("\n")
	if err := report.TextFor(&b, sc, opts, res); err != nil {
		fmt.Fprintf(&b, "(text report failed: %v)\n", err)
	}
	where := "HTML timeline: "
	if path, err := writeHTML(t, sc, opts, res); err != nil {
		where += "not written: " + err.Error()
	} else {
		where += path
		if os.Getenv(HTMLDirEnv) == "" {
			where += " (removed when the test ends; set " + HTMLDirEnv + " to keep it)"
		}
	}
	b.WriteString("\n" + where + "\n")
	t.Log(b.String())
	require.Fail(t, "mcountsim: "+headline, "schedule %q; %s", res.Schedule, where)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// writeHTML writes the timeline of res and returns its path.
func writeHTML(t testing.TB, sc explore.Scenario, opts explore.Options, res *explore.Result) (string, error) {
	dir := os.Getenv(HTMLDirEnv)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	name := unsafeName.ReplaceAllString(t.Name(), "_")
	if sc.Strategy != nil {
		name += "-" + unsafeName.ReplaceAllString(sc.Strategy.Name, "_")
	}
	path := filepath.Join(dir, name+".html")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	if res, err = explore.WithRun(sc, opts, res); err != nil {
		f.Close()
		return "", err
	}
	if err := report.HTML(f, sc, opts, res); err != nil {
		f.Close()
		return "", err
	}
	return path, f.Close()
}
