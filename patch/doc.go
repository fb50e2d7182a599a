// Package patch describes patch strategies as data: the forms a call site
// can take, what boot writes, and the operations of each enable and disable
// transition. Compile turns a strategy and an image into the plain operation
// list (sched.Program) that the machine's patcher task executes. The machine
// never learns a strategy's name: hazards must emerge from executing the
// bytes the operations write.
//
// The built-in strategies are in Builtins; users build their own with the
// same types, from Go or from a scenario file (ParseFile).
//
// # Building a strategy in Go
//
// A Strategy lists named Forms (instructions at byte offsets into the site),
// the Refs that boot writes, and the Steps of the enable and disable
// transitions. A Ref selects a form's pieces (all of them, or those at some
// offsets, optionally narrowed to a byte range); a Step is one kernel
// service: a plain Write, a StopMachine around a group of stores, the grace
// periods SyncSched and SyncRCUTasks, SyncCore on every CPU, or the int3
// protocol's BreakpointOn and BreakpointOff. Validate checks a strategy
// against an image; Compile validates and compiles.
//
// # Scenario files
//
// A scenario file describes one strategy, and optionally the machine it was
// written for, as lines of text that read and diff well. ParseFile reads one,
// Format and FormatFile write one. Each line is a keyword and its arguments,
// separated by blanks:
//
//	# a comment: a line whose first non-blank character is #, or "# " (a #
//	# between a blank and a blank or the end of the line) up to the end of a line
//	strategy NAME                       the strategy's name (required)
//	arch     arm|x86                    (required)
//	origin   "TEXT"                     where it comes from (a Go-quoted string, or the rest of the line)
//	state    enabled=FORM disabled=FORM the forms a site holds in each state
//	form     NAME OFF: INSN | OFF: INSN one form: instructions at byte offsets into the site
//	boot     REF...                     what ftrace_init() writes before anything runs (required)
//	enable   OP [REF...]                one step of the enable transition, in order (at least one)
//	disable  OP [REF...]                one step of the disable transition, in order (at least one)
//	config   KEY=VALUE...               the machine the file was written for (optional)
//	tracer   NAME                       a tracer callback (arm; alone: a built-in tracer)
//	callback STEP                       one step of its body, in order (kernel.TracerSteps, or call FUNCTION)
//	traced   F...                       the kernel functions with an mcount site (kernel.Traceable, or none)
//
// Keywords other than form, enable, disable and config may appear once. Lines
// may come in any order; the order of the enable lines (and of the disable
// lines) is the order of the steps. An INSN is written as Assemble accepts it
// ("push {lr}", "bl __gnu_mcount_nc", "b .+8", 8 hex digits on ARM, "nop5",
// "call ftrace_caller", "int3" or hex bytes on x86); offsets are decimal or
// 0x-prefixed hex. Names (of the strategy and of forms) are letters, digits
// and "_.+-", starting with a letter or "_"; "bytewise" is reserved.
//
// A REF selects pieces of a form:
//
//	FORM              every piece of FORM, in offset order
//	FORM@4            the piece at offset 4
//	FORM@0,4          the pieces at offsets 0 and 4
//	FORM@0[1:5]       bytes 1 to 4 of the piece at offset 0 (the x86 int3 protocol)
//
// The operations are the StepKind names:
//
//	write REF... [bytewise]   plain stores, no protocol (one per instruction; bytewise: one per byte)
//	stop_machine REF...       all the stores inside one stop_machine()
//	synchronize_sched         wait in synchronize_sched()
//	synchronize_rcu_tasks     wait in synchronize_rcu_tasks()
//	sync_core                 sync_core() on every CPU (IPI)
//	bp_on REF...              publish the int3 handler's table: REF is the new instruction
//	bp_off                    withdraw the table
//
// The config keys are the flags of "mcountsim check" they stand for:
// preempt (none|full), cpus, tasks, iterations, toggles, functions, bound,
// max-states, timeout (a Go duration), prologue (x86: fentry|mcount),
// strict (a Go bool), and with a tracer irq-bound, lossless and nmi. A flag
// given on the command line overrides the file. The tracer section is
// File.Tracer (filetracer.go; examples in examples/tracers).
//
// ParseFile checks everything it can: syntax, operations, names, offsets,
// the arity of each operation, required lines, duplicates, and, on the
// default image of the file's arch, that every instruction assembles and
// decodes and lies inside the site. Every error is a *FileError naming the
// file and line ("x.strategy:7: ..."), and wraps ErrInvalid. A strategy read
// from a file remembers the line of each form, ref and step (Pos), so that
// Validate and Compile, which see the real image, name the line too.
//
// Imports: sched, kernel, the isa packages, internal/regfile and the
// standard library.
package patch
