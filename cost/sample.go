package cost

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// Sample is one set of repeated measurements of one quantity.
type Sample struct {
	// Name names the sample in messages (the file name).
	Name string
	// Unit is the unit as written in the input ("ns/op"), or "" for
	// plain numbers.
	Unit string
	// Benchmark is the benchmark's full name for Go benchmark input.
	Benchmark string
	// Values are the measurements in input order.
	Values []float64
}

// ParseOptions choose what to read from a Go benchmark file; the zero
// value reads the only benchmark in the file in the first unit it has.
// Plain input (one number a line) ignores them.
type ParseOptions struct {
	// Unit is the unit to read, as written in the input ("ns/op",
	// "B/op", "MB/s") or in benchfmt's tidied form ("sec/op");
	// "" means the first unit of the first result.
	Unit string
	// Benchmark is the full benchmark name to read ("BenchmarkX-8", or
	// "X-8");
	// "" means the file must hold one benchmark only.
	Benchmark string
}

// ReadSampleFile reads the file at path with ParseSample.
func ReadSampleFile(path string, opts ParseOptions) (Sample, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Sample{}, err
	}
	return ParseSample(bytes.NewReader(data), path, opts)
}

// ParseSample reads one sample from r; name is the file name for
// messages. The input is either one number a line (blank lines and lines
// starting with '#' are skipped) or, when any line starts with
// "Benchmark", the Go benchmark format
// (https://golang.org/design/14313-benchmark-format), read with
// golang.org/x/perf/benchfmt. It fails with an *InputError wrapping
// ErrEmpty, ErrSyntax, ErrUnit or ErrBenchmarks; a sample of one value is
// returned (Compare says why it cannot be compared).
func ParseSample(r io.Reader, name string, opts ParseOptions) (Sample, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Sample{}, fmt.Errorf("%s: %w", name, err)
	}
	if isBenchFormat(data) {
		return parseBench(data, name, opts)
	}
	return parsePlain(data, name)
}

func isBenchFormat(data []byte) bool {
	for line := range bytes.Lines(data) {
		if bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("Benchmark")) {
			return true
		}
	}
	return false
}

func parsePlain(data []byte, name string) (Sample, error) {
	s := Sample{Name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Sample{}, &InputError{File: name, Line: n, Err: ErrSyntax,
				Msg: fmt.Sprintf("%q is not a finite number (want one number a line, or Go benchmark lines)", clip(text))}
		}
		s.Values = append(s.Values, v)
	}
	if err := sc.Err(); err != nil {
		return Sample{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(s.Values) == 0 {
		return Sample{}, &InputError{File: name, Err: ErrEmpty, Msg: "no measurements (want one number a line, or Go benchmark lines)"}
	}
	return s, nil
}

func parseBench(data []byte, name string, opts ParseOptions) (Sample, error) {
	s := Sample{Name: name, Unit: opts.Unit}
	want := opts.Benchmark
	if want != "" && !strings.HasPrefix(want, "Benchmark") {
		want = "Benchmark" + want
	}
	var names []string
	rd := benchfmt.NewReader(bytes.NewReader(data), name)
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return Sample{}, &InputError{File: name, Line: rec.Line, Err: ErrSyntax, Msg: rec.Msg}
		case *benchfmt.Result:
			full := "Benchmark" + rec.Name.String() // benchfmt drops the prefix
			if !slices.Contains(names, full) {
				names = append(names, full)
			}
			if want != "" && full != want {
				continue
			}
			if s.Unit == "" && len(rec.Values) > 0 {
				s.Unit = unitOf(rec.Values[0])
			}
			v, ok := valueIn(rec.Values, s.Unit)
			if !ok {
				_, line := rec.Pos()
				have := make([]string, len(rec.Values))
				for i, v := range rec.Values {
					have[i] = unitOf(v)
				}
				return Sample{}, &InputError{File: name, Line: line, Err: ErrUnit,
					Msg: fmt.Sprintf("%s has no %s value (it has %s)", full, s.Unit, strings.Join(have, ", "))}
			}
			s.Benchmark = full
			s.Values = append(s.Values, v)
		}
	}
	if err := rd.Err(); err != nil {
		return Sample{}, fmt.Errorf("%s: %w", name, err)
	}
	if opts.Benchmark == "" && len(names) > 1 {
		return Sample{}, &InputError{File: name, Err: ErrBenchmarks,
			Msg: fmt.Sprintf("holds %d benchmarks (%s); choose one", len(names), strings.Join(names, ", "))}
	}
	if len(s.Values) == 0 {
		msg := "no benchmark results"
		if opts.Benchmark != "" {
			msg = fmt.Sprintf("no results of %s (it has %s)", want, strings.Join(names, ", "))
		}
		return Sample{}, &InputError{File: name, Err: ErrEmpty, Msg: msg}
	}
	return s, nil
}

// unitOf is the unit of v as written in the input.
func unitOf(v benchfmt.Value) string {
	if v.OrigUnit != "" {
		return v.OrigUnit
	}
	return v.Unit
}

// valueIn finds the value in unit (as written, or tidied) and returns it
// in that unit.
func valueIn(vals []benchfmt.Value, unit string) (float64, bool) {
	for _, v := range vals {
		if v.OrigUnit != "" && v.OrigUnit == unit {
			return v.OrigValue, true
		}
	}
	for _, v := range vals {
		if v.Unit == unit {
			return v.Value, true
		}
	}
	return 0, false
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
