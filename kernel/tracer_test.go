package kernel

import (
	"testing"

	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/stretchr/testify/require"
)

func TestTracerLayoutDecodes(t *testing.T) {
	for _, traced := range [][]string{nil, {"preempt_schedule", "schedule", "preempt_disable", "preempt_enable"}} {
		img, err := Build(ARM, Config{Tracer: &Tracer{Name: "all", Steps: []string{
			"resched_read", "irq_save", "disabled_inc", "recursion_lock", "record_if_locked", "recursion_unlock",
			"record_if_first", "disabled_dec", "irq_restore", "preempt_disable", "record", "preempt_enable",
			"preempt_enable_no_resched", "resched_enable", "call f0"}, Traced: traced}})
		require.NoError(t, err)
		for off := 0; off < len(img.Text); off += 4 {
			w := uint32(img.Text[off]) | uint32(img.Text[off+1])<<8 | uint32(img.Text[off+2])<<16 | uint32(img.Text[off+3])<<24
			_, err := arm.Decode(uint32(img.Base)+uint32(off), w)
			require.NoError(t, err, "%s: %08x", img.Name(img.Base+uint64(off)), w)
		}
		want := 1
		if traced != nil {
			want = 6 // preempt_enable covers preempt_enable_no_resched
		}
		require.Len(t, img.Sites, want)
		require.NotZero(t, img.Tracer.IRQEntry)
		require.Len(t, img.Tracer.Sched, 4)
		require.Len(t, img.Tracer.PreemptTP, 9)
	}
}

func TestTracerErrors(t *testing.T) {
	_, err := Build(ARM, Config{Tracer: &Tracer{Name: "x", Steps: []string{"bogus"}}})
	require.ErrorContains(t, err, `tracer x: unknown step "bogus"`)
	_, err = Build(ARM, Config{Tracer: &Tracer{Name: "x", Steps: []string{"record"}, Traced: []string{"f0"}}})
	require.ErrorContains(t, err, `tracer x: cannot trace "f0"`)
	_, err = Build(X86, Config{Tracer: &Tracer{Name: "x", Steps: []string{"record"}}})
	require.ErrorContains(t, err, "arm only")
	_, err = Build(ARM, Config{Tracer: &Tracer{Name: "x", Steps: []string{"call nowhere"}}})
	require.ErrorContains(t, err, "undefined symbol nowhere")
}
