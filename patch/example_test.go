package patch_test

import (
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

// A scenario file describes a strategy and the machine to check it on; the
// strategy goes straight into explore.Check.
func ExampleParseFile() {
	const text = `# Philippe's proposal: is synchronize_sched() enough?
strategy two-step-sched
arch     arm
form     enabled  0: push {lr} | 4: bl __gnu_mcount_nc
form     nops     0: mov r0, r0 | 4: mov r0, r0
form     jump     0: b .+8
boot     nops
enable   stop_machine jump
enable   synchronize_sched
enable   stop_machine enabled@4
enable   stop_machine enabled@0
disable  stop_machine jump
disable  synchronize_sched
disable  stop_machine nops
config   tasks=2 iterations=1 bound=1
`
	f, err := patch.ParseFile("two-step-sched.strategy", strings.NewReader(text))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := f.Strategy
	fmt.Printf("%s: %d forms, %d enable steps, %d disable steps\n", s.Name, len(s.Forms), len(s.Enable), len(s.Disable))
	fmt.Printf("enable step 2 is line %v\n", s.Enable[1].Pos)

	sc := explore.Scenario{Strategy: s, Tasks: *f.Config.Tasks, Iterations: *f.Config.Iterations}
	res, err := explore.Check(sc, explore.Options{Bound: *f.Config.Bound})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Verdict, res.Hazard.Kind)
	// Output:
	// two-step-sched: 3 forms, 4 enable steps, 3 disable steps
	// enable step 2 is line two-step-sched.strategy:9
	// UNSAFE foreign-slot
}

// Malformed files are rejected with the file, the line and the reason.
func ExampleParseFile_errors() {
	for _, text := range []string{
		"strategy x\narch arm\nform bad 0: ffffffff\nboot bad\nenable write bad\ndisable write bad\n",
		"strategy x\narch arm\nform nops 8: mov r0, r0\nboot nops\nenable write nops\ndisable write nops\n",
		"strategy x\narch arm\nform nops 0: nop\nboot nops\nenable stop_machine nops\ndisable stopmachine nops\n",
	} {
		_, err := patch.ParseFile("bad.strategy", strings.NewReader(text))
		fmt.Println(err)
	}
	// Output:
	// bad.strategy:3: form bad, offset 0: "ffffffff" (ffffffff) does not decode
	// bad.strategy:3: form nops: offset 8 is outside the 8-byte site
	// bad.strategy:6: disable: unknown operation "stopmachine" (want one of write, stop_machine, synchronize_sched, synchronize_rcu_tasks, sync_core, bp_on, bp_off, flush_icache_all)
}

// A strategy built in Go from the same operations: jump over the call,
// wait for every task to pass a voluntary switch, then replace the bl with
// add sp, sp, #4 and drop the jump. Format writes it as a scenario file.
func ExampleStrategy() {
	ref := func(form string, offs ...int) patch.Ref { return patch.Ref{Form: form, Offs: offs} }
	s := &patch.Strategy{
		Name: "jump-rcu-add-sp", Arch: kernel.ARM,
		Origin: "a research protocol: jump, synchronize_rcu_tasks(), then add-sp",
		Forms: []patch.Form{
			{Name: "enabled", Pieces: []patch.Piece{{Off: 0, Insn: "push {lr}"}, {Off: 4, Insn: "bl __gnu_mcount_nc"}}},
			{Name: "add-sp", Pieces: []patch.Piece{{Off: 0, Insn: "push {lr}"}, {Off: 4, Insn: "add sp, sp, #4"}}},
			{Name: "jump", Pieces: []patch.Piece{{Off: 0, Insn: "b .+8"}}},
		},
		Boot: []patch.Ref{ref("add-sp")},
		Enable: []patch.Step{
			{Kind: patch.StopMachine, Writes: []patch.Ref{ref("jump")}},
			{Kind: patch.SyncRCUTasks},
			{Kind: patch.StopMachine, Writes: []patch.Ref{ref("enabled", 4)}},
			{Kind: patch.StopMachine, Writes: []patch.Ref{ref("enabled", 0)}},
		},
		Disable: []patch.Step{
			{Kind: patch.StopMachine, Writes: []patch.Ref{ref("jump")}},
			{Kind: patch.SyncRCUTasks},
			{Kind: patch.StopMachine, Writes: []patch.Ref{ref("add-sp", 4)}},
			{Kind: patch.StopMachine, Writes: []patch.Ref{ref("add-sp", 0)}},
		},
		Enabled: "enabled", Disabled: "add-sp",
	}
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Validate(img); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(patch.Format(s))
	// Output:
	// strategy jump-rcu-add-sp
	// arch     arm
	// origin   "a research protocol: jump, synchronize_rcu_tasks(), then add-sp"
	// state    enabled=enabled disabled=add-sp
	//
	// form     enabled 0: push {lr} | 4: bl __gnu_mcount_nc
	// form     add-sp 0: push {lr} | 4: add sp, sp, #4
	// form     jump 0: b .+8
	//
	// boot     add-sp
	//
	// enable   stop_machine jump
	// enable   synchronize_rcu_tasks
	// enable   stop_machine enabled@4
	// enable   stop_machine enabled@0
	//
	// disable  stop_machine jump
	// disable  synchronize_rcu_tasks
	// disable  stop_machine add-sp@4
	// disable  stop_machine add-sp@0
}
