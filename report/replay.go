package report

import (
	"fmt"
	"github.com/mcountsim/mcountsim/params"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/patch"
)

// StrategyOrigin says where a scenario's strategy comes from, which decides
// how a command line names it.
type StrategyOrigin int

const (
	// Builtin: the strategy equals the built-in of its name (--strategy NAME).
	Builtin StrategyOrigin = iota
	// FromFile: the strategy was read from a scenario file, whose path its
	// positions carry (--strategy-file PATH).
	FromFile
	// GoDefined: the strategy was built in Go; no command line names it
	// until patch.Format writes it to a file.
	GoDefined
)

// OriginOf returns where st comes from and, for FromFile, the file's path.
func OriginOf(st *patch.Strategy) (StrategyOrigin, string) {
	if st == nil {
		return GoDefined, ""
	}
	if file := strategyFile(st); file != "" {
		return FromFile, file
	}
	if b, ok := patch.Lookup(st.Arch, st.Name); ok && reflect.DeepEqual(b, st) {
		return Builtin, ""
	}
	return GoDefined, ""
}

// strategyFile is the file whose lines defined st (patch.ParseFile records
// it in every position), or "".
func strategyFile(st *patch.Strategy) string {
	for _, f := range st.Forms {
		if f.Pos.File != "" {
			return f.Pos.File
		}
	}
	return ""
}

// GoDefinedFile is the file name ReplayCommand gives a strategy built in
// Go: write patch.Format(strategy) to it (ReplayNote says so).
func GoDefinedFile(st *patch.Strategy) string {
	name := "strategy"
	if st != nil && st.Name != "" {
		name = st.Name
	}
	return name + ".strategy"
}

// ReplayCommand is the mcountsim command line that replays schedule under
// sc and opts and reproduces the run exactly: the strategy (by name for a
// built-in, by its scenario file otherwise), the object and its function
// and arguments for an --object scenario, and every setting that differs
// from the defaults (every setting, for a strategy file, since the file's
// config lines would otherwise apply). When the command cannot work as
// printed (a strategy or text built in Go), ReplayNote says what to do.
func ReplayCommand(sc explore.Scenario, opts explore.Options, schedule string) string {
	c := ConfigOf(sc, opts)
	origin, file := OriginOf(sc.Strategy)
	args := []string{"mcountsim", "replay", "--arch", c.Arch}
	switch origin {
	case Builtin:
		args = append(args, "--strategy", c.Strategy)
	case FromFile:
		args = append(args, "--strategy-file", shellQuote(file))
	default:
		args = append(args, "--strategy-file", shellQuote(GoDefinedFile(sc.Strategy)))
	}
	all := origin != Builtin // a file's config lines set what the command line does not
	if sc.ObjectFile != "" {
		args = append(args, "--object", shellQuote(sc.ObjectFile), "--function", shellQuote(sc.Function))
		if len(sc.Args) > 0 {
			vals := make([]string, len(sc.Args))
			for i, v := range sc.Args {
				vals[i] = strconv.FormatInt(v, 10)
			}
			args = append(args, "--args", strings.Join(vals, ","))
		}
	}
	type setting struct {
		p *params.Param
		v int
	}
	settings := []setting{{&params.CPUs, c.CPUs}, {&params.Tasks, c.Tasks}, {&params.Iterations, c.Iterations},
		{&params.Toggles, c.Toggles}}
	if sc.ObjectFile == "" {
		settings = append(settings, setting{&params.Functions, c.Functions})
	}
	settings = append(settings, setting{&params.Bound, c.Bound})
	for _, f := range settings {
		if all || f.v != f.p.Default {
			args = append(args, "--"+f.p.Name, fmt.Sprint(f.v))
		}
	}
	if w := params.StackWords.Or(sc.WithDefaults().StackWords); all || w != sc.DefaultStackWords() {
		args = append(args, "--"+params.StackWords.Name, fmt.Sprint(w))
	}
	if all || c.Preempt != "full" {
		args = append(args, "--preempt", c.Preempt)
	}
	if p := sc.WithDefaults().Prologue; sc.ObjectFile == "" && p != "" && (all || p != "fentry") {
		args = append(args, "--prologue", p)
	}
	switch {
	case c.Strict:
		args = append(args, "--strict")
	case all:
		args = append(args, "--strict=false")
	}
	if sc.NoQuiet && sc.NoStable {
		args = append(args, "--no-reference-reductions")
	}
	return strings.Join(args, " ") + fmt.Sprintf(" --schedule %q", schedule)
}

// ReplayNote is what a reader must know to replay schedule under sc:
// empty when ReplayCommand works as printed; otherwise one sentence (a
// strategy built in Go must first be written with patch.Format; a text or
// knob that only Go can set means replaying from Go with explore.Replay).
func ReplayNote(sc explore.Scenario, schedule string) string {
	goCall := fmt.Sprintf("explore.Replay(sc, %q, opts)", schedule)
	switch {
	case sc.Image != nil && sc.ObjectFile == "":
		return "the text is built in Go (Scenario.Image): replay from Go with " + goCall
	case sc.NoInt3Emulation:
		return "Scenario.NoInt3Emulation is a Go-only knob: replay from Go with " + goCall
	}
	if origin, _ := OriginOf(sc.Strategy); origin == GoDefined {
		return fmt.Sprintf("the strategy is defined in Go: write patch.Format(strategy) to %s first, or replay from Go with %s",
			GoDefinedFile(sc.Strategy), goCall)
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
