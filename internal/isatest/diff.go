package isatest

import (
	"runtime"
	"sort"
	"sync"
	"testing"
)

// Case is a case of a differential test and the form it was drawn for.
type Case[C any] struct {
	C    C
	Form int // index in Diff.Forms
}

// Diff is a differential test: cases of type C, results of type R.
type Diff[C any, R comparable] struct {
	Forms     []string // the form names, for reports
	Marshal   func(c *C, b []byte) []byte
	Unmarshal func(b []byte) R
	// Exec runs c through the executor the way the harness runs it, given
	// the harness's result want. It runs on several goroutines at once.
	Exec func(c *Case[C], want R) (R, error)
	// Describe says how c went: its input, and where got (or gerr) and
	// want differ.
	Describe  func(c *C, got, want R, gerr error) string
	MaxReport int // cases reported per form
}

// Run runs every group of cases through h in one harness run (GOMAXPROCS
// runs at a time) and compares each result with d.Exec's. A failed run, a
// case that differs (the first MaxReport of each form, in sorted order)
// and each form with a difference fail t. Run returns the number of cases
// and of differences.
func (d *Diff[C, R]) Run(t *testing.T, h *Harness, groups [][]Case[C]) (cases, bad int) {
	t.Helper()
	var (
		mu       sync.Mutex
		badOf    = make([]int, len(d.Forms))
		reports  []string
		failures []error
		wg       sync.WaitGroup
		sem      = make(chan struct{}, runtime.GOMAXPROCS(0))
	)
	for _, group := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			in := make([]byte, 0, len(group)*h.InSize)
			for i := range group {
				in = d.Marshal(&group[i].C, in)
			}
			out, err := h.Run(in, len(group))
			if err != nil {
				mu.Lock()
				failures = append(failures, err)
				mu.Unlock()
				return
			}
			for j := range group {
				c := &group[j]
				want := d.Unmarshal(out[j*h.OutSize:])
				got, gerr := d.Exec(c, want)
				if gerr == nil && got == want {
					continue
				}
				mu.Lock()
				badOf[c.Form]++
				if badOf[c.Form] <= d.MaxReport {
					reports = append(reports, d.Forms[c.Form]+": "+d.Describe(&c.C, got, want, gerr))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range failures {
		t.Error(err)
	}
	sort.Strings(reports)
	for _, r := range reports {
		t.Error(r)
	}
	casesOf := make([]int, len(d.Forms))
	for _, group := range groups {
		for _, c := range group {
			casesOf[c.Form]++
		}
	}
	for i, name := range d.Forms {
		if badOf[i] > 0 {
			t.Errorf("form %q: %d of %d cases differ from qemu", name, badOf[i], casesOf[i])
		}
		cases += casesOf[i]
		bad += badOf[i]
	}
	return cases, bad
}

// BenchRun times run, one pass over n instructions, after a first pass
// that fills the decode caches, and reports ns/inst.
func BenchRun(b *testing.B, n int, run func()) {
	run()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/inst")
}
