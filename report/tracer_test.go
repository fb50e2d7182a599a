package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// tracerScenario is the 2010 report: resched-read misses a preemption when
// a remote wakeup sets need_resched before the callback reads it and its
// IPI lands inside the callback.
func tracerScenario(t testing.TB, name string) explore.Scenario {
	tr, err := patch.LookupTracer(name, nil)
	require.NoError(t, err)
	return explore.Scenario{Strategy: strategy(t, kernel.ARM, "add-sp"), Tracer: tr}
}

// The text report shows interrupts, thread_info changes and the tracer's
// counts; a lost event is a row of its own.
func TestTextTracer(t *testing.T) {
	sc := tracerScenario(t, "resched-read")
	res, err := explore.Check(sc, explore.Options{})
	require.NoError(t, err)
	require.Equal(t, explore.Unsafe, res.Verdict)
	var buf bytes.Buffer
	require.NoError(t, TextFor(&buf, sc, explore.Options{}, res))
	out := buf.String()
	assert.Regexp(t, `\n   21 cpu0 \| ~~ remote wakeup: need_resched \+ IPI ~~ +\|`, out)
	assert.Regexp(t, `\n   43 cpu0 \| ~~ IRQ resched-ipi: enters __irq_svc ~~ +\|`, out)
	assert.Regexp(t, `\n   48 cpu0 \|   ti: count 0x10001, need_resched, irqs off +\|`, out)
	assert.Regexp(t, `\n  102 cpu0 \| ~~ return from the interrupt ~~ +\|`, out)
	assert.Regexp(t, `\n  103 cpu0 \|   ti: count 0x0, need_resched +\|`, out)
	assert.Regexp(t, `\n  115 cpu0 \|   ti: count 0x0 +\|`, out, "__schedule clears need_resched")
	assert.Contains(t, out, "tracer:   lost events: normal 0, softirq 0, irq 0, nmi 0; recursions dropped and counted: normal 0, softirq 0, irq 0, nmi 0; longest interrupts-off stretch")

	sc.Tracer = &kernel.Tracer{Name: "counter", Steps: []string{"preempt_disable_notrace", "disabled_inc", "record_if_first", "disabled_dec", "preempt_enable_notrace"}}
	sc.Tasks, sc.Iterations, sc.Lossless = 1, 1, true
	res, err = explore.Check(sc, explore.Options{Bound: 1})
	require.NoError(t, err)
	require.Equal(t, explore.Unsafe, res.Verdict)
	buf.Reset()
	require.NoError(t, TextFor(&buf, sc, explore.Options{Bound: 1}, res))
	assert.Contains(t, buf.String(), "LOST irq-context event")
}

// The HTML timeline has rows for the interrupt, the thread_info changes
// and a lost event, with their badges.
func TestHTMLTracer(t *testing.T) {
	sc := tracerScenario(t, "resched-read")
	_, page := renderHTML(t, sc, explore.Options{})
	kinds := map[string][]htmlRow{}
	for _, r := range rows(page) {
		kinds[r.Kind] = append(kinds[r.Kind], r)
	}
	require.NotEmpty(t, kinds["irq"])
	require.NotEmpty(t, kinds["state"])
	var irq []string
	for _, r := range kinds["irq"] {
		irq = append(irq, strings.Join(strings.Fields(strings.Join(r.Cells, " ")), " "))
	}
	all := strings.Join(irq, "\n")
	assert.Contains(t, all, "21 cpu0 wake trace_function+0xc 0x82f0 preempt_count 0x0, need_resched a remote wakeup sets need_resched and sends a reschedule IPI")
	assert.Contains(t, all, "43 cpu0 resched-ipi preempt_enable_no_resched_notrace+0x14 0x8120 preempt_count 0x1, need_resched, irqs off reschedule IPI: the CPU enters __irq_svc (interrupts off)")
	assert.Contains(t, all, "102 cpu0 irq return preempt_enable_no_resched_notrace+0x14 0x8120 preempt_count 0x1, need_resched return from the interrupt (interrupts on)")
	assert.Contains(t, page, `<span class="badge b-irq">resched-ipi</span>`)
	assert.Contains(t, page, `<span class="badge b-state">thread_info</span>`)

	sc.Tracer = &kernel.Tracer{Name: "counter", Steps: []string{"preempt_disable_notrace", "disabled_inc", "record_if_first", "disabled_dec", "preempt_enable_notrace"}}
	sc.Tasks, sc.Iterations, sc.Lossless = 1, 1, true
	_, page = renderHTML(t, sc, explore.Options{Bound: 1})
	assert.Contains(t, page, `<span class="badge b-lost">lost irq event</span>`)
}
