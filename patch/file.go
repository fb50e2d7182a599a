package patch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/mcountsim/mcountsim/params"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// Pos is where part of a strategy was written: a line of a scenario file.
// The zero Pos means the part was built in Go.
type Pos struct {
	File string
	Line int
}

// IsValid reports whether p names a line.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String returns "file:line", or "" for the zero Pos.
func (p Pos) String() string {
	if !p.IsValid() {
		return ""
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// FileError is an error in a scenario file, at a line. It wraps ErrInvalid.
type FileError struct {
	File   string
	Line   int
	Reason string
}

func (e *FileError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason) }

// Unwrap returns ErrInvalid.
func (e *FileError) Unwrap() error { return ErrInvalid }

// File is a parsed scenario file.
type File struct {
	Strategy *Strategy
	Config   FileConfig
}

// FileConfig holds the config lines of a scenario file. A nil field was not
// given. Every value has been checked against the range mcountsim check
// accepts.
type FileConfig struct {
	Preempt    *sched.Preempt
	CPUs       *int
	Tasks      *int
	Iterations *int
	Toggles    *int
	Functions  *int
	Bound      *int
	MaxStates  *int
	Timeout    *time.Duration
	Prologue   *string // x86 only: "fentry" or "mcount"
	Strict     *bool

	// Settings lists every KEY=VALUE of the config lines in file order.
	// Each Key is the name of the mcountsim check flag it stands for, and
	// each Value is valid for that flag's Set.
	Settings []Setting
}

// Setting is one KEY=VALUE of a config line.
type Setting struct {
	Key, Value string
	Pos        Pos
}

type configKey struct {
	key string
	set func(c *FileConfig, v string) error
	get func(c *FileConfig) (string, bool)
}

// configKeys are the config keys in the order FormatFile writes them. Each
// parses a value into c, or returns the reason it is bad.
var configKeys = []configKey{
	{"preempt", func(c *FileConfig, v string) error {
		p, err := sched.ParsePreempt(v)
		c.Preempt = &p
		return err
	}, func(c *FileConfig) (string, bool) { return fmtPtr(c.Preempt) }},
	{"cpus", intKey(func(c *FileConfig) **int { return &c.CPUs }, params.CPUs.Min, params.CPUs.Max), getInt(func(c *FileConfig) *int { return c.CPUs })},
	{"tasks", intKey(func(c *FileConfig) **int { return &c.Tasks }, params.Tasks.Min, params.Tasks.Max), getInt(func(c *FileConfig) *int { return c.Tasks })},
	{"iterations", intKey(func(c *FileConfig) **int { return &c.Iterations }, params.Iterations.Min, params.Iterations.Max), getInt(func(c *FileConfig) *int { return c.Iterations })},
	{"toggles", intKey(func(c *FileConfig) **int { return &c.Toggles }, params.Toggles.Min, params.Toggles.Max), getInt(func(c *FileConfig) *int { return c.Toggles })},
	{"functions", intKey(func(c *FileConfig) **int { return &c.Functions }, params.Functions.Min, params.Functions.Max), getInt(func(c *FileConfig) *int { return c.Functions })},
	{"bound", intKey(func(c *FileConfig) **int { return &c.Bound }, params.Bound.Min, params.Bound.Max), getInt(func(c *FileConfig) *int { return c.Bound })},
	{"max-states", intKey(func(c *FileConfig) **int { return &c.MaxStates }, params.MaxStates.Min, params.MaxStates.Max), getInt(func(c *FileConfig) *int { return c.MaxStates })},
	{"timeout", func(c *FileConfig, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("want a duration such as 30s or 5m, got %q", v)
		}
		c.Timeout = &d
		return nil
	}, func(c *FileConfig) (string, bool) { return fmtPtr(c.Timeout) }},
	{"prologue", func(c *FileConfig, v string) error {
		if v != "fentry" && v != "mcount" {
			return fmt.Errorf("want fentry or mcount, got %q", v)
		}
		c.Prologue = &v
		return nil
	}, func(c *FileConfig) (string, bool) { return fmtPtr(c.Prologue) }},
	{"strict", func(c *FileConfig, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false, got %q", v)
		}
		c.Strict = &b
		return nil
	}, func(c *FileConfig) (string, bool) { return fmtPtr(c.Strict) }},
}

func intKey(field func(*FileConfig) **int, lo, hi int) func(*FileConfig, string) error {
	return func(c *FileConfig, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < int64(lo) || n > int64(hi) {
			return fmt.Errorf("want an integer in %d..%d, got %q", lo, hi, v)
		}
		i := int(n)
		*field(c) = &i
		return nil
	}
}

func getInt(field func(*FileConfig) *int) func(*FileConfig) (string, bool) {
	return func(c *FileConfig) (string, bool) { return fmtPtr(field(c)) }
}

func fmtPtr[T any](p *T) (string, bool) {
	if p == nil {
		return "", false
	}
	return fmt.Sprint(*p), true
}

// maxLine is the longest line ParseFile reads.
const maxLine = 64 << 10

// keywords are the line keywords, for error messages.
const keywords = "strategy, arch, origin, state, form, boot, enable, disable, config"

// MaxFileSize is the largest scenario file ReadFile reads.
const MaxFileSize = 1 << 20

// ReadFile opens and parses the scenario file at path. It refuses, without
// blocking, anything but a regular file (a FIFO, a device, a directory),
// and reads at most MaxFileSize bytes.
func ReadFile(path string) (*File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if st, err = r.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %d bytes, larger than the limit of %d bytes", path, st.Size(), MaxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: larger than the limit of %d bytes", path, MaxFileSize)
	}
	return ParseFile(path, bytes.NewReader(data))
}

// ParseFile reads a scenario file (see the package documentation for the
// format); name is the file name used in errors. The strategy is checked
// as far as possible without the machine configuration: syntax and names,
// then Validate on the default image of its arch. Every error is a
// *FileError ("name:line: reason") that wraps ErrInvalid, except a read
// error of r.
func ParseFile(name string, r io.Reader) (*File, error) {
	p := &parser{name: name, s: &Strategy{}, once: map[string]int{}, forms: map[string]int{}, keys: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	for sc.Scan() {
		p.n++
		if err := p.line(sc.Text()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, p.errf(p.n+1, "line longer than %d bytes", maxLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return &File{Strategy: p.s, Config: p.cfg}, nil
}

type parser struct {
	name  string
	n     int // current line
	s     *Strategy
	cfg   FileConfig
	once  map[string]int // line of each keyword that may appear once
	forms map[string]int // line of each form
	keys  map[string]int // line of each config key
}

func (p *parser) errf(line int, format string, args ...any) error {
	return &FileError{File: p.name, Line: line, Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) pos() Pos { return Pos{File: p.name, Line: p.n} }

// line parses line p.n.
func (p *parser) line(text string) error {
	text = strings.TrimSuffix(text, "\r")
	if p.n == 1 {
		text = strings.TrimPrefix(text, "\ufeff")
	}
	if !utf8.ValidString(text) {
		return p.errf(p.n, "invalid UTF-8")
	}
	for i, r := range text {
		if r < ' ' && r != '\t' || r == 0x7f {
			return p.errf(p.n, "control character %U at column %d", r, i+1)
		}
	}
	text, err := stripComment(text)
	if err != nil {
		return p.errf(p.n, "%v", err)
	}
	key, rest := cutField(text)
	if key == "" {
		return nil
	}
	switch key {
	case "strategy", "arch", "origin", "state", "boot", "layout":
		if first, ok := p.once[key]; ok {
			return p.errf(p.n, "second %s line (the first is line %d)", key, first)
		}
		p.once[key] = p.n
	}
	switch key {
	case "strategy":
		name, err := oneName("strategy", rest)
		if err != nil {
			return p.errf(p.n, "%v", err)
		}
		p.s.Name = name
	case "arch":
		a, err := kernel.ParseArch(rest)
		if err != nil {
			return p.errf(p.n, "%v", err)
		}
		p.s.Arch = a
	case "layout":
		// The call-site layout the strategy patches (Strategy.Prologue).
		name, err := oneName("layout", rest)
		if err != nil {
			return p.errf(p.n, "%v", err)
		}
		p.s.Prologue = name
	case "origin":
		if strings.HasPrefix(rest, `"`) {
			o, err := strconv.Unquote(rest)
			if err != nil {
				return p.errf(p.n, "origin: bad quoted string %s", rest)
			}
			rest = o
		}
		p.s.Origin = rest
	case "state":
		return p.state(rest)
	case "form":
		return p.form(rest)
	case "boot":
		refs, err := p.refs(strings.Fields(rest))
		if err != nil {
			return p.errf(p.n, "boot: %v", err)
		}
		if len(refs) == 0 {
			return p.errf(p.n, "boot: no form to write")
		}
		p.s.Boot = refs
	case "enable", "disable":
		st, err := p.step(rest)
		if err != nil {
			return p.errf(p.n, "%s: %v", key, err)
		}
		if key == "enable" {
			p.s.Enable = append(p.s.Enable, st)
		} else {
			p.s.Disable = append(p.s.Disable, st)
		}
	case "config":
		return p.config(rest)
	default:
		if _, err := ParseStepKind(key); err == nil {
			return p.errf(p.n, "unknown keyword %q (an operation goes after enable or disable)", key)
		}
		return p.errf(p.n, "unknown keyword %q (want one of %s)", key, keywords)
	}
	return nil
}

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

func (p *parser) config(rest string) error {
	fields := strings.Fields(rest)
	if len(fields) == 0 {
		return p.errf(p.n, "config: want KEY=VALUE ...")
	}
	for _, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return p.errf(p.n, "config: bad %q (want KEY=VALUE)", f)
		}
		i := slices.IndexFunc(configKeys, func(c configKey) bool { return c.key == k })
		if i < 0 {
			names := make([]string, len(configKeys))
			for j, c := range configKeys {
				names[j] = c.key
			}
			return p.errf(p.n, "config: unknown key %q (want one of %s)", k, strings.Join(names, ", "))
		}
		if first, ok := p.keys[k]; ok {
			return p.errf(p.n, "config: %s given twice (first on line %d)", k, first)
		}
		if err := configKeys[i].set(&p.cfg, v); err != nil {
			return p.errf(p.n, "config: %s: %v", k, err)
		}
		p.keys[k] = p.n
		p.cfg.Settings = append(p.cfg.Settings, Setting{Key: k, Value: v, Pos: p.pos()})
	}
	return nil
}

// finish checks what needs the whole file: required lines, names that
// refer to forms, and then the strategy on the default image of its arch.
func (p *parser) finish() error {
	end := max(p.n, 1)
	for _, k := range []string{"strategy", "arch", "boot"} {
		if _, ok := p.once[k]; !ok {
			return p.errf(end, "no %s line (a file needs strategy, arch, form, boot, enable and disable lines)", k)
		}
	}
	if len(p.s.Enable) == 0 {
		return p.errf(end, "no enable line (the enable transition needs at least one step)")
	}
	if len(p.s.Disable) == 0 {
		return p.errf(end, "no disable line (the disable transition needs at least one step)")
	}
	var known []string
	for _, f := range p.s.Forms {
		known = append(known, f.Name)
	}
	unknown := func(line int, what, name string) error {
		if len(known) == 0 {
			return p.errf(line, "%s: unknown form %q (the file defines no forms)", what, name)
		}
		return p.errf(line, "%s: unknown form %q (want one of %s)", what, name, strings.Join(known, ", "))
	}
	if line, ok := p.once["state"]; ok {
		for _, n := range []string{p.s.Enabled, p.s.Disabled} {
			if _, ok := p.s.Form(n); n != "" && !ok {
				return unknown(line, "state", n)
			}
		}
	}
	checkRefs := func(what string, refs []Ref) error {
		for _, r := range refs {
			f, ok := p.s.Form(r.Form)
			if !ok {
				return unknown(r.Pos.Line, what, r.Form)
			}
			for _, off := range r.Offs {
				if !hasPiece(f, off) {
					var offs []string
					for _, q := range f.Pieces {
						offs = append(offs, strconv.Itoa(q.Off))
					}
					return p.errf(r.Pos.Line, "%s: form %s has no instruction at offset %d (it has %s)", what, f.Name, off, strings.Join(offs, ", "))
				}
			}
		}
		return nil
	}
	if err := checkRefs("boot", p.s.Boot); err != nil {
		return err
	}
	for _, tr := range []struct {
		key   string
		steps []Step
	}{{"enable", p.s.Enable}, {"disable", p.s.Disable}} {
		for _, st := range tr.steps {
			if err := checkRefs(tr.key+": "+st.Kind.String(), st.Writes); err != nil {
				return err
			}
		}
	}
	if p.cfg.Prologue != nil && p.s.Arch != kernel.X86 && p.s.Arch != kernel.ARM64 {
		return p.errf(p.keys["prologue"], "config: prologue applies to arch x86 and arm64 only")
	}
	cfg := kernel.Config{Prologue: p.s.Prologue}
	if p.cfg.Prologue != nil {
		cfg.Prologue = *p.cfg.Prologue
	}
	img, err := kernel.Build(p.s.Arch, cfg)
	if err != nil {
		// No image for this arch yet: Compile validates later.
		return nil
	}
	if err := p.s.Validate(img); err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			return fe
		}
		return p.errf(p.once["strategy"], "%s", strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": "))
	}
	return nil
}

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

// FormatFile writes f: its strategy, then its config in one line.
func FormatFile(f *File) string {
	out := Format(f.Strategy)
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
