package patch

import (
	"fmt"
	"strings"

	"github.com/mcountsim/mcountsim/kernel"
)

// The tracer section of a scenario file (issue 17): a tracer callback as
// data, like a strategy.
//
//	tracer   NAME        the callback's name; alone, a built-in (TracerBuiltins)
//	callback STEP        one step of its body, in order (kernel.TracerSteps, or call FUNCTION)
//	traced   F...        the kernel functions compiled with an mcount site (kernel.Traceable, or none)
//
// The config keys irq-bound, lossless and nmi go with it.

// tracerLine parses a tracer, callback or traced line.
func (p *parser) tracerLine(key, rest string) error {
	switch key {
	case "tracer":
		name, err := oneName("tracer", rest)
		if err != nil {
			return p.errf(p.n, "%v", err)
		}
		p.tracer = &kernel.Tracer{Name: name}
	case "callback":
		step := strings.Join(strings.Fields(rest), " ")
		if step == "" {
			return p.errf(p.n, "callback: want one step (%s, or call FUNCTION)", tracerStepNames())
		}
		if strings.HasPrefix(step, "call ") {
			if _, err := oneName("callback: call", strings.TrimPrefix(step, "call ")); err != nil {
				return p.errf(p.n, "%v", err)
			}
		} else if !knownTracerStep(step) {
			return p.errf(p.n, "callback: unknown step %q (want one of %s, or call FUNCTION)", step, tracerStepNames())
		}
		p.callback = append(p.callback, step)
		p.callbackLines = append(p.callbackLines, p.n)
	case "traced":
		f := strings.Fields(rest)
		if len(f) == 1 && f[0] == "none" {
			f = nil
		} else if len(f) == 0 {
			return p.errf(p.n, "traced: want kernel functions (%s), or none", strings.Join(kernel.Traceable, ", "))
		}
		for i, n := range f {
			if !contains(kernel.Traceable, n) {
				return p.errf(p.n, "traced: cannot trace %q (want any of %s, or none)", n, strings.Join(kernel.Traceable, ", "))
			}
			if contains(f[:i], n) {
				return p.errf(p.n, "traced: %s twice", n)
			}
		}
		p.traced = f
	}
	return nil
}

// finishTracer checks the tracer section once the file is read and fills
// in File.Tracer.
func (p *parser) finishTracer() (*kernel.Tracer, error) {
	tl, ok := p.once["tracer"]
	if !ok {
		for _, k := range []string{"traced"} {
			if line, ok := p.once[k]; ok {
				return nil, p.errf(line, "%s: no tracer line", k)
			}
		}
		if len(p.callbackLines) > 0 {
			return nil, p.errf(p.callbackLines[0], "callback: no tracer line")
		}
		for _, k := range []string{"irq-bound", "lossless", "nmi"} {
			if line, ok := p.keys[k]; ok {
				return nil, p.errf(line, "config: %s applies with a tracer only", k)
			}
		}
		return nil, nil
	}
	t := p.tracer
	t.Traced = p.traced
	if len(p.callback) == 0 {
		b, ok := tracerBuiltin(t.Name)
		if !ok {
			return nil, p.errf(tl, "tracer %s: not a built-in (%s), and no callback lines", t.Name, strings.Join(TracerNames(), ", "))
		}
		t.Steps = append([]string(nil), b.Steps...)
	} else {
		t.Steps = p.callback
	}
	if err := kernel.ValidateTracer(t); err != nil {
		return nil, p.errf(tl, "%v", err)
	}
	if p.s.Arch != kernel.ARM {
		return nil, p.errf(tl, "tracer: the tracer kernel is laid out for arch arm only, not %v", p.s.Arch)
	}
	return t, nil
}

// formatTracer writes the tracer section of t.
func formatTracer(t *kernel.Tracer) string {
	var b strings.Builder
	line := func(key, text string) { fmt.Fprintf(&b, "%-8s %s\n", key, text) }
	b.WriteString("\n")
	line("tracer", t.Name)
	for _, s := range t.Steps {
		line("callback", s)
	}
	if len(t.Traced) > 0 {
		line("traced", strings.Join(t.Traced, " "))
	}
	return b.String()
}

func tracerBuiltin(name string) (TracerBuiltin, bool) {
	for _, b := range TracerBuiltins {
		if b.Name == name {
			return b, true
		}
	}
	return TracerBuiltin{}, false
}

// TracerNames lists the built-in tracers.
func TracerNames() []string {
	var n []string
	for _, b := range TracerBuiltins {
		n = append(n, b.Name)
	}
	return n
}

func knownTracerStep(s string) bool {
	for _, st := range kernel.TracerSteps {
		if st[0] == s {
			return true
		}
	}
	return false
}

func tracerStepNames() string {
	var n []string
	for _, st := range kernel.TracerSteps {
		n = append(n, st[0])
	}
	return strings.Join(n, ", ")
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
