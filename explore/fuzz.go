package explore

// RunBytes runs sc once with every choice taken from data, so that Go's
// fuzzer (go test -fuzz) can choose schedules: it mutates byte strings, and
// each byte string is one run of the machine.
//
// Every step at which the machine offers more than one option consumes one
// byte b and takes option b % len(options); steps with a single option
// consume nothing, so no byte is wasted on a forced step; once the bytes
// run out every choice is the default (option 0). The choices stop at the
// run's first hazard (the steps after it, which show its consequences, take
// the default options), so the schedule is never longer than needed to
// reach it. The choices are those of the machine that opts.Reduction
// selects (the reduced one by default), the machine Check and Replay use,
// so schedules from all three are interchangeable. Only opts.Bound and
// opts.Reduction matter.
//
// The result is exactly Replay(sc, res.Schedule, opts): the schedule
// string, the full trace, the hazards and their explanation. A crasher the
// fuzzer saves is therefore a schedule, which `mcountsim replay --schedule`
// re-runs. Coverage guidance comes from the machine's Go code (sched, the
// executors, the detectors): an input that reaches a new branch there, such
// as a task switched back in mid-site, is kept and mutated further.
//
// Package mcountsimtest wraps RunBytes as a one-line fuzz target for users
// (FuzzSchedules); fuzz_test.go holds this package's own targets and says
// how a target that must find a known hazard is kept from failing plain
// go test.
func RunBytes(sc Scenario, opts Options, data []byte) (*Result, error) {
	s, err := scheduleBytes(sc, opts, data)
	if err != nil {
		return nil, err
	}
	return Replay(sc, s.String(), opts)
}

// scheduleBytes runs sc without recording and returns the schedule data
// chooses, up to the first hazard.
func scheduleBytes(sc Scenario, opts Options, data []byte) (Schedule, error) {
	c, err := compile(sc)
	if err != nil {
		return nil, err
	}
	m, err := c.machine(false, !opts.Reduction.por())
	if err != nil {
		return nil, err
	}
	var path []int32
	if err := drive(m, opts.bound(), &bytesRun{data: data}, &path); err != nil {
		return nil, err
	}
	return fromPath(path), nil
}
