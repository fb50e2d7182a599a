package patch

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// stripComment removes a comment: the whole line when its first non-blank
// character is #, else from a # that stands between a blank and a blank or
// the end of the line, outside double quotes.
func stripComment(text string) (string, error) {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "#") {
		return "", nil
	}
	quoted, esc := false, false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case esc:
			esc = false
		case quoted && c == '\\':
			esc = true
		case c == '"':
			quoted = !quoted
		case !quoted && c == '#' && i > 0 && isBlank(t[i-1]) && (i+1 == len(t) || isBlank(t[i+1])):
			return strings.TrimSpace(t[:i]), nil
		}
	}
	if quoted {
		return "", errors.New("unterminated quoted string")
	}
	return t, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// cutField splits off the first blank-separated field of s.
func cutField(s string) (field, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

// validName reports whether s is a name: a letter or _, then letters,
// digits and _.+-.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z':
		case i > 0 && ('0' <= r && r <= '9' || r == '.' || r == '+' || r == '-'):
		default:
			return false
		}
	}
	return true
}

func oneName(what, rest string) (string, error) {
	name, more := cutField(rest)
	switch {
	case name == "":
		return "", fmt.Errorf("%s: missing name", what)
	case more != "":
		return "", fmt.Errorf("%s: one name expected, got %q", what, rest)
	case !validName(name):
		return "", fmt.Errorf("%s: bad name %q (want letters, digits and _.+-, starting with a letter or _)", what, name)
	}
	return name, nil
}

func (p *parser) state(rest string) error {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return p.errf(p.n, "state: want enabled=FORM and/or disabled=FORM")
	}
	seen := map[string]bool{}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || (k != "enabled" && k != "disabled") {
			return p.errf(p.n, "state: bad %q (want enabled=FORM or disabled=FORM)", f)
		}
		if seen[k] {
			return p.errf(p.n, "state: %s given twice", k)
		}
		seen[k] = true
		if !validName(v) {
			return p.errf(p.n, "state: bad form name %q", v)
		}
		if k == "enabled" {
			p.s.Enabled = v
		} else {
			p.s.Disabled = v
		}
	}
	return nil
}

// form parses "NAME OFF: INSN | OFF: INSN ...".
func (p *parser) form(rest string) error {
	name, pieces := cutField(rest)
	if name == "" {
		return p.errf(p.n, "form: missing name")
	}
	if !validName(name) || name == "bytewise" {
		return p.errf(p.n, "form: bad name %q (want letters, digits and _.+-, starting with a letter or _; not bytewise)", name)
	}
	if first, ok := p.forms[name]; ok {
		return p.errf(p.n, "form %s is already defined on line %d", name, first)
	}
	if pieces == "" {
		return p.errf(p.n, "form %s: no instructions (want OFF: INSN | OFF: INSN ...)", name)
	}
	f := Form{Name: name, Pos: p.pos()}
	for _, piece := range strings.Split(pieces, "|") {
		offText, insn, ok := strings.Cut(piece, ":")
		offText, insn = strings.TrimSpace(offText), strings.TrimSpace(insn)
		if !ok || offText == "" || insn == "" {
			return p.errf(p.n, "form %s: bad instruction %q (want OFF: INSN)", name, strings.TrimSpace(piece))
		}
		off, err := parseOff(offText)
		if err != nil {
			return p.errf(p.n, "form %s: %v", name, err)
		}
		if slices.ContainsFunc(f.Pieces, func(q Piece) bool { return q.Off == off }) {
			return p.errf(p.n, "form %s: two instructions at offset %d", name, off)
		}
		f.Pieces = append(f.Pieces, Piece{Off: off, Insn: insn})
	}
	p.forms[name] = p.n
	p.s.Forms = append(p.s.Forms, f)
	return nil
}

// parseOff parses a site offset: decimal or 0x hex, at least 0.
func parseOff(s string) (int, error) {
	var n int64
	var err error
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		n, err = strconv.ParseInt(h, 16, 32)
	} else {
		n, err = strconv.ParseInt(s, 10, 32)
	}
	switch {
	case err != nil:
		return 0, fmt.Errorf("bad offset %q", s)
	case n < 0:
		return 0, fmt.Errorf("offset %d is outside the site (offsets start at 0)", n)
	}
	return int(n), nil
}

// refs parses refs, one per field.
func (p *parser) refs(fields []string) ([]Ref, error) {
	var out []Ref
	for _, f := range fields {
		r, err := parseRef(f)
		if err != nil {
			return nil, err
		}
		r.Pos = p.pos()
		out = append(out, r)
	}
	return out, nil
}

// parseRef parses FORM[@OFF{,OFF}][[LO:HI]].
func parseRef(s string) (Ref, error) {
	var r Ref
	name, byteRange, hasBytes := strings.Cut(s, "[")
	name, offs, hasOffs := strings.Cut(name, "@")
	if !validName(name) {
		return r, fmt.Errorf("bad form reference %q (want FORM, FORM@OFF,OFF or FORM@OFF[LO:HI])", s)
	}
	r.Form = name
	if hasOffs {
		for _, o := range strings.Split(offs, ",") {
			off, err := parseOff(o)
			if err != nil {
				return r, fmt.Errorf("%s: %v", s, err)
			}
			if slices.Contains(r.Offs, off) {
				return r, fmt.Errorf("%s: offset %d selected twice", s, off)
			}
			r.Offs = append(r.Offs, off)
		}
	}
	if hasBytes {
		inner, ok := strings.CutSuffix(byteRange, "]")
		lo, hi, ok2 := strings.Cut(inner, ":")
		if !ok || !ok2 {
			return r, fmt.Errorf("%s: bad byte range (want [LO:HI])", s)
		}
		l, err1 := strconv.ParseInt(lo, 10, 32)
		h, err2 := strconv.ParseInt(hi, 10, 32)
		if err1 != nil || err2 != nil || l < 0 || l >= h {
			return r, fmt.Errorf("%s: bad byte range [%s:%s] (want 0 <= LO < HI)", s, lo, hi)
		}
		r.Bytes = [2]int{int(l), int(h)}
	}
	return r, nil
}

// step parses "OP [REF...] [bytewise]".
func (p *parser) step(rest string) (Step, error) {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return Step{}, fmt.Errorf("missing operation (want one of %s)", strings.Join(stepNames[1:], ", "))
	}
	kind, err := ParseStepKind(fields[0])
	if err != nil {
		return Step{}, err
	}
	st := Step{Kind: kind, Pos: p.pos()}
	args := fields[1:]
	if i := slices.Index(args, "bytewise"); i >= 0 {
		switch {
		case kind != Write:
			return st, fmt.Errorf("only write can be bytewise, not %v", kind)
		case i != len(args)-1:
			return st, errors.New("bytewise goes last: write FORM... bytewise")
		}
		st.Bytewise, args = true, args[:i]
	}
	switch kind {
	case Write, StopMachine, BreakpointOn:
		if len(args) == 0 {
			return st, fmt.Errorf("%v needs at least one form to write", kind)
		}
		if st.Writes, err = p.refs(args); err != nil {
			return st, fmt.Errorf("%v: %v", kind, err)
		}
	default:
		if len(args) > 0 {
			return st, fmt.Errorf("%v takes no arguments, got %q", kind, strings.Join(args, " "))
		}
	}
	return st, nil
}
