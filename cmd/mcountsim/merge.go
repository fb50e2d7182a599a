package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/report"
)

const mergeUsage = `Usage: mcountsim merge [--json] FILE...

Combines the --json results of 'mcountsim check --shard i/n' (one file per
shard, "-" for standard input) into one verdict:
  UNSAFE      if any shard found a hazard (the counterexample with the fewest
              preemptions, then steps, is reported);
  SAFE        only if all n shards are present and every one is SAFE;
  INCOMPLETE  otherwise (a shard ran out of a budget, or shards are missing).
The counts are the shards' sums.

Each FILE must be a regular file (or "-") of at most 64 MiB holding exactly
one check --json document, consistent in itself (a verdict that agrees with
its hazard and schedule, non-negative counts), and the files must be shards
of one split of one scenario, each shard at most once; anything else is an
input error naming the file.

Example:
  for i in 0 1 2; do
    mcountsim check --strategy jmp-over --tasks 3 --shard $i/3 --json > shard-$i.json
  done
  mcountsim merge shard-*.json

Exit status: 0 SAFE, 1 UNSAFE, 2 usage or input error, 3 INCOMPLETE.
`

// resultDoc is what a check --json document and a merged one share.
type resultDoc struct {
	Config      report.Config   `json:"config"`
	Mode        string          `json:"mode"`
	Verdict     explore.Verdict `json:"verdict"`
	Space       explore.Space   `json:"space"`
	States      int             `json:"states"`
	Transitions int             `json:"transitions"`
	// OlderViews: the states pruned by older views (explore.Result).
	OlderViews  int             `json:"older_views,omitempty"`
	Runs        int             `json:"runs"`
	Subtrees    int             `json:"subtrees"`
	Hazard      json.RawMessage `json:"hazard,omitempty"`
	Hazards     json.RawMessage `json:"hazards,omitempty"`
	Schedule    string          `json:"schedule"`
	Preemptions int             `json:"preemptions"`
	Steps       int             `json:"steps"`
	Reason      string          `json:"reason,omitempty"`
	Elapsed     int64           `json:"elapsed_ns"` // merged: the sum over the shards
	// Throughput is a shard's rate (check --json); a merge drops it.
	Throughput json.RawMessage `json:"throughput,omitempty"`
	Run        json.RawMessage `json:"run,omitempty"`
	// An object's traced calls' return values beside the reference's
	// (explore.Result): a merge keeps the counterexample's, else the first
	// shard's (the default run, the same in every shard).
	Returns     json.RawMessage `json:"returns,omitempty"`
	ReturnsNote string          `json:"returns_note,omitempty"`
	Stubs       []string        `json:"stubs,omitempty"`
	// The replay command of the counterexample (report.Document).
	ReplayCommand string `json:"replay_command,omitempty"`
	ReplayNote    string `json:"replay_note,omitempty"`
}

// shardDoc is one check --json document, as merge reads it.
type shardDoc struct {
	resultDoc
	EndStates []string `json:"end_states,omitempty"`

	file  string
	shard explore.Shard
}

// MergeShard is one input of a merge, as the merged document lists it.
type MergeShard struct {
	File     string          `json:"file"`
	Shard    string          `json:"shard"`
	Verdict  explore.Verdict `json:"verdict"`
	States   int             `json:"states"`
	Runs     int             `json:"runs"`
	Subtrees int             `json:"subtrees"`
	Reason   string          `json:"reason,omitempty"`
}

// mergedDoc is the result of a merge.
type mergedDoc struct {
	resultDoc
	Shards []MergeShard `json:"shards"`
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mcountsim merge: %s\n", fmt.Sprintf(format, a...))
		return 2
	}
	fs := newFlagSet("merge")
	asJSON := fs.Bool("json", false, "write the merged result as one JSON object")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, mergeUsage)
			return 0
		}
		return fail("%v", err)
	}
	if fs.NArg() == 0 {
		return fail("no input files (see mcountsim merge --help)")
	}
	var docs []*shardDoc
	var best *shardDoc // the best counterexample so far: only it keeps its trace
	for _, name := range fs.Args() {
		d, err := readShard(name)
		if err != nil {
			return fail("%v", err)
		}
		if d.Verdict == explore.Unsafe {
			loser := d
			if best == nil || better(d, best) {
				loser, best = best, d
			}
			if loser != nil {
				loser.Run, loser.Hazards = nil, nil
			}
		}
		docs = append(docs, d)
	}
	m, err := merge(docs)
	if err != nil {
		return fail("%v", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(m); err != nil {
			return fail("writing the result: %v", err)
		}
	} else {
		writeMerged(stdout, m)
	}
	return m.Verdict.ExitCode()
}

// maxShards bounds the shard count a document may claim ("i/n"), before
// anything is sized by it.
const maxShards = 1 << 16

// readShard reads one check --json document (at most maxResultSize bytes;
// "-" is standard input) and validates it.
func readShard(name string) (*shardDoc, error) {
	data, err := readInput(name, "", maxResultSize)
	if err != nil {
		return nil, err
	}
	return parseShard(name, data)
}

// parseShard decodes one check --json document and checks it: exactly one
// JSON object, no trailing data, no unknown or repeated keys, and a result
// that is internally consistent (see validate). Errors read "FILE: reason".
func parseShard(name string, data []byte) (*shardDoc, error) {
	fail := func(format string, a ...any) (*shardDoc, error) {
		return nil, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, a...))
	}
	if err := checkJSONKeys(data); err != nil {
		return fail("not a check --json result: %v", err)
	}
	d := &shardDoc{file: name}
	dec := json.NewDecoder(bytes.NewReader(data))
	// Unknown keys are refused: a field merge does not know could be part
	// of the scenario that it would then fail to compare across shards.
	dec.DisallowUnknownFields()
	if err := dec.Decode(d); err != nil {
		return fail("not a check --json result: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("trailing data after the JSON document (at byte %d)", dec.InputOffset())
	}
	if err := d.validate(); err != nil {
		return fail("%v", err)
	}
	return d, nil
}

// checkJSONKeys walks data and refuses what encoding/json would silently
// accept: a key repeated in one object (json keeps the last, and matches
// keys regardless of case) and nesting deeper than 64.
func checkJSONKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack []map[string]bool // nil for an array
	wantKey := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if len(stack) >= 64 {
					return errors.New("JSON nested deeper than 64 levels")
				}
				var keys map[string]bool
				if d == '{' {
					keys = map[string]bool{}
				}
				stack = append(stack, keys)
				wantKey = d == '{'
			default:
				stack = stack[:len(stack)-1]
				wantKey = len(stack) > 0 && stack[len(stack)-1] != nil
			}
			if len(stack) == 0 {
				return nil // the first value is complete; parseShard checks the rest
			}
			continue
		}
		if wantKey {
			k := strings.ToLower(tok.(string))
			keys := stack[len(stack)-1]
			if keys[k] {
				return fmt.Errorf("key %q repeated in one object", tok)
			}
			keys[k] = true
			wantKey = false
			continue
		}
		wantKey = len(stack) > 0 && stack[len(stack)-1] != nil
	}
}

// parseShardField parses the "i/n" of space.shard: decimal digits only,
// 1 <= n <= maxShards and 0 <= i < n.
func parseShardField(text string) (explore.Shard, error) {
	bad := fmt.Errorf("bad shard %q (want i/n with 0 <= i < n <= %d)", text, maxShards)
	a, b, ok := strings.Cut(text, "/")
	num := func(s string) (int, bool) {
		if s == "" || len(s) > 6 {
			return 0, false
		}
		v := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	i, ok1 := num(a)
	n, ok2 := num(b)
	if !ok || !ok1 || !ok2 || n < 1 || n > maxShards || i >= n {
		return explore.Shard{}, bad
	}
	return explore.Shard{Index: i, Count: n}, nil
}

// validate checks that a document is one result that check --json could
// have written: its verdict agrees with its hazard, schedule and reason,
// its counts are non-negative, its configuration and space agree, and a
// shard's end states match its run count.
func (d *shardDoc) validate() error {
	if d.Mode != "check" {
		return fmt.Errorf("not a check --json result (mode %q)", d.Mode)
	}
	switch d.Verdict {
	case explore.Safe, explore.Unsafe, explore.Incomplete:
	default:
		return errors.New("not a check --json result (no verdict)")
	}
	if d.Space.Search != explore.Exhaustive.String() {
		return fmt.Errorf("a %q search; only exhaustive searches have shards", d.Space.Search)
	}
	d.shard = explore.Shard{Index: 0, Count: 1}
	if d.Space.Shard != "" {
		sh, err := parseShardField(d.Space.Shard)
		if err != nil {
			return err
		}
		d.shard = sh
	}
	c, sp := d.Config, d.Space
	for _, v := range []struct {
		name string
		n    int64
	}{
		{"states", int64(d.States)}, {"transitions", int64(d.Transitions)}, {"runs", int64(d.Runs)}, {"older_views", int64(d.OlderViews)},
		{"subtrees", int64(d.Subtrees)}, {"preemptions", int64(d.Preemptions)}, {"steps", int64(d.Steps)},
		{"elapsed_ns", d.Elapsed}, {"space.bound", int64(sp.Bound)}, {"space.cpus", int64(sp.CPUs)},
		{"space.tasks", int64(sp.Tasks)}, {"space.iterations", int64(sp.Iterations)}, {"space.toggles", int64(sp.Toggles)},
		{"space.functions", int64(sp.Functions)}, {"space.bounds_done", int64(sp.BoundsDone)}, {"space.frontier", int64(sp.Frontier)},
	} {
		if v.n < 0 {
			return fmt.Errorf("negative %s (%d)", v.name, v.n)
		}
	}
	if c.Bound != sp.Bound || c.CPUs != sp.CPUs || c.Tasks != sp.Tasks || c.Iterations != sp.Iterations ||
		c.Toggles != sp.Toggles || c.Functions != sp.Functions || c.Preempt != sp.Preempt {
		return errors.New("config and space describe different scenarios")
	}
	// The scenario is more than its name: merge compares these across
	// shards (sameSearch), so a document must carry them.
	if !isSHA256(c.StrategySHA256) {
		return fmt.Errorf("config.strategy_sha256 %.70q is not a SHA-256 (written by an older mcountsim?)", c.StrategySHA256)
	}
	if c.ObjectSHA256 != "" && !isSHA256(c.ObjectSHA256) {
		return fmt.Errorf("config.object_sha256 %.70q is not a SHA-256", c.ObjectSHA256)
	}
	if (c.Object == "") != (c.ObjectSHA256 == "") {
		return errors.New("config.object and config.object_sha256 must come together")
	}
	if sp.BoundsDone > sp.Bound+1 {
		return fmt.Errorf("bounds_done %d is past bound %d", sp.BoundsDone, sp.Bound)
	}
	hazard := len(d.Hazard) > 0 && string(d.Hazard) != "null"
	hazards := len(d.Hazards) > 0 && string(d.Hazards) != "null" && string(d.Hazards) != "[]"
	run := len(d.Run) > 0 && string(d.Run) != "null"
	switch d.Verdict {
	case explore.Unsafe:
		if !hazard {
			return errors.New("UNSAFE without a hazard")
		}
		var h struct {
			Kind string `json:"kind"`
			Step int    `json:"step"`
		}
		if err := json.Unmarshal(d.Hazard, &h); err != nil || h.Kind == "" {
			return errors.New("UNSAFE with a hazard that is not an object with a kind")
		}
		if d.Steps == 0 {
			return errors.New("UNSAFE without a schedule (steps 0)")
		}
		if h.Step < 0 || h.Step > d.Steps {
			return fmt.Errorf("hazard at step %d of a %d-step run", h.Step, d.Steps)
		}
		if _, err := explore.ParseSchedule(d.Schedule); err != nil {
			return fmt.Errorf("UNSAFE with a bad schedule: %v", err)
		}
		if d.Preemptions > sp.Bound {
			return fmt.Errorf("UNSAFE with %d preemptions, more than bound %d", d.Preemptions, sp.Bound)
		}
		if sp.Exhaustive {
			return errors.New("UNSAFE and exhaustive")
		}
	default:
		switch {
		case hazard || hazards || run:
			return fmt.Errorf("%s with a hazard", d.Verdict)
		case d.Schedule != "" || d.Steps != 0 || d.Preemptions != 0:
			return fmt.Errorf("%s with a schedule", d.Verdict)
		case d.Verdict == explore.Incomplete && d.Reason == "":
			return errors.New("INCOMPLETE without a reason")
		case d.Verdict == explore.Incomplete && sp.Exhaustive:
			return errors.New("INCOMPLETE and exhaustive")
		case d.Verdict == explore.Safe && d.Reason != "":
			return errors.New("SAFE with a reason for stopping")
		case d.Verdict == explore.Safe && sp.BoundsDone != sp.Bound+1:
			return fmt.Errorf("SAFE within bound %d with bounds_done %d", sp.Bound, sp.BoundsDone)
		case d.Verdict == explore.Safe && sp.Exhaustive != d.shard.Whole():
			return fmt.Errorf("SAFE with exhaustive %v for shard %q", sp.Exhaustive, sp.Shard)
		}
	}
	if d.shard.Whole() {
		if len(d.EndStates) > 0 {
			return errors.New("end_states in an unsharded result")
		}
		return nil
	}
	if len(d.EndStates) != d.Runs {
		return fmt.Errorf("%d end_states for %d runs", len(d.EndStates), d.Runs)
	}
	for i, h := range d.EndStates {
		if len(h) != 32 || strings.Trim(h, "0123456789abcdef") != "" {
			return fmt.Errorf("end state %d (%.40q) is not a 128-bit hex hash", i, h)
		}
		if i > 0 && h <= d.EndStates[i-1] {
			return fmt.Errorf("end states not sorted and distinct at %d", i)
		}
	}
	return nil
}

func isSHA256(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// better reports whether UNSAFE document a is the better counterexample:
// fewer preemptions, then fewer steps, then the smaller schedule, then the
// lower shard.
func better(a, b *shardDoc) bool {
	if a.Preemptions != b.Preemptions {
		return a.Preemptions < b.Preemptions
	}
	if a.Steps != b.Steps {
		return a.Steps < b.Steps
	}
	if a.Schedule != b.Schedule {
		return a.Schedule < b.Schedule
	}
	return a.shard.Index < b.shard.Index
}

// sameSearch reports whether two documents are shards of one search.
func sameSearch(a, b *shardDoc) bool {
	x, y := a.Space, b.Space
	return a.Config == b.Config && x.Scenario == y.Scenario && x.Bound == y.Bound && x.Preempt == y.Preempt &&
		x.CPUs == y.CPUs && x.Tasks == y.Tasks && x.Iterations == y.Iterations && x.Toggles == y.Toggles &&
		x.Functions == y.Functions && x.Reduction == y.Reduction && x.Search == y.Search
}

// difference names what differs between two documents of different
// searches.
func difference(a, b *shardDoc) string {
	x, y := a.Config, b.Config
	for _, f := range []struct {
		name string
		a, b any
	}{
		{"strategy", x.Strategy, y.Strategy}, {"strategy content (strategy_sha256)", x.StrategySHA256, y.StrategySHA256},
		{"arch", x.Arch, y.Arch}, {"prologue", x.Prologue, y.Prologue}, {"object", x.Object, y.Object},
		{"function", x.Function, y.Function}, {"args", x.Args, y.Args}, {"object content (object_sha256)", x.ObjectSHA256, y.ObjectSHA256},
		{"preempt", x.Preempt, y.Preempt}, {"cpus", x.CPUs, y.CPUs}, {"tasks", x.Tasks, y.Tasks},
		{"iterations", x.Iterations, y.Iterations}, {"toggles", x.Toggles, y.Toggles}, {"functions", x.Functions, y.Functions},
		{"bound", x.Bound, y.Bound}, {"strict", x.Strict, y.Strict}, {"stack_words", x.StackWords, y.StackWords},
		{"scenario", a.Space.Scenario, b.Space.Scenario}, {"reduction", a.Space.Reduction, b.Space.Reduction},
	} {
		if f.a != f.b {
			return fmt.Sprintf("%s %v vs %v", f.name, f.a, f.b)
		}
	}
	return "space"
}

// addCount adds n to *sum, refusing an overflow.
func addCount[T int | int64](sum *T, n T, what, file string) error {
	if n > 0 && *sum > T(math.MaxInt64)-n {
		return fmt.Errorf("%s: the %s summed over the shards overflow", file, what)
	}
	*sum += n
	return nil
}

// merge combines shard results of one scenario.
func merge(docs []*shardDoc) (*mergedDoc, error) {
	first := docs[0]
	n := first.shard.Count
	seen := map[int]*shardDoc{}
	m := &mergedDoc{resultDoc: resultDoc{Config: first.Config, Mode: "merge", Space: first.Space, Returns: first.Returns, ReturnsNote: first.ReturnsNote, Stubs: first.Stubs}}
	ends := map[string]bool{}
	m.Space.Shard = ""
	m.Space.Coverage = ""
	m.Space.Exhaustive = false
	for _, d := range docs {
		if !sameSearch(first, d) {
			return nil, fmt.Errorf("%s and %s are results of different scenarios or searches (%s)", first.file, d.file, difference(first, d))
		}
		if d.shard.Count != n {
			return nil, fmt.Errorf("%s is shard %v but %s is shard %v: shards of different splits", d.file, d.shard, first.file, first.shard)
		}
		if prev := seen[d.shard.Index]; prev != nil {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d", prev.file, d.file, d.shard.Index, n)
		}
		seen[d.shard.Index] = d
		for _, err := range []error{
			addCount(&m.States, d.States, "states", d.file),
			addCount(&m.Transitions, d.Transitions, "transitions", d.file),
			addCount(&m.OlderViews, d.OlderViews, "older_views", d.file),
			addCount(&m.Subtrees, d.Subtrees, "subtrees", d.file),
			addCount(&m.Elapsed, d.Elapsed, "elapsed_ns", d.file),
		} {
			if err != nil {
				return nil, err
			}
		}
		for _, h := range d.EndStates {
			ends[h] = true
		}
		if d.shard.Count == 1 {
			m.Runs = d.Runs // an unsharded document lists no end states
		}
		if d.Space.BoundsDone < m.Space.BoundsDone {
			m.Space.BoundsDone = d.Space.BoundsDone
		}
	}
	if n > 1 {
		// The shards' runs overlap where their subtrees meet; their end
		// states unite to exactly those of the unsharded search.
		m.Runs = len(ends)
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].shard.Index < docs[j].shard.Index })
	var unsafe, incomplete []*shardDoc
	for _, d := range docs {
		m.Shards = append(m.Shards, MergeShard{File: d.file, Shard: fmt.Sprintf("%d/%d", d.shard.Index, n), Verdict: d.Verdict,
			States: d.States, Runs: d.Runs, Subtrees: d.Subtrees, Reason: d.Reason})
		switch d.Verdict {
		case explore.Unsafe:
			unsafe = append(unsafe, d)
		case explore.Incomplete:
			incomplete = append(incomplete, d)
		}
	}
	var missing []string
	nmissing := n - len(seen)
	for i := 0; i < n && len(missing) < 8; i++ {
		if seen[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	if nmissing > len(missing) {
		missing = append(missing, fmt.Sprintf("and %d more", nmissing-len(missing)))
	}
	base := fmt.Sprintf("preemption bound %d, preempt %s, %d cpus, %d tasks, %d iterations, %d toggles",
		m.Space.Bound, m.Space.Preempt, m.Space.CPUs, m.Space.Tasks, m.Space.Iterations, m.Space.Toggles)
	switch {
	case len(unsafe) > 0:
		sort.Slice(unsafe, func(i, j int) bool { return better(unsafe[i], unsafe[j]) })
		u := unsafe[0]
		m.Verdict = explore.Unsafe
		m.Hazard, m.Hazards, m.Schedule, m.Preemptions, m.Steps, m.Run = u.Hazard, u.Hazards, u.Schedule, u.Preemptions, u.Steps, u.Run
		m.ReplayCommand, m.ReplayNote = u.ReplayCommand, u.ReplayNote
		m.Returns, m.ReturnsNote = u.Returns, u.ReturnsNote
		m.Space.Description = fmt.Sprintf("a hazard within %s, found with %d preemption(s) by shard %v", base, u.Preemptions, u.shard)
	case len(incomplete) > 0 || len(missing) > 0:
		m.Verdict = explore.Incomplete
		var why []string
		if len(missing) > 0 {
			why = append(why, "missing shard(s) "+strings.Join(missing, ", "))
		}
		for _, d := range incomplete {
			why = append(why, fmt.Sprintf("shard %v: %s", d.shard, d.Reason))
		}
		m.Reason = strings.Join(why, "; ")
		m.Space.Description = "not exhausted: " + base + "; " + m.Reason
	default:
		m.Verdict = explore.Safe
		m.Space.Exhaustive = true
		m.Space.Description = fmt.Sprintf("every schedule within %s (exhaustive, %d shard(s))", base, n)
	}
	return m, nil
}

func writeMerged(w io.Writer, m *mergedDoc) {
	fmt.Fprintf(w, "scenario: %s\n", m.Space.Scenario)
	fmt.Fprintf(w, "verdict:  %s: %s\n", m.Verdict, m.Space.Description)
	fmt.Fprintf(w, "searched: %d frontier subtrees; %d branching states, %d steps, %d complete runs summed over %d shard(s)\n",
		m.Subtrees, m.States, m.Transitions, m.Runs, len(m.Shards))
	for _, s := range m.Shards {
		line := fmt.Sprintf("  shard %-6s %-10s %d subtrees, %d states, %d runs  (%s)", s.Shard, s.Verdict, s.Subtrees, s.States, s.Runs, s.File)
		if s.Reason != "" {
			line += ": " + s.Reason
		}
		fmt.Fprintln(w, line)
	}
	if m.Verdict == explore.Unsafe {
		var h struct {
			Kind   string `json:"kind"`
			Step   int    `json:"step"`
			Where  string `json:"where"`
			Detail string `json:"detail"`
		}
		if json.Unmarshal(m.Hazard, &h) == nil {
			fmt.Fprintf(w, "hazard:   %s at step %d <%s>: %s\n", h.Kind, h.Step, h.Where, h.Detail)
		}
		fmt.Fprintf(w, "schedule: %q\n", m.Schedule)
		if m.ReplayCommand != "" {
			fmt.Fprintf(w, "replay:   %s\n", m.ReplayCommand)
		}
		if m.ReplayNote != "" {
			fmt.Fprintf(w, "          (%s)\n", m.ReplayNote)
		}
	}
	if m.Reason != "" {
		fmt.Fprintf(w, "stopped:  %s\n", m.Reason)
	}
}
