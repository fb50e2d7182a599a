// Command mcountsim checks whether a strategy for patching mcount/fentry call
// sites is safe while a preemptible kernel runs them, by simulating the
// machine code instruction by instruction under every schedule within a
// preemption bound.
//
// Usage:
//
//	mcountsim check      --arch arm --strategy nop-nop [flags]
//	mcountsim replay     --arch arm --strategy nop-nop --schedule S [flags]
//	mcountsim strategies
//	mcountsim sites      [--json] FILE...
//	mcountsim merge      FILE...
//	mcountsim stats      [--json] A B
//	mcountsim cost       [--arch A] [--strategy S] [--object FILE] [--json] [--svg FILE]
//
// Exit status: 0 SAFE, 1 UNSAFE, 2 usage or input error, 3 INCOMPLETE.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `mcountsim simulates how a kernel patches its mcount/fentry call sites while a
preemptible scheduler interleaves tasks, and finds (or rules out within a bound)
the races that break a patch strategy.

Usage:
  mcountsim check      [flags]          explore every schedule within a bound
  mcountsim replay     --schedule S     re-run one schedule and print its trace
  mcountsim strategies                  list the built-in strategies
  mcountsim sites      [--json] FILE... list the ftrace call sites of ELF objects
  mcountsim merge      FILE...          combine the --json results of check --shard runs
  mcountsim stats      [--json] A B     compare two sets of repeated measurements
  mcountsim cost       [--arch A|--object FILE] what a call site costs per call, by execution

Examples:
  mcountsim check --arch arm --strategy nop-nop
  mcountsim check --arch arm --strategy jmp-over --tasks 3 --json
  mcountsim check --arch x86 --strategy text-poke-bp --cpus 3 --tasks 3
  mcountsim check --strategy-file examples/strategies/two-step-rcu-tasks.strategy
  mcountsim check --object kernel/testdata/obj/arm-fixture.o --function big --args 3,4 --strategy nop-nop
  mcountsim replay --arch arm --strategy nop-nop --schedule 8:2,10:1,14:1

Run 'mcountsim help COMMAND' (or 'mcountsim COMMAND --help') for a command's flags.
Exit status: 0 SAFE, 1 UNSAFE, 2 usage or input error, 3 INCOMPLETE.
`

// commands are the subcommands, for help and errors.
var commands = map[string]bool{"check": true, "replay": true, "strategies": true, "sites": true, "merge": true, "stats": true, "cost": true}

const commandList = "check, replay, strategies, sites, merge, stats or cost"

// newFlagSet returns the flag set of command name: Parse returns its
// errors and prints nothing (the command writes its own messages and help).
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlagsOnly parses args into fs for a command that takes flags and no
// other argument. It returns the names of the flags given and ok, or the
// exit status: 0 after writing the help (see helpRequested), fail's for a
// parse error (followed by hint) or an argument.
func parseFlagsOnly(fs *flag.FlagSet, args []string, stdout io.Writer, head, tail, hint string, fail func(string, ...any) int) (set map[string]bool, status int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if helpRequested(err, fs, stdout, head, tail) {
			return nil, 0, false
		}
		return nil, fail("%v%s", err, hint), false
	}
	if fs.NArg() > 0 {
		return nil, fail("unexpected argument %q", fs.Arg(0)), false
	}
	set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set, 0, true
}

// helpRequested reports whether err, from fs.Parse, is -h or --help; it
// then writes the help to stdout: head, the flags' defaults, then tail.
func helpRequested(err error, fs *flag.FlagSet, stdout io.Writer, head, tail string) bool {
	if !errors.Is(err, flag.ErrHelp) {
		return false
	}
	fs.SetOutput(stdout)
	fmt.Fprint(stdout, head)
	fs.PrintDefaults()
	fmt.Fprint(stdout, tail)
	return true
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdout, stderr, false)
	case "replay":
		return runCheck(args[1:], stdout, stderr, true)
	case "strategies":
		return runStrategies(args[1:], stdout, stderr)
	case "sites":
		return runSites(args[1:], stdout, stderr)
	case "merge":
		return runMerge(args[1:], stdout, stderr)
	case "stats":
		return runStats(args[1:], stdout, stderr)
	case "cost":
		return runCost(args[1:], stdout, stderr)
	case "help":
		if len(args) > 1 { // mcountsim help check: the command's own help
			if _, ok := commands[args[1]]; !ok {
				fmt.Fprintf(stderr, "mcountsim help: unknown command %q (want %s)\n", args[1], commandList)
				return 2
			}
			return run([]string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "mcountsim: unknown command %q (want %s; see mcountsim --help)\n", args[0], commandList)
	return 2
}
