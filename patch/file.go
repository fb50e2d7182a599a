package patch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcountsim/mcountsim/internal/regfile"
	"github.com/mcountsim/mcountsim/kernel"
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
	// Tracer is the file's tracer callback (filetracer.go), or nil.
	Tracer *kernel.Tracer
}

// maxLine is the longest line ParseFile reads.
const maxLine = 64 << 10

// keywords are the line keywords, for error messages.
const keywords = "strategy, arch, origin, state, form, boot, enable, disable, config, tracer, callback, traced"

// MaxFileSize is the largest scenario file ReadFile reads.
const MaxFileSize = 1 << 20

// ReadFile opens and parses the scenario file at path. It refuses, without
// blocking, anything but a regular file (a FIFO, a device, a directory),
// and reads at most MaxFileSize bytes.
func ReadFile(path string) (*File, error) {
	r, _, err := regfile.Open(path, MaxFileSize)
	var kind *regfile.KindError
	var big *regfile.SizeError
	switch {
	case errors.As(err, &kind):
		return nil, fmt.Errorf("%s: not a regular file", path)
	case errors.As(err, &big):
		return nil, fmt.Errorf("%s: %v", path, big)
	case err != nil:
		return nil, err
	}
	defer r.Close()
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
	tr, err := p.finishTracer()
	if err != nil {
		return nil, err
	}
	return &File{Strategy: p.s, Config: p.cfg, Tracer: tr}, nil
}

type parser struct {
	name  string
	n     int // current line
	s     *Strategy
	cfg   FileConfig
	once  map[string]int // line of each keyword that may appear once
	forms map[string]int // line of each form
	keys  map[string]int // line of each config key
	// The tracer section (filetracer.go).
	tracer        *kernel.Tracer
	callback      []string
	callbackLines []int
	traced        []string
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
	case "strategy", "arch", "origin", "state", "boot", "layout", "tracer", "traced":
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
	case "tracer", "callback", "traced":
		return p.tracerLine(key, rest)
	default:
		if _, err := ParseStepKind(key); err == nil {
			return p.errf(p.n, "unknown keyword %q (an operation goes after enable or disable)", key)
		}
		return p.errf(p.n, "unknown keyword %q (want one of %s)", key, keywords)
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
