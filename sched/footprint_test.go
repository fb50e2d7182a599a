package sched_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcountsim/mcountsim/sched"
)

// Which footprints commute: different CPUs, no common task, not two
// preemptions, no write that meets the other's data or text.
func TestIndependent(t *testing.T) {
	run := func(task uint) sched.Footprint { return sched.Footprint{Tasks: 1 << task} }
	data := func(task uint, lo, hi uint64, store bool) sched.Footprint {
		f := run(task)
		f.Lo, f.Hi, f.Store = lo, hi, store
		return f
	}
	text := func(task uint, lo, hi uint64, store bool) sched.Footprint {
		f := run(task)
		f.TextLo, f.TextHi, f.TextStore = lo, hi, store
		return f
	}
	preempt := sched.Footprint{Tasks: 1<<0 | 1<<2, Preempt: true}
	for _, c := range []struct {
		name   string
		ca, cb int8
		a, b   sched.Footprint
		want   bool
	}{
		{"two workers' own steps", 0, 1, run(0), run(1), true},
		{"one CPU's two options", 0, 0, run(0), run(1), false},
		{"global", 0, 1, sched.Footprint{Global: true}, run(1), false},
		{"a common task", 0, 1, run(2), preempt, false},
		{"two preemptions", 0, 1, preempt, sched.Footprint{Tasks: 1 << 1, Preempt: true}, false},
		{"a preemption and a step", 0, 1, preempt, run(1), true},
		{"loads of one byte", 0, 1, data(0, 8, 12, false), data(1, 8, 12, false), true},
		{"a load and a store of one byte", 0, 1, data(0, 8, 12, false), data(1, 11, 12, true), false},
		{"stores to neighbouring bytes", 0, 1, data(0, 8, 12, true), data(1, 12, 16, true), true},
		{"two fetches of a site", 0, 1, text(0, 0x20, 0x30, false), text(1, 0x20, 0x30, false), true},
		{"a store to the site fetched", 0, 1, text(3, 0x24, 0x25, true), text(1, 0x20, 0x30, false), false},
		{"a store elsewhere", 0, 1, text(3, 0x40, 0x45, true), text(1, 0x20, 0x30, false), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, sched.Independent(c.ca, c.a, c.cb, c.b))
			assert.Equal(t, c.want, sched.Independent(c.cb, c.b, c.ca, c.a))
		})
	}
}
