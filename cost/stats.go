package cost

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
)

// Options configure Compare; the zero value means the documented defaults.
type Options struct {
	// Alpha is the significance level of the Mann-Whitney U test:
	// the difference is significant when p <= Alpha (benchstat's rule).
	// Default 0.05.
	Alpha float64
	// Confidence is the level of the medians' confidence intervals.
	// Default 0.95.
	Confidence float64
	// Power is the chance of detecting the observed difference that the
	// needed-runs estimate aims for. Default 0.8.
	Power float64
}

func (o Options) withDefaults() Options {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Confidence == 0 {
		o.Confidence = 0.95
	}
	if o.Power == 0 {
		o.Power = 0.8
	}
	return o
}

// Summary describes one sample: its median and the median's confidence
// interval, from benchmath.AssumeNothing. Lo and Hi are -Inf/+Inf when
// the sample is too small for an interval at the asked level; Warnings
// then says how many runs an interval needs.
type Summary struct {
	N          int
	Median     float64
	Lo, Hi     float64
	Confidence float64 // the interval's actual level, >= the asked one
	StdDev     float64 // sample standard deviation (n-1), the spread the estimate uses
	Warnings   []string
}

// Comparison is the result of Compare(a, b).
type Comparison struct {
	Unit string
	A, B Summary
	// Delta is (median B - median A) / median A in percent.
	Delta float64
	// P is the two-sided p-value of the Mann-Whitney U test that A and
	// B come from the same distribution.
	P           float64
	Alpha       float64
	Significant bool // P <= Alpha
	// MinRuns is the smallest number of runs per side with which the
	// Mann-Whitney test can reach Alpha at all: with fewer, even two
	// samples in which every run of one side beats every run of the other
	// give p > Alpha.
	MinRuns int
	// NeededRuns estimates the runs per side needed to detect the observed
	// difference at the observed noise with probability Power: the larger
	// of MinRuns and the normal-approximation estimate (see Compare). It
	// is 0 when no estimate can be made (the medians are equal).
	NeededRuns int
	// Verdict says in one or two sentences what the runs show.
	Verdict string
	// Warnings are benchmath's warnings about the test, the samples and
	// their summaries, without duplicates.
	Warnings []string
}

// maxRuns bounds the runs-per-side search and estimate.
const maxRuns = 1_000_000

// Compare compares sample a (the baseline) with sample b using
// golang.org/x/perf/benchmath's AssumeNothing, as benchstat does: medians
// with confidence intervals and the Mann-Whitney U test. It fails with an
// *InputError wrapping ErrEmpty or ErrTooFew when a sample has fewer than
// two values, and ErrUnit when the units differ.
//
// Runs needed. MinRuns comes from benchmath itself: the smallest n for
// which AssumeNothing.Compare of two completely separated samples of n
// runs each (the most extreme data the test can see) gives p <= Alpha.
// NeededRuns adds the textbook normal-approximation sample size for a
// two-sided two-sample test, n = 2((z(1-Alpha/2) + z(Power)) s / d)^2,
// with d the observed difference of the medians and s the pooled sample
// standard deviation sqrt((sa^2 + sb^2)/2), divided by 3/pi, the
// asymptotic relative efficiency of the Mann-Whitney test against the
// t-test for normal data. It assumes the noise is roughly normal, that
// the observed d and s are the true ones (with three runs a side both are
// rough) and that runs are independent (no boot-to-boot drift). It is an
// order of magnitude, not a promise.
func Compare(a, b Sample, opts Options) (Comparison, error) {
	opts = opts.withDefaults()
	for _, s := range []Sample{a, b} {
		switch len(s.Values) {
		case 0:
			return Comparison{}, &InputError{File: s.Name, Err: ErrEmpty, Msg: "no measurements"}
		case 1:
			return Comparison{}, &InputError{File: s.Name, Err: ErrTooFew,
				Msg: "only one measurement: one run has no spread, so it cannot tell noise from a difference; repeat the run (at least 2, and see --help for how many)"}
		}
	}
	if a.Unit != b.Unit {
		return Comparison{}, &InputError{File: b.Name, Err: ErrUnit,
			Msg: fmt.Sprintf("is in %s but %s is in %s; compare one unit (--unit)", unitName(b.Unit), a.Name, unitName(a.Unit))}
	}
	th := benchmath.DefaultThresholds
	th.CompareAlpha = opts.Alpha
	sa := benchmath.NewSample(slices.Clone(a.Values), &th)
	sb := benchmath.NewSample(slices.Clone(b.Values), &th)
	c := Comparison{
		Unit:  a.Unit,
		A:     summarize(sa, opts.Confidence),
		B:     summarize(sb, opts.Confidence),
		Alpha: opts.Alpha,
	}
	cmp := benchmath.AssumeNothing.Compare(sa, sb)
	c.P = cmp.P
	c.Significant = cmp.P <= opts.Alpha
	c.Warnings = errStrings(append(append(sa.Warnings, sb.Warnings...), cmp.Warnings...))
	for _, w := range append(slices.Clone(c.A.Warnings), c.B.Warnings...) {
		if !slices.Contains(c.Warnings, w) {
			c.Warnings = append(c.Warnings, w)
		}
	}
	if c.A.Median != 0 {
		c.Delta = (c.B.Median - c.A.Median) / math.Abs(c.A.Median) * 100
	}
	c.MinRuns = minRuns(opts.Alpha)
	c.NeededRuns = neededRuns(c.A, c.B, opts, c.MinRuns)
	c.Verdict = verdict(c, a.Name, b.Name)
	return c, nil
}

func summarize(s *benchmath.Sample, confidence float64) Summary {
	sum := benchmath.AssumeNothing.Summary(s, confidence)
	return Summary{
		N:          len(s.Values),
		Median:     sum.Center,
		Lo:         sum.Lo,
		Hi:         sum.Hi,
		Confidence: sum.Confidence,
		StdDev:     stdDev(s.Values),
		Warnings:   errStrings(append(s.Warnings, sum.Warnings...)),
	}
}

// minRuns is the smallest n per side for which benchmath's Mann-Whitney
// test, given two completely separated samples of n runs, reaches alpha;
// maxRuns if none up to a practical limit does.
func minRuns(alpha float64) int {
	th := benchmath.DefaultThresholds
	th.CompareAlpha = alpha
	for n := 2; n <= 64; n++ {
		lo, hi := make([]float64, n), make([]float64, n)
		for i := range n {
			lo[i], hi[i] = float64(i), float64(n+i)
		}
		p := benchmath.AssumeNothing.Compare(benchmath.NewSample(lo, &th), benchmath.NewSample(hi, &th)).P
		if p <= alpha {
			return n
		}
	}
	return maxRuns
}

// neededRuns is the larger of min and the normal-approximation estimate
// documented on Compare; 0 when the medians are equal.
func neededRuns(a, b Summary, opts Options, min int) int {
	d := math.Abs(b.Median - a.Median)
	if d == 0 {
		return 0
	}
	s := math.Sqrt((a.StdDev*a.StdDev + b.StdDev*b.StdDev) / 2)
	z := zQuantile(1-opts.Alpha/2) + zQuantile(opts.Power)
	nt := 2 * (z * s / d) * (z * s / d)
	n := math.Ceil(nt / (3 / math.Pi))
	if n > maxRuns {
		return maxRuns
	}
	return max(min, int(n))
}

// zQuantile is the standard normal quantile function.
func zQuantile(p float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*p-1)
}

func stdDev(v []float64) float64 {
	if len(v) < 2 {
		return 0
	}
	var mean float64
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}

func verdict(c Comparison, nameA, nameB string) string {
	n := fmt.Sprintf("p=%.3g, n=%d+%d", c.P, c.A.N, c.B.N)
	if c.Significant {
		dir := "higher"
		if c.Delta < 0 {
			dir = "lower"
		}
		return fmt.Sprintf("%s's median is %.2f%% %s than %s's, and the difference is significant at alpha %g (%s).",
			nameB, math.Abs(c.Delta), dir, nameA, c.Alpha, n)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "The runs cannot tell %s and %s apart at alpha %g (%s; the medians differ by %+.2f%%).",
		nameA, nameB, c.Alpha, n, c.Delta)
	if c.A.N < c.MinRuns && c.B.N < c.MinRuns {
		fmt.Fprintf(&sb, " With fewer than %d runs a side the Mann-Whitney test cannot reach p <= %g even if every run of one side beat every run of the other.",
			c.MinRuns, c.Alpha)
	}
	switch {
	case c.NeededRuns == 0:
		sb.WriteString(" The medians are equal, so no number of runs can be estimated from these.")
	case c.NeededRuns >= maxRuns:
		sb.WriteString(" The difference is so small against the noise that no practical number of runs would show it.")
	default:
		fmt.Fprintf(&sb, " At the observed noise about %d runs a side would be needed.", c.NeededRuns)
	}
	return sb.String()
}

func unitName(u string) string {
	if u == "" {
		return "plain numbers"
	}
	return u
}

func errStrings(errs []error) []string {
	var out []string
	for _, e := range errs {
		if s := e.Error(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
