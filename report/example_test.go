package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/report"
	"github.com/mcountsim/mcountsim/sched"
)

// Text lays a replayed run out one column per task, like the crash
// diagrams of the LKML thread. Here, the start of the default run of
// nop-nop (no preemption: worker0 runs f0, whose site holds the nops).
func ExampleText() {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	res, err := explore.Replay(explore.Scenario{Strategy: nopNop}, "", explore.Options{Bound: 2})
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := report.Text(&buf, res); err != nil {
		panic(err)
	}
	lines := strings.Split(buf.String(), "\n")
	fmt.Println(strings.Join(lines[:2], "\n"))
	trace := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "trace (") })
	fmt.Println(strings.Join(lines[trace+1:trace+10], "\n"))
	// Output:
	// scenario: arm nop-nop, preempt full, 2 cpus, 2 tasks, 2 iterations, 2 toggles, 1 functions
	// replay:   schedule "": no hazard in this run (a replay says nothing about other schedules)
	//  step cpu  | worker0                                      | worker1                                      | patcher
	// ------------------------------------------------------------------------------------------------------------------
	//     1 cpu0 | == switched in on cpu0                       |                                              |
	//     2 cpu0 | worker: push {r4, r5, r6, lr}                |                                              |
	//     3 cpu0 | worker+0x4: mov r5, #2                       |                                              |
	//     4 cpu0 | worker+0x8: mov r0, r5                       |                                              |
	//     5 cpu0 | worker+0xc: bl 0x8020 <f0>                   |                                              |
	//     6 cpu0 | f0: push {r4, lr}                            |                                              |
	//     7 cpu0 | f0+0x4: mov r0, r0                           |                                              |
}

// HTML writes one self-contained page: the timeline of the counterexample
// with a lane per CPU and per task, and controls to step through it.
func ExampleHTML() {
	nopNop, _ := patch.Lookup(kernel.ARM, "nop-nop")
	sc, opts := explore.Scenario{Strategy: nopNop}, explore.Options{Bound: 2}
	res, err := explore.Check(sc, opts)
	if err != nil {
		panic(err)
	}
	var page bytes.Buffer
	if res, err = explore.WithRun(sc, opts, res); err != nil {
		panic(err)
	}
	if err := report.HTML(&page, sc, opts, res); err != nil {
		panic(err)
	}
	// (mcountsim check --html FILE writes the page to a file instead.)
	title := regexp.MustCompile(`<title>(.*)</title>`).FindStringSubmatch(page.String())[1]
	lanes := regexp.MustCompile(`<th class="lane [^"]*">([^<]*)</th>`).FindAllStringSubmatch(page.String(), -1)
	fmt.Println(title)
	var names []string
	for _, l := range lanes {
		names = append(names, l[1])
	}
	fmt.Println(strings.Join(names, " "))
	fmt.Println(strings.Contains(page.String(), `<span class="badge b-hazard">HAZARD foreign-slot</span>`))
	// Output:
	// mcountsim: arm nop-nop — UNSAFE
	// cpu0 cpu1 worker0 worker1 patcher
	// true
}

// ReplayCommand is the command line that replays a schedule.
func ExampleReplayCommand() {
	twoStep, _ := patch.Lookup(kernel.ARM, "two-step-sched")
	fmt.Println(report.ReplayCommand(explore.Scenario{Strategy: twoStep, Tasks: 3}, explore.Options{Bound: 2}, "8:2,13:2,19:1"))
	fmt.Println(report.ReplayCommand(explore.Scenario{Strategy: twoStep, Preempt: sched.PreemptNone}, explore.Options{Bound: explore.NoPreemptions}, ""))
	// Output:
	// mcountsim replay --arch arm --strategy two-step-sched --tasks 3 --schedule "8:2,13:2,19:1"
	// mcountsim replay --arch arm --strategy two-step-sched --bound 0 --preempt none --schedule ""
}

// JSON writes the configuration and the result as one object.
func ExampleJSON() {
	jmpOver, _ := patch.Lookup(kernel.ARM, "jmp-over")
	sc, opts := explore.Scenario{Strategy: jmpOver}, explore.Options{Bound: 1}
	res, err := explore.Check(sc, opts)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := report.JSON(&buf, sc, opts, res); err != nil {
		panic(err)
	}
	var doc struct {
		Config  report.Config `json:"config"`
		Verdict string        `json:"verdict"`
		Space   struct {
			Exhaustive bool `json:"exhaustive"`
		} `json:"space"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		panic(err)
	}
	// The strategy's content hash changes with its every byte: shown here by length.
	doc.Config.StrategySHA256 = fmt.Sprintf("(%d hex digits)", len(doc.Config.StrategySHA256))
	enc := json.NewEncoder(os.Stdout)
	enc.Encode(doc.Config)
	fmt.Println(doc.Verdict, doc.Space.Exhaustive)
	// Output:
	// {"arch":"arm","strategy":"jmp-over","preempt":"full","cpus":2,"tasks":2,"iterations":2,"toggles":2,"functions":1,"bound":1,"strict":false,"stack_words":64,"strategy_sha256":"(64 hex digits)"}
	// SAFE true
}
