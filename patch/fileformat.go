package patch

import (
	"fmt"
	"strconv"
	"strings"
)

// Format writes s as a scenario file that ParseFile reads back to an equal
// strategy (except Pos), provided s is valid and its names, instructions
// and offsets are expressible in the format.
func Format(s *Strategy) string {
	var b strings.Builder
	line := func(key, format string, args ...any) {
		fmt.Fprintf(&b, "%-8s %s\n", key, fmt.Sprintf(format, args...))
	}
	line("strategy", "%s", s.Name)
	line("arch", "%v", s.Arch)
	if s.Prologue != "" {
		line("layout", "%s", s.Prologue)
	}
	if s.Origin != "" {
		line("origin", "%s", strconv.Quote(s.Origin))
	}
	var state []string
	if s.Enabled != "" {
		state = append(state, "enabled="+s.Enabled)
	}
	if s.Disabled != "" {
		state = append(state, "disabled="+s.Disabled)
	}
	if len(state) > 0 {
		line("state", "%s", strings.Join(state, " "))
	}
	b.WriteString("\n")
	for _, f := range s.Forms {
		pieces := make([]string, len(f.Pieces))
		for i, p := range f.Pieces {
			pieces[i] = fmt.Sprintf("%d: %s", p.Off, p.Insn)
		}
		line("form", "%s %s", f.Name, strings.Join(pieces, " | "))
	}
	if len(s.Forms) > 0 {
		b.WriteString("\n")
	}
	line("boot", "%s", formatRefs(s.Boot))
	for _, tr := range []struct {
		key   string
		steps []Step
	}{{"enable", s.Enable}, {"disable", s.Disable}} {
		b.WriteString("\n")
		for _, st := range tr.steps {
			text := st.Kind.String()
			if len(st.Writes) > 0 {
				text += " " + formatRefs(st.Writes)
			}
			if st.Bytewise {
				text += " bytewise"
			}
			line(tr.key, "%s", text)
		}
	}
	return b.String()
}

// FormatFile writes f: its strategy, its tracer, then its config in one
// line.
func FormatFile(f *File) string {
	out := Format(f.Strategy)
	if f.Tracer != nil {
		out += formatTracer(f.Tracer)
	}
	var kv []string
	for _, k := range configKeys {
		if v, ok := k.get(&f.Config); ok {
			kv = append(kv, k.key+"="+v)
		}
	}
	if len(kv) > 0 {
		out += fmt.Sprintf("\n%-8s %s\n", "config", strings.Join(kv, " "))
	}
	return out
}

func formatRefs(refs []Ref) string {
	out := make([]string, len(refs))
	for i, r := range refs {
		s := r.Form
		if len(r.Offs) > 0 {
			offs := make([]string, len(r.Offs))
			for j, o := range r.Offs {
				offs[j] = strconv.Itoa(o)
			}
			s += "@" + strings.Join(offs, ",")
		}
		if r.Bytes != [2]int{} {
			s += fmt.Sprintf("[%d:%d]", r.Bytes[0], r.Bytes[1])
		}
		out[i] = s
	}
	return strings.Join(out, " ")
}
