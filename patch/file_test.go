package patch

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/sched"
)

// withoutPos returns a deep copy of s with every Pos cleared, for
// comparing a parsed strategy with one built in Go.
func withoutPos(s *Strategy) *Strategy {
	c := *s
	c.Forms = nil
	for _, f := range s.Forms {
		f.Pos = Pos{}
		f.Pieces = append([]Piece(nil), f.Pieces...)
		c.Forms = append(c.Forms, f)
	}
	refs := func(rs []Ref) []Ref {
		if rs == nil {
			return nil
		}
		out := make([]Ref, len(rs))
		for i, r := range rs {
			r.Pos = Pos{}
			out[i] = r
		}
		return out
	}
	steps := func(ss []Step) []Step {
		if ss == nil {
			return nil
		}
		out := make([]Step, len(ss))
		for i, st := range ss {
			st.Pos = Pos{}
			st.Writes = refs(st.Writes)
			out[i] = st
		}
		return out
	}
	c.Boot, c.Enable, c.Disable = refs(s.Boot), steps(s.Enable), steps(s.Disable)
	return &c
}

func parseString(t testing.TB, name, text string) *File {
	t.Helper()
	f, err := ParseFile(name, strings.NewReader(text))
	require.NoError(t, err)
	return f
}

func TestFormatRoundTripBuiltins(t *testing.T) {
	for _, s := range Builtins() {
		t.Run(s.Name, func(t *testing.T) {
			text := Format(s)
			f := parseString(t, s.Name+".strategy", text)
			require.Equal(t, s, withoutPos(f.Strategy))
			assert.Equal(t, text, Format(f.Strategy), "Format is stable")
			assert.Equal(t, FileConfig{}, f.Config)
			// Every step and ref remembers its line.
			lines := strings.Split(text, "\n")
			for _, st := range append(f.Strategy.Enable, f.Strategy.Disable...) {
				require.True(t, st.Pos.IsValid())
				assert.Contains(t, lines[st.Pos.Line-1], st.Kind.String())
				for _, r := range st.Writes {
					assert.Equal(t, st.Pos, r.Pos)
				}
			}
			for _, fm := range f.Strategy.Forms {
				assert.True(t, strings.HasPrefix(lines[fm.Pos.Line-1], "form     "+fm.Name+" "))
			}
		})
	}
}

func TestFormatRoundTripRefsAndConfig(t *testing.T) {
	s := &Strategy{
		Name: "x86-like", Arch: kernel.ARM, Origin: "quotes \" and # and \\ survive",
		Forms: []Form{
			{Name: "a", Pieces: []Piece{{Off: 0, Insn: "e52de004"}, {Off: 4, Insn: "bl .+8"}}},
			{Name: "b_2.x+y", Pieces: []Piece{{Off: 0x4, Insn: "add sp, sp, #4"}}},
		},
		Boot:    []Ref{{Form: "a", Offs: []int{4, 0}}, {Form: "b_2.x+y", Bytes: [2]int{1, 3}}},
		Enable:  []Step{{Kind: Write, Writes: []Ref{{Form: "a", Offs: []int{0}, Bytes: [2]int{0, 2}}}, Bytewise: true}, {Kind: SyncCore}},
		Disable: []Step{{Kind: BreakpointOn, Writes: []Ref{{Form: "a"}}}, {Kind: BreakpointOff}, {Kind: SyncSched}},
	}
	d := 90 * time.Second
	pre, cpus, bound, strict := sched.PreemptNone, 3, 0, true
	in := &File{Strategy: s, Config: FileConfig{Preempt: &pre, CPUs: &cpus, Bound: &bound, Timeout: &d, Strict: &strict}}
	text := FormatFile(in)
	assert.Contains(t, text, "\nconfig   preempt=none cpus=3 bound=0 timeout=1m30s strict=true\n")
	out := parseString(t, "x.strategy", text)
	require.Equal(t, s, withoutPos(out.Strategy))
	require.Equal(t, []Setting{
		{"preempt", "none", out.Config.Settings[0].Pos}, {"cpus", "3", out.Config.Settings[0].Pos},
		{"bound", "0", out.Config.Settings[0].Pos}, {"timeout", "1m30s", out.Config.Settings[0].Pos},
		{"strict", "true", out.Config.Settings[0].Pos},
	}, out.Config.Settings)
	out.Config.Settings = nil
	assert.Equal(t, in.Config, out.Config)
	assert.Equal(t, text, FormatFile(out))
}

func TestParseFileSyntax(t *testing.T) {
	f := parseString(t, "s.strategy", "\ufeff# header\r\n"+
		"strategy\tt   # trailing comment\n"+
		"  arch arm\n"+
		"origin plain text, with a #hash kept\n"+
		"form e 0x0: push {lr} | 0x4 :  bl   __gnu_mcount_nc   # a comment after an instruction\n"+
		"form n 4: add sp, sp, #4\n"+
		"boot n\n"+
		"enable stop_machine e@0x4\n"+
		"disable write n bytewise\n"+
		"config cpus=1\n"+
		"config tasks=3 max-states=1000\n")
	s := f.Strategy
	assert.Equal(t, "t", s.Name)
	assert.Equal(t, "plain text, with a #hash kept", s.Origin)
	assert.Equal(t, []Piece{{0, "push {lr}"}, {4, "bl   __gnu_mcount_nc"}}, s.Forms[0].Pieces)
	assert.Equal(t, []Piece{{4, "add sp, sp, #4"}}, s.Forms[1].Pieces)
	assert.Equal(t, Pos{"s.strategy", 5}, s.Forms[0].Pos)
	assert.Equal(t, []Ref{{Form: "e", Offs: []int{4}, Pos: Pos{"s.strategy", 8}}}, s.Enable[0].Writes)
	assert.True(t, s.Disable[0].Bytewise)
	assert.Equal(t, 1, *f.Config.CPUs)
	assert.Equal(t, 3, *f.Config.Tasks)
	assert.Equal(t, 1000, *f.Config.MaxStates)
	assert.Nil(t, f.Config.Bound)
	assert.Equal(t, "s.strategy:11", f.Config.Settings[2].Pos.String())
	assert.Equal(t, "", Pos{}.String())
}

// base is a valid file; the error cases below edit it.
const base = `strategy t
arch arm
state enabled=enabled disabled=nops
form enabled 0: push {lr} | 4: bl __gnu_mcount_nc
form nops 0: mov r0, r0 | 4: mov r0, r0
form jump 0: b .+8
boot nops
enable stop_machine jump
enable synchronize_rcu_tasks
enable stop_machine enabled@4
enable stop_machine enabled@0
disable stop_machine jump
disable synchronize_rcu_tasks
disable stop_machine nops
`

// edit replaces line n (1-based) of base with repl (which may hold several
// lines, or none).
func edit(n int, repl string) string {
	lines := strings.Split(base, "\n")
	lines[n-1] = repl
	return strings.Join(lines, "\n")
}

func TestParseFileErrors(t *testing.T) {
	const ops = "write, stop_machine, synchronize_sched, synchronize_rcu_tasks, sync_core, bp_on, bp_off, flush_icache_all"
	for _, tc := range []struct{ name, text, want string }{
		// Syntax.
		{"unknown keyword", edit(3, "stat enabled=enabled"), `f:3: unknown keyword "stat" (want one of strategy, arch, origin, state, form, boot, enable, disable, config, tracer, callback, traced)`},
		{"operation as keyword", edit(8, "stop_machine jump"), `f:8: unknown keyword "stop_machine" (an operation goes after enable or disable)`},
		{"two names", edit(1, "strategy a b"), `f:1: strategy: one name expected, got "a b"`},
		{"no name", edit(1, "strategy"), `f:1: strategy: missing name`},
		{"bad name", edit(1, "strategy 2step"), `f:1: strategy: bad name "2step" (want letters, digits and _.+-, starting with a letter or _)`},
		{"bad arch", edit(2, "arch mips"), `f:2: unknown arch "mips" (want arm, x86, riscv64 or arm64)`},
		{"second strategy", edit(2, "arch arm\nstrategy u"), `f:3: second strategy line (the first is line 1)`},
		{"second boot", edit(7, "boot nops\nboot jump"), `f:8: second boot line (the first is line 7)`},
		{"bad origin", edit(2, "arch arm\norigin \"a\\q\""), `f:3: origin: bad quoted string "a\q"`},
		{"unterminated quote", edit(2, "arch arm\norigin \"abc"), `f:3: unterminated quoted string`},
		{"control character", edit(2, "arch\x00arm"), `f:2: control character U+0000 at column 5`},
		{"bad utf-8", edit(2, "arch \xffarm"), `f:2: invalid UTF-8`},
		{"state key", edit(3, "state on=enabled"), `f:3: state: bad "on=enabled" (want enabled=FORM or disabled=FORM)`},
		{"state twice", edit(3, "state enabled=enabled enabled=nops"), `f:3: state: enabled given twice`},
		{"state empty", edit(3, "state"), `f:3: state: want enabled=FORM and/or disabled=FORM`},
		{"form no pieces", edit(6, "form jump"), `f:6: form jump: no instructions (want OFF: INSN | OFF: INSN ...)`},
		{"form no name", edit(6, "form"), `f:6: form: missing name`},
		{"form reserved name", edit(6, "form bytewise 0: b .+8"), `f:6: form: bad name "bytewise" (want letters, digits and _.+-, starting with a letter or _; not bytewise)`},
		{"piece without offset", edit(6, "form jump b .+8"), `f:6: form jump: bad instruction "b .+8" (want OFF: INSN)`},
		{"empty piece", edit(6, "form jump 0: b .+8 |"), `f:6: form jump: bad instruction "" (want OFF: INSN)`},
		{"bad offset", edit(6, "form jump zero: b .+8"), `f:6: form jump: bad offset "zero"`},
		{"octal is not an offset", edit(6, "form jump 0o4: b .+8"), `f:6: form jump: bad offset "0o4"`},
		{"duplicate piece", edit(6, "form jump 0: b .+8 | 0: nop"), `f:6: form jump: two instructions at offset 0`},
		{"duplicate form", edit(6, "form nops 0: b .+8"), `f:6: form nops is already defined on line 5`},
		{"negative offset", edit(6, "form jump -4: b .+8"), `f:6: form jump: offset -4 is outside the site (offsets start at 0)`},
		{"boot nothing", edit(7, "boot"), `f:7: boot: no form to write`},
		{"bad ref", edit(7, "boot nops@"), `f:7: boot: nops@: bad offset ""`},
		{"bad ref name", edit(7, "boot @4"), `f:7: boot: bad form reference "@4" (want FORM, FORM@OFF,OFF or FORM@OFF[LO:HI])`},
		{"ref offset twice", edit(10, "enable stop_machine enabled@4,4"), `f:10: enable: stop_machine: enabled@4,4: offset 4 selected twice`},
		{"bad byte range", edit(10, "enable stop_machine enabled@4[3:1]"), `f:10: enable: stop_machine: enabled@4[3:1]: bad byte range [3:1] (want 0 <= LO < HI)`},
		{"unclosed byte range", edit(10, "enable stop_machine enabled@4[0:1"), `f:10: enable: stop_machine: enabled@4[0:1: bad byte range (want [LO:HI])`},
		{"unknown operation", edit(9, "enable stop_machin jump"), `f:9: enable: unknown operation "stop_machin" (want one of ` + ops + `)`},
		{"missing operation", edit(9, "enable"), `f:9: enable: missing operation (want one of ` + ops + `)`},
		{"arguments to a wait", edit(9, "enable synchronize_rcu_tasks jump"), `f:9: enable: synchronize_rcu_tasks takes no arguments, got "jump"`},
		{"stop_machine without forms", edit(8, "enable stop_machine"), `f:8: enable: stop_machine needs at least one form to write`},
		{"bytewise stop_machine", edit(8, "enable stop_machine jump bytewise"), `f:8: enable: only write can be bytewise, not stop_machine`},
		{"bytewise first", edit(8, "enable write bytewise jump"), `f:8: enable: bytewise goes last: write FORM... bytewise`},
		{"config no value", base + "config cpus", `f:15: config: bad "cpus" (want KEY=VALUE)`},
		{"config empty", base + "config", `f:15: config: want KEY=VALUE ...`},
		{"config unknown key", base + "config cpu=2", `f:15: config: unknown key "cpu" (want one of preempt, cpus, tasks, iterations, toggles, functions, bound, max-states, stack-words, timeout, prologue, strict, irq-bound, lossless, nmi)`},
		{"config bad int", base + "config cpus=two", `f:15: config: cpus: want an integer in 1..8, got "two"`},
		{"config out of range", base + "config tasks=0", `f:15: config: tasks: want an integer in 1..15, got "0"`},
		{"config bad preempt", base + "config preempt=voluntary", `f:15: config: preempt: unknown preemption model "voluntary" (want none or full)`},
		{"config bad timeout", base + "config timeout=-1s", `f:15: config: timeout: want a duration such as 30s or 5m, got "-1s"`},
		{"config bad bool", base + "config strict=yes", `f:15: config: strict: want true or false, got "yes"`},
		{"config bad prologue", base + "config prologue=pg", `f:15: config: prologue: want fentry or mcount, got "pg"`},
		{"config twice", base + "config bound=1\nconfig bound=2", `f:16: config: bound given twice (first on line 15)`},
		{"prologue on arm", base + "config prologue=mcount", `f:15: config: prologue applies to arch x86 and arm64 only`},
		// Whole-file checks.
		{"empty file", "", `f:1: no strategy line (a file needs strategy, arch, form, boot, enable and disable lines)`},
		{"no arch", edit(2, "# no arch"), `f:14: no arch line (a file needs strategy, arch, form, boot, enable and disable lines)`},
		{"no boot", edit(7, ""), `f:14: no boot line (a file needs strategy, arch, form, boot, enable and disable lines)`},
		{"no enable", strings.Join(strings.Split(base, "\n")[:7], "\n") + "\ndisable stop_machine nops\n", `f:8: no enable line (the enable transition needs at least one step)`},
		{"no disable", strings.Join(strings.Split(base, "\n")[:11], "\n") + "\n", `f:11: no disable line (the disable transition needs at least one step)`},
		{"unknown form in state", edit(3, "state enabled=on"), `f:3: state: unknown form "on" (want one of enabled, nops, jump)`},
		{"unknown form in boot", edit(7, "boot nop"), `f:7: boot: unknown form "nop" (want one of enabled, nops, jump)`},
		{"unknown form in a step", edit(14, "disable stop_machine nop"), `f:14: disable: stop_machine: unknown form "nop" (want one of enabled, nops, jump)`},
		{"no such piece", edit(10, "enable stop_machine enabled@8"), `f:10: enable: stop_machine: form enabled has no instruction at offset 8 (it has 0, 4)`},
		// Checks on the default image.
		{"store outside the site", edit(5, "form nops 0: mov r0, r0 | 8: mov r0, r0"), `f:5: form nops: offset 8 is outside the 8-byte site`},
		{"misaligned", edit(6, "form jump 2: b .+8"), `f:6: form jump: offset 2 is not a multiple of 4`},
		{"undecodable form", edit(6, "form jump 0: ffffffff"), `f:6: form jump, offset 0: "ffffffff" (ffffffff) does not decode`},
		{"unknown instruction", edit(6, "form jump 0: jmp 1f"), `f:6: form jump, offset 0: cannot assemble "jmp 1f" (write it as 8 hex digits)`},
		{"unknown symbol", edit(4, "form enabled 0: push {lr} | 4: bl mcount"), `f:4: form enabled, offset 4: "bl mcount": unknown symbol "mcount"`},
		{"byte range outside", edit(10, "enable stop_machine enabled@4[0:5]"), `f:10: enable step 3: form enabled: byte range [0:5] is outside the 4-byte instruction at offset 4`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ParseFile("f", strings.NewReader(tc.text))
			require.Error(t, err)
			assert.Nil(t, f)
			assert.Equal(t, tc.want, err.Error())
			assert.ErrorIs(t, err, ErrInvalid)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, "f", fe.File)
			assert.Positive(t, fe.Line)
		})
	}
}

func TestParseFileLongLine(t *testing.T) {
	_, err := ParseFile("f", strings.NewReader("strategy t\n# "+strings.Repeat("x", maxLine)+"\n"))
	require.EqualError(t, err, "f:2: line longer than 65536 bytes")
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestParseFileReadError(t *testing.T) {
	_, err := ParseFile("f", failingReader{})
	require.EqualError(t, err, "f: disk on fire")
	assert.NotErrorIs(t, err, ErrInvalid)
	_, err = ReadFile(filepath.Join(t.TempDir(), "missing.strategy"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// Validate and Compile name the line of a strategy that came from a file,
// for what only the real image can tell.
func TestValidateNamesTheLine(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{Functions: 2})
	require.NoError(t, err)
	f := parseString(t, "v.strategy", base)
	s := f.Strategy

	s.Forms[2].Pieces[0].Insn = "b nowhere"
	err = s.Validate(img)
	require.EqualError(t, err, `v.strategy:6: form jump, offset 0: "b nowhere": unknown symbol "nowhere"`)
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = Compile(s, img, 2)
	require.EqualError(t, err, `v.strategy:6: form jump, offset 0: "b nowhere": unknown symbol "nowhere"`)

	s = parseString(t, "v.strategy", base).Strategy
	s.Disable[2].Writes[0].Bytes = [2]int{2, 9}
	require.EqualError(t, s.Validate(img), `v.strategy:14: disable step 3: form nops: byte range [2:9] is outside the 4-byte instruction at offset 0`)

	// Built in Go, the same mistakes have no line.
	s = withoutPos(s)
	require.EqualError(t, s.Validate(img), `invalid strategy: disable step 3: form nops: byte range [2:9] is outside the 4-byte instruction at offset 0`)
}

func TestValidateGoErrors(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		modify func(s *Strategy)
		want   string
	}{
		{"duplicate form", func(s *Strategy) { s.Forms = append(s.Forms, s.Forms[0]) }, "form enabled is defined twice"},
		{"empty form", func(s *Strategy) { s.Forms[1].Pieces = nil }, "form nops has no instructions"},
		{"two pieces at one offset", func(s *Strategy) {
			s.Forms[1].Pieces = []Piece{{0, "mov r0, r0"}, {0, "nop"}}
		}, "form nops: two instructions at offset 0"},
		{"unknown state", func(s *Strategy) { s.Enabled = "on" }, `the enabled state names unknown form "on"`},
		{"bytewise stop_machine", func(s *Strategy) { s.Enable[0].Bytewise = true }, "enable step 1: only write can be bytewise, not stop_machine"},
		{"unknown kind", func(s *Strategy) { s.Disable[1].Kind = 99 }, "disable step 2: unknown operation StepKind(99)"},
		{"wait with writes", func(s *Strategy) { s.Disable[1].Writes = []Ref{{Form: "nops"}} }, "disable step 2: synchronize_rcu_tasks writes nothing"},
		{"offset twice", func(s *Strategy) { s.Boot[0].Offs = []int{0, 0} }, "boot: form nops: offset 0 is selected twice"},
		{"empty byte range", func(s *Strategy) { s.Boot[0].Bytes = [2]int{2, 2} }, "boot: form nops: empty byte range [2:2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := Lookup(kernel.ARM, "two-step-rcu-tasks")
			tc.modify(s)
			err := s.Validate(img)
			require.EqualError(t, err, "invalid strategy: "+tc.want)
			assert.ErrorIs(t, err, ErrInvalid)
		})
	}
}

// x86 pieces have lengths of their own: overlaps and byte ranges are
// checked against the encodings (on a hand-made image, until kernel builds
// x86 text).
func TestValidateX86Lengths(t *testing.T) {
	img := &kernel.Image{Arch: kernel.X86, Align: 1, Sites: []kernel.Site{{Func: "f", Addr: 0x1000, Len: 5, Call: 0x1000}},
		Symbols: []kernel.Symbol{{Name: "ftrace_caller", Addr: 0x2000, Size: 16}}}
	const text = `strategy poke
arch x86
state enabled=call disabled=nop
form call 0: call ftrace_caller
form nop 0: nop5
form int3 0: int3
boot nop
enable bp_on call
enable write int3
enable sync_core
enable write call@0[1:5]
enable sync_core
enable write call@0[0:1]
enable sync_core
enable bp_off
disable write nop bytewise
`
	f := parseString(t, "p.strategy", text)
	require.NoError(t, f.Strategy.Validate(img))
	prog, err := Compile(f.Strategy, img, 1)
	require.NoError(t, err)
	require.Len(t, prog.Ops, 8)
	assert.Equal(t, []byte{0xcc}, prog.Ops[1].Stores[0].Bytes)
	assert.Equal(t, sched.Store{Addr: 0x1001, Bytes: []byte{0xfb, 0x0f, 0, 0}, Site: 0, Off: 1, Form: "call"}, prog.Ops[3].Stores[0])

	// ParseFile validates on the default x86 image once kernel builds one;
	// either way the error is the same and names the line.
	check := func(text string) error {
		f, err := ParseFile("p.strategy", strings.NewReader(text))
		if err != nil {
			return err
		}
		return f.Strategy.Validate(img)
	}
	require.NoError(t, check(strings.Replace(text, "form int3 0: int3", "form int3 0: int3 | 1: 90", 1)))
	require.EqualError(t, check(strings.Replace(text, "form int3 0: int3", "form int3 0: 90 90 | 1: 90", 1)),
		"p.strategy:6: form int3: the instructions at offsets 0 and 1 overlap")
	require.EqualError(t, check(strings.Replace(text, "call@0[1:5]", "call@0[1:6]", 1)),
		"p.strategy:11: enable step 4: form call: byte range [1:6] is outside the 5-byte instruction at offset 0")
	require.EqualError(t, check(strings.Replace(text, "form nop 0: nop5", "form nop 1: nop5", 1)),
		`p.strategy:5: form nop: "nop5" at offset 1 (5 bytes) is outside the 5-byte site`)
}

// FuzzParseFile: no input makes ParseFile panic; every error is a one-line
// *FileError at a line of the input; every accepted file formats to text
// that parses back to the same strategy and config.
func FuzzParseFile(f *testing.F) {
	paths, err := filepath.Glob("../examples/strategies/*.strategy")
	require.NoError(f, err)
	require.NotEmpty(f, paths)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(string(b))
	}
	for _, s := range Builtins() {
		f.Add(Format(s))
	}
	f.Add(base)
	f.Add(base + "config preempt=none cpus=2 tasks=3 timeout=1s strict=false\n")
	// The tracer section (filetracer.go).
	tracers, err := filepath.Glob("../examples/tracers/*.strategy")
	require.NoError(f, err)
	for _, p := range tracers {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(string(b))
	}
	f.Add(base + "tracer recursion-bits\ntraced none\nconfig irq-bound=3 lossless=false nmi=true\n")
	f.Add(base + "tracer mine # written\ncallback irq_save\ncallback call f0\ncallback irq_restore\ntraced preempt_enable\n")
	f.Add(edit(10, "enable write enabled@0,4[1:3] bytewise"))
	f.Add(edit(6, "form jump 0x0: b .+8 # c"))
	f.Add("strategy x\narch x86\nform a 0: nop5\nboot a@0[1:5]\nenable bp_on a\nenable sync_core\nenable bp_off\ndisable write a bytewise\n")
	f.Fuzz(func(t *testing.T, text string) {
		lines := strings.Count(text, "\n") + 1
		file, err := ParseFile("fz", strings.NewReader(text))
		if err != nil {
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			require.ErrorIs(t, err, ErrInvalid)
			require.GreaterOrEqual(t, fe.Line, 1)
			require.LessOrEqual(t, fe.Line, lines+1)
			require.NotContains(t, err.Error(), "\n")
			return
		}
		out := FormatFile(file)
		again, err := ParseFile("fz2", strings.NewReader(out))
		require.NoError(t, err, "reparsing:\n%s", out)
		require.Equal(t, withoutPos(file.Strategy), withoutPos(again.Strategy))
		require.Equal(t, file.Tracer, again.Tracer)
		c1, c2 := file.Config, again.Config
		c1.Settings, c2.Settings = nil, nil
		require.Equal(t, c1, c2)
		require.Equal(t, out, FormatFile(again))
	})
}
