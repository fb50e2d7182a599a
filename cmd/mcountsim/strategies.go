package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcountsim/mcountsim/patch"
)

func runStrategies(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("strategies")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprintln(stdout, "Usage: mcountsim strategies\n\nLists every built-in strategy: its arch, the forms a site takes, and where it comes from.")
			return 0
		}
		fmt.Fprintf(stderr, "mcountsim strategies: %v\n", err)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcountsim strategies: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ARCH\tSTRATEGY\tENABLED\tDISABLED\tORIGIN")
	for _, s := range patch.Builtins() {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%s\t%s\n", s.Arch, s.Name, formText(s, s.Enabled), formText(s, s.Disabled), s.Origin)
	}
	tw.Flush()
	return 0
}

func formText(s *patch.Strategy, name string) string {
	f, ok := s.Form(name)
	if !ok {
		return "-"
	}
	var parts []string
	for _, p := range f.Pieces {
		parts = append(parts, fmt.Sprintf("+%d %s", p.Off, p.Insn))
	}
	return strings.Join(parts, "; ")
}
