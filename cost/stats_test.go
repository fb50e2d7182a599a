package cost

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readTestdata(t *testing.T, name string, opts ParseOptions) Sample {
	t.Helper()
	s, err := ReadSampleFile(filepath.Join("testdata", name), opts)
	require.NoError(t, err)
	return s
}

// TestCompareTbench puts Mathieu Desnoyers's three-run tbench table (seed
// 004) through Compare. Three runs a side can never reach p <= 0.05 with
// the Mann-Whitney test: the smallest two-sided p for 3+3 runs is
// 2/C(6,3) = 0.1, which every pair reaches because the runs do not
// overlap, or do by one rank.
func TestCompareTbench(t *testing.T) {
	cases := []struct {
		a, b   string
		p      float64
		delta  float64
		needed int
	}{
		// All three dormant runs are below all three compiled-out runs;
		// the 3 % effect is ~4 standard deviations, so 4 runs a side (the
		// test's minimum) would do.
		{"tbench-compiled-out.txt", "tbench-inline.txt", 0.1, -3.0687, 4},
		{"tbench-compiled-out.txt", "tbench-out-of-line.txt", 0.1, -4.7528, 4},
		{"tbench-compiled-out.txt", "tbench-inline-immediate.txt", 0.1, -2.5609, 4},
		{"tbench-compiled-out.txt", "tbench-no-kmemtrace.txt", 0.1, -1.9823, 4},
		// Inline against out-of-line: ranks overlap once (U=1), p=0.2;
		// d = 35.2, pooled s = 15.8: n_t = 3.2, /(3/pi) = 3.3, so the
		// test's minimum of 4 rules.
		{"tbench-inline.txt", "tbench-out-of-line.txt", 0.2, -1.7375, 4},
		// Immediate values against plain inline: a 0.5 % difference under
		// the 21 MB/s noise of the inline runs (Jeremy Fitzhardinge's
		// point): d = 10.6, pooled s = 14.9, n_t = 31.1, /(3/pi) = 32.6.
		{"tbench-inline.txt", "tbench-inline-immediate.txt", 0.1, 0.5239, 33},
	}
	for _, tc := range cases {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			a, b := readTestdata(t, tc.a, ParseOptions{}), readTestdata(t, tc.b, ParseOptions{})
			c, err := Compare(a, b, Options{})
			require.NoError(t, err)
			assert.InDelta(t, tc.p, c.P, 1e-12)
			assert.False(t, c.Significant)
			assert.Equal(t, 0.05, c.Alpha)
			assert.InDelta(t, tc.delta, c.Delta, 1e-4)
			assert.Equal(t, 4, c.MinRuns)
			assert.Equal(t, tc.needed, c.NeededRuns)
			assert.Equal(t, 3, c.A.N)
			assert.Equal(t, 3, c.B.N)
			assert.True(t, math.IsInf(c.A.Lo, -1) && math.IsInf(c.A.Hi, 1), "3 runs give no 95%% interval")
			assert.Contains(t, c.A.Warnings, "need >= 6 samples for confidence interval at level 0.95")
			assert.Contains(t, c.Verdict, "cannot tell")
			assert.Contains(t, c.Verdict, fmt.Sprintf("about %d runs a side", tc.needed))
		})
	}
}

// TestCompareTbenchMedians pins the medians of the first pair.
func TestCompareTbenchMedians(t *testing.T) {
	c, err := Compare(readTestdata(t, "tbench-compiled-out.txt", ParseOptions{}),
		readTestdata(t, "tbench-inline.txt", ParseOptions{}), Options{})
	require.NoError(t, err)
	assert.Equal(t, 2089.50, c.A.Median)
	assert.Equal(t, 2025.38, c.B.Median)
	assert.Equal(t, "", c.Unit)
	assert.Contains(t, c.Warnings, "need >= 4 samples to detect a difference at alpha level 0.05")
}

// TestMinRunsMatchesBenchmath checks the computed minimum against the
// number benchmath puts in its own warning, for several alphas.
func TestMinRunsMatchesBenchmath(t *testing.T) {
	for _, alpha := range []float64{0.2, 0.05, 0.01, 0.001} {
		n := minRuns(alpha)
		a, b := make([]float64, n-1), make([]float64, n-1)
		for i := range a {
			a[i], b[i] = float64(i), float64(100+i)
		}
		c, err := Compare(Sample{Name: "a", Values: a}, Sample{Name: "b", Values: b}, Options{Alpha: alpha})
		require.NoError(t, err)
		assert.Contains(t, c.Warnings, fmt.Sprintf("need >= %d samples to detect a difference at alpha level %v", n, alpha), "alpha %v", alpha)
	}
	assert.Equal(t, 3, minRuns(0.2))
	assert.Equal(t, 4, minRuns(0.05))
	assert.Equal(t, 5, minRuns(0.01))
}

// TestNeededRunsFormula recomputes the estimate of one case by hand.
func TestNeededRunsFormula(t *testing.T) {
	a := Summary{Median: 100, StdDev: 10}
	b := Summary{Median: 105, StdDev: 10}
	// d/s = 0.5: n_t = 2*(1.95996+0.84162)^2/0.25 = 62.79; /(3/pi) = 65.8.
	assert.Equal(t, 66, neededRuns(a, b, Options{}.withDefaults(), 4))
	assert.Equal(t, 0, neededRuns(a, a, Options{}.withDefaults(), 4))
	b.Median = 1000 // huge effect: the test's minimum rules
	assert.Equal(t, 4, neededRuns(a, b, Options{}.withDefaults(), 4))
}

func TestCompareSignificant(t *testing.T) {
	a := readTestdata(t, "bench-old.txt", ParseOptions{})
	b := readTestdata(t, "bench-new.txt", ParseOptions{})
	assert.Equal(t, "ns/op", a.Unit)
	assert.Equal(t, "BenchmarkSite-8", a.Benchmark)
	assert.Equal(t, []float64{1021, 1019, 1024, 1020, 1022}, a.Values)
	c, err := Compare(a, b, Options{})
	require.NoError(t, err)
	assert.True(t, c.Significant)
	assert.InDelta(t, 0.007936507936507936, c.P, 1e-12) // 2/C(10,5)
	assert.Equal(t, 1021.0, c.A.Median)
	assert.Equal(t, 1051.0, c.B.Median)
	assert.InDelta(t, 2.9383, c.Delta, 1e-4)
	assert.Equal(t, "ns/op", c.Unit)
	assert.True(t, strings.HasPrefix(c.Verdict, "testdata/bench-new.txt's median is 2.94% higher"), c.Verdict)
	// A stricter alpha than 5 runs can reach.
	c, err = Compare(a, b, Options{Alpha: 0.001})
	require.NoError(t, err)
	assert.False(t, c.Significant)
	assert.Equal(t, 7, c.MinRuns) // the smallest 6+6 p is 2/C(12,6) = 0.00216
	assert.Equal(t, 7, c.NeededRuns)
}

func TestCompareErrors(t *testing.T) {
	two := Sample{Name: "two", Values: []float64{1, 2}}
	_, err := Compare(two, Sample{Name: "one", Values: []float64{1}}, Options{})
	require.ErrorIs(t, err, ErrTooFew)
	assert.Contains(t, err.Error(), "one: only one measurement")
	_, err = Compare(Sample{Name: "none"}, two, Options{})
	require.ErrorIs(t, err, ErrEmpty)
	_, err = Compare(two, Sample{Name: "ns", Unit: "ns/op", Values: []float64{1, 2}}, Options{})
	require.ErrorIs(t, err, ErrUnit)
	assert.Equal(t, "ns: is in ns/op but two is in plain numbers; compare one unit (--unit)", err.Error())
}

func TestParseSample(t *testing.T) {
	cases := []struct {
		name, in string
		opts     ParseOptions
		want     []float64
		unit     string
		err      error
		msg      string
	}{
		{"plain", "1\n 2.5 \n\n# note\n-3e2\n", ParseOptions{}, []float64{1, 2.5, -300}, "", nil, ""},
		{"empty", "", ParseOptions{}, nil, "", ErrEmpty, "f: no measurements"},
		{"blank", "\n  \n# only a comment\n", ParseOptions{}, nil, "", ErrEmpty, "f: no measurements"},
		{"word", "1\n2\nabc\n", ParseOptions{}, nil, "", ErrSyntax, `f:3: "abc" is not a finite number`},
		{"nan", "NaN\n", ParseOptions{}, nil, "", ErrSyntax, `f:1: "NaN" is not a finite number`},
		{"unit suffix", "12 ns\n", ParseOptions{}, nil, "", ErrSyntax, `f:1: "12 ns"`},
		{"bench first unit", "BenchmarkA 10 5 ns/op 7 B/op\nBenchmarkA 10 6 ns/op 8 B/op\n", ParseOptions{}, []float64{5, 6}, "ns/op", nil, ""},
		{"bench unit", "BenchmarkA 10 5 ns/op 7 B/op\nBenchmarkA 10 6 ns/op 8 B/op\n", ParseOptions{Unit: "B/op"}, []float64{7, 8}, "B/op", nil, ""},
		{"bench tidy unit", "BenchmarkA 10 5 ns/op\n", ParseOptions{Unit: "sec/op"}, []float64{5e-9}, "sec/op", nil, ""},
		{"bench missing unit", "BenchmarkA 10 5 ns/op\nBenchmarkA 10 7 B/op\n", ParseOptions{}, nil, "", ErrUnit, "f:2: BenchmarkA has no ns/op value (it has B/op)"},
		{"bench two", "BenchmarkA 10 5 ns/op\nBenchmarkB 10 7 ns/op\n", ParseOptions{}, nil, "", ErrBenchmarks, "f: holds 2 benchmarks (BenchmarkA, BenchmarkB); choose one"},
		{"bench chosen", "BenchmarkA 10 5 ns/op\nBenchmarkB 10 7 ns/op\n", ParseOptions{Benchmark: "BenchmarkB"}, []float64{7}, "ns/op", nil, ""},
		{"bench chosen absent", "BenchmarkA 10 5 ns/op\n", ParseOptions{Benchmark: "BenchmarkC"}, nil, "", ErrEmpty, "f: no results of BenchmarkC (it has BenchmarkA)"},
		{"bench syntax", "BenchmarkA 10 5 ns/op\nBenchmarkA x 5 ns/op\n", ParseOptions{}, nil, "", ErrSyntax, "f:2: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSample(strings.NewReader(tc.in), "f", tc.opts)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				var ie *InputError
				require.ErrorAs(t, err, &ie)
				assert.True(t, strings.HasPrefix(err.Error(), tc.msg), err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, s.Values)
			assert.Equal(t, tc.unit, s.Unit)
		})
	}
}

func FuzzParseSample(f *testing.F) {
	f.Add([]byte("1\n2\n3\n"))
	f.Add([]byte("BenchmarkA-8 10 5 ns/op 3 B/op\n"))
	f.Add([]byte("goos: linux\nBenchmarkA 1 x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSample(strings.NewReader(string(data)), "fuzz", ParseOptions{})
		if err != nil {
			var ie *InputError
			if !assert.ErrorAs(t, err, &ie) {
				return
			}
			return
		}
		require.NotEmpty(t, s.Values)
		for _, v := range s.Values {
			require.False(t, math.IsNaN(v), "NaN in %q", data)
		}
		if len(s.Values) > 1 {
			_, err := Compare(s, s, Options{})
			require.NoError(t, err)
		}
	})
}
