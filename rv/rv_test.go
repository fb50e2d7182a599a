package rv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMonitorTables(t *testing.T) {
	for _, m := range Monitors {
		require.Len(t, m.Table, len(m.States), m.Name)
		for _, row := range m.Table {
			require.Len(t, row, len(m.Events), m.Name)
			for _, n := range row {
				require.Less(t, int(n), len(m.States), m.Name)
			}
		}
	}
	require.Equal(t, "wip, sco, snroc, scpd, snep, sncid, nrp, opid", Names())
}

func TestViolations(t *testing.T) {
	ev := func(k Kind, cpu, task int) Event { return Event{Kind: k, CPU: cpu, Task: task} }
	tests := []struct {
		name    string
		events  []Event
		monitor string
		want    string
	}{
		{"schedule with preemption on", []Event{ev(PreemptEnable, 0, 0), ev(ScheduleEntry, 0, 0)},
			"scpd", "rv: monitor scpd does not allow event schedule_entry on state cant_sched"},
		{"before the start event nothing counts", []Event{ev(ScheduleEntry, 0, 0), ev(ScheduleExit, 0, 1)}, "scpd", ""},
		{"preemption enabled inside schedule", []Event{ev(ScheduleExit, 0, 0), ev(PreemptDisable, 0, 0), ev(ScheduleEntry, 0, 0), ev(PreemptEnable, 0, 0)},
			"snep", "rv: monitor snep does not allow event preempt_enable on state scheduling_contex"},
		{"schedule with interrupts off", []Event{ev(IRQEnable, 1, 0), ev(IRQDisable, 1, 0), ev(ScheduleEntry, 1, 0)},
			"sncid", "rv: monitor sncid does not allow event schedule_entry on state cant_sched"},
		{"preempted without need_resched", []Event{ev(NeedResched, 0, 3), {Kind: ScheduleEntry, CPU: 0, Task: 3, Preempt: true}, ev(ScheduleEntry, 0, 3), {Kind: ScheduleEntry, CPU: 0, Task: 3, Preempt: true}},
			"nrp", "rv: monitor nrp does not allow event schedule_entry_preempt on state any_thread_running"},
		// opid (opid.c @30984ccf) starts on a need_resched or waking
		// outside hard-irq context, in its initial state disabled.
		{"need_resched with interrupts on", []Event{ev(NeedResched, 0, 0), ev(PreemptEnable, 0, 0), ev(IRQEnable, 0, 0), ev(NeedResched, 0, 0)},
			"opid", "rv: monitor opid does not allow event sched_need_resched on state enabled"},
		{"opid before its start", []Event{ev(IRQEnable, 0, 0), ev(NeedResched, 0, 0)}, "opid", ""},
		{"a need_resched in an interrupt does not start opid", []Event{ev(IRQDisable, 0, 0), ev(IRQEntry, 0, 0), {Kind: NeedResched, IRQ: true}, ev(IRQEnable, 0, 0), ev(IRQDisable, 0, 0)}, "opid", ""},
		{"interrupts disabled twice", []Event{ev(NeedResched, 0, 0), ev(IRQDisable, 0, 0)},
			"opid", "rv: monitor opid does not allow event irq_disable on state disabled"},
		{"need_resched in an interrupt", []Event{ev(NeedResched, 0, 0), ev(PreemptEnable, 0, 0), ev(IRQEnable, 0, 0), ev(IRQDisable, 0, 0), ev(IRQEntry, 0, 0), {Kind: NeedResched, IRQ: true}, ev(IRQEnable, 0, 0)}, "opid", ""},
		{"preempt_disable in an interrupt", []Event{ev(NeedResched, 0, 0), ev(IRQEnable, 0, 0), ev(PreemptEnable, 0, 0), ev(IRQDisable, 0, 0), ev(IRQEntry, 0, 0), ev(PreemptDisable, 0, 0)},
			"opid", "rv: monitor opid does not allow event preempt_disable on state in_irq"},
		{"a wakeup with preemption on", []Event{ev(PreemptEnable, 0, 0), ev(Waking, 0, 1)},
			"wip", "rv: monitor wip does not allow event sched_waking on state preemptive"},
		{"schedule twice", []Event{ev(ScheduleExit, 0, 0), ev(ScheduleEntry, 0, 0), ev(ScheduleEntry, 0, 0)},
			"sco", "rv: monitor sco does not allow event schedule_entry on state scheduling_context"},
		{"switched out twice", []Event{ev(SwitchIn, 0, 2), ev(SwitchOut, 0, 2), ev(SwitchOut, 1, 2)},
			"snroc", "rv: monitor snroc does not allow event sched_switch_out on state other_context"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m *Monitor
			for _, x := range Monitors {
				if x.Name == tt.monitor {
					m = x
				}
			}
			v := m.Check(tt.events)
			if tt.want == "" {
				require.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			require.EqualError(t, v, tt.want)
		})
	}
}
