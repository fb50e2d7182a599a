package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/mcountsim/mcountsim/cost"
)

const statsUsage = `usage: mcountsim stats [--json] [--alpha A] [--unit U] [--bench NAME] A B

Compare two sets of repeated measurements, A (the baseline) and B, the way
benchstat does (golang.org/x/perf/benchmath): the median of each with its
confidence interval, the delta of the medians in percent, and the p-value of
the Mann-Whitney U test; the difference is significant when p <= alpha.
When the runs cannot tell A and B apart, it says so, and estimates how many
runs a side would be needed at the observed noise: at least the smallest
number with which the test can reach alpha at all (4 for alpha 0.05), and
more when the difference is small against the spread (a normal-approximation
power estimate at 80 %; see the cost package for its assumptions).

Each file ("-" is standard input; at most 64 MiB) holds one number a line (blank lines and # comments are skipped),
or Go benchmark output ("BenchmarkX-8  1000  123 ns/op ..."), from which
--unit picks the unit (default: the first of the first result) and --bench
the benchmark when a file holds several.

With --json, write one JSON object with the keys file_a, file_b, unit, n_a,
n_b, median_a, median_b, ci_a, ci_b ({lo, hi, confidence}; lo and hi are
null when the sample is too small for an interval), delta (percent), p,
alpha, significant, min_runs, needed_runs, verdict and warnings.

Exit status: 0 on success (significant or not), 2 on bad input (one line on
stderr).

Examples:
  mcountsim stats compiled-out.txt dormant.txt
  mcountsim stats --alpha 0.01 --json old.txt new.txt
  go test -bench Site -count 10 > new.txt && mcountsim stats --unit B/op old.txt new.txt

Flags:
`

// statsCI is a confidence interval in --json; nil bounds are infinite.
type statsCI struct {
	Lo         *float64 `json:"lo"`
	Hi         *float64 `json:"hi"`
	Confidence float64  `json:"confidence"`
}

// statsRecord is the --json output.
type statsRecord struct {
	FileA       string   `json:"file_a"`
	FileB       string   `json:"file_b"`
	Unit        string   `json:"unit"`
	NA          int      `json:"n_a"`
	NB          int      `json:"n_b"`
	MedianA     float64  `json:"median_a"`
	MedianB     float64  `json:"median_b"`
	CIA         statsCI  `json:"ci_a"`
	CIB         statsCI  `json:"ci_b"`
	Delta       float64  `json:"delta"`
	P           float64  `json:"p"`
	Alpha       float64  `json:"alpha"`
	Significant bool     `json:"significant"`
	MinRuns     int      `json:"min_runs"`
	NeededRuns  int      `json:"needed_runs"`
	Verdict     string   `json:"verdict"`
	Warnings    []string `json:"warnings"`
}

// runStats implements `mcountsim stats A B` and returns the exit status:
// 0 on success, 2 on bad input.
func runStats(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stats")
	jsonOut := fs.Bool("json", false, "write one JSON object")
	alpha := fs.Float64("alpha", 0.05, "significance level of the Mann-Whitney U test, in (0, 1)")
	unit := fs.String("unit", "", "unit to read from Go benchmark input (default the first)")
	bench := fs.String("bench", "", "benchmark to read from Go benchmark input holding several")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if helpRequested(err, fs, stdout, statsUsage, "") {
				return 0
			}
			fmt.Fprintf(stderr, "mcountsim stats: %v (see mcountsim stats --help)\n", err)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0)) // flags may follow the files
		args = fs.Args()[1:]
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "mcountsim stats: want two files, A and B, got %d (see mcountsim stats --help)\n", len(files))
		return 2
	}
	if !(*alpha > 0 && *alpha < 1) {
		fmt.Fprintf(stderr, "mcountsim stats: --alpha %v is not in (0, 1)\n", *alpha)
		return 2
	}
	popts := cost.ParseOptions{Unit: *unit, Benchmark: *bench}
	var samples [2]cost.Sample
	for i, path := range files {
		data, err := readInput(path, "", maxResultSize)
		if err != nil {
			fmt.Fprintf(stderr, "mcountsim stats: %s\n", sitesOneLine(err))
			return 2
		}
		s, err := cost.ParseSample(bytes.NewReader(data), path, popts)
		if err != nil {
			fmt.Fprintf(stderr, "mcountsim stats: %s\n", sitesOneLine(err))
			return 2
		}
		samples[i] = s
	}
	c, err := cost.Compare(samples[0], samples[1], cost.Options{Alpha: *alpha, Confidence: statsAskedConfidence})
	if err != nil {
		fmt.Fprintf(stderr, "mcountsim stats: %s\n", sitesOneLine(err))
		return 2
	}
	if *jsonOut {
		err = statsWriteJSON(stdout, files, c)
	} else {
		err = statsWriteText(stdout, files, c)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcountsim stats: %s\n", sitesOneLine(err))
		return 2
	}
	return 0
}

func statsCIOf(s cost.Summary) statsCI {
	ci := statsCI{Confidence: s.Confidence}
	if !math.IsInf(s.Lo, 0) {
		ci.Lo = &s.Lo
	}
	if !math.IsInf(s.Hi, 0) {
		ci.Hi = &s.Hi
	}
	return ci
}

func statsWriteJSON(w io.Writer, files []string, c cost.Comparison) error {
	rec := statsRecord{
		FileA: files[0], FileB: files[1], Unit: c.Unit,
		NA: c.A.N, NB: c.B.N, MedianA: c.A.Median, MedianB: c.B.Median,
		CIA: statsCIOf(c.A), CIB: statsCIOf(c.B),
		Delta: c.Delta, P: c.P, Alpha: c.Alpha, Significant: c.Significant,
		MinRuns: c.MinRuns, NeededRuns: c.NeededRuns, Verdict: c.Verdict,
		Warnings: c.Warnings,
	}
	if rec.Warnings == nil {
		rec.Warnings = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(rec)
}

func statsNum(v float64) string {
	switch {
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsInf(v, 1):
		return "+inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func statsWriteText(w io.Writer, files []string, c cost.Comparison) error {
	unit := c.Unit
	if unit != "" {
		unit = " (" + unit + ")"
	}
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "\tfile\tn\tmedian%s\t%.0f%% CI\n", unit, 100*statsAskedConfidence)
	for i, s := range []cost.Summary{c.A, c.B} {
		fmt.Fprintf(tw, "%c\t%s\t%d\t%s\t[%s, %s]\n", 'A'+i, files[i], s.N, statsNum(s.Median), statsNum(s.Lo), statsNum(s.Hi))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sig := "not significant"
	if c.Significant {
		sig = "significant"
	}
	fmt.Fprintf(w, "delta %+.2f%%  p=%.3g  %s at alpha %g\n", c.Delta, c.P, sig, c.Alpha)
	needed := "unknown (equal medians)"
	if c.NeededRuns > 0 {
		needed = strconv.Itoa(c.NeededRuns)
	}
	fmt.Fprintf(w, "runs a side: the test can reach alpha from %d; needed at the observed noise: %s\n", c.MinRuns, needed)
	fmt.Fprintln(w, c.Verdict)
	for _, warn := range c.Warnings {
		fmt.Fprintf(w, "note: %s\n", warn)
	}
	return nil
}

// statsAskedConfidence is the confidence level of the printed intervals
// (cost.Options' default).
const statsAskedConfidence = 0.95
