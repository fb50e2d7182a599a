package patch

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcountsim/mcountsim/params"
	"github.com/mcountsim/mcountsim/sched"
)

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
	StackWords *int
	Timeout    *time.Duration
	Prologue   *string // x86 only: "fentry" or "mcount"
	Strict     *bool
	// With a tracer section (filetracer.go).
	IRQBound *int
	Lossless *bool
	NMI      *bool

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
	{"stack-words", intKey(func(c *FileConfig) **int { return &c.StackWords }, params.StackWords.Min, params.StackWords.Max), getInt(func(c *FileConfig) *int { return c.StackWords })},
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
	{"strict", boolKey(func(c *FileConfig) **bool { return &c.Strict }), func(c *FileConfig) (string, bool) { return fmtPtr(c.Strict) }},
	{"irq-bound", intKey(func(c *FileConfig) **int { return &c.IRQBound }, 0, 255), getInt(func(c *FileConfig) *int { return c.IRQBound })},
	{"lossless", boolKey(func(c *FileConfig) **bool { return &c.Lossless }), func(c *FileConfig) (string, bool) { return fmtPtr(c.Lossless) }},
	{"nmi", boolKey(func(c *FileConfig) **bool { return &c.NMI }), func(c *FileConfig) (string, bool) { return fmtPtr(c.NMI) }},
}

func boolKey(field func(*FileConfig) **bool) func(*FileConfig, string) error {
	return func(c *FileConfig, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("want true or false, got %q", v)
		}
		*field(c) = &b
		return nil
	}
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
