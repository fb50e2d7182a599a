package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
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
	Runs        int             `json:"runs"`
	Subtrees    int             `json:"subtrees"`
	Hazard      json.RawMessage `json:"hazard,omitempty"`
	Hazards     json.RawMessage `json:"hazards,omitempty"`
	Schedule    string          `json:"schedule"`
	Preemptions int             `json:"preemptions"`
	Steps       int             `json:"steps"`
	Reason      string          `json:"reason,omitempty"`
	Elapsed     int64           `json:"elapsed_ns"` // merged: the sum over the shards
	Run         json.RawMessage `json:"run,omitempty"`
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
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
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
	for _, name := range fs.Args() {
		d, err := readShard(name)
		if err != nil {
			return fail("%v", err)
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

func readShard(name string) (*shardDoc, error) {
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	d := &shardDoc{file: name}
	dec := json.NewDecoder(r)
	if err := dec.Decode(d); err != nil {
		return nil, fmt.Errorf("%s: not a check --json result: %v", name, err)
	}
	if d.Mode != "check" || d.Verdict == 0 {
		return nil, fmt.Errorf("%s: not a check --json result (mode %q)", name, d.Mode)
	}
	if d.Space.Search != "" && d.Space.Search != explore.Exhaustive.String() {
		return nil, fmt.Errorf("%s: a %s search; only exhaustive searches have shards", name, d.Space.Search)
	}
	d.shard = explore.Shard{Index: 0, Count: 1}
	if d.Space.Shard != "" {
		sh, err := explore.ParseShard(d.Space.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		d.shard = sh
	}
	return d, nil
}

// merge combines shard results of one scenario.
func merge(docs []*shardDoc) (*mergedDoc, error) {
	first := docs[0]
	n := first.shard.Count
	seen := make([]*shardDoc, n)
	m := &mergedDoc{resultDoc: resultDoc{Config: first.Config, Mode: "merge", Space: first.Space}}
	ends := map[string]bool{}
	m.Space.Shard = ""
	m.Space.Coverage = ""
	m.Space.Exhaustive = false
	for _, d := range docs {
		if d.Config != first.Config || d.Space.Reduction != first.Space.Reduction {
			return nil, fmt.Errorf("%s and %s are results of different scenarios or searches", first.file, d.file)
		}
		if d.shard.Count != n {
			return nil, fmt.Errorf("%s is shard %v but %s is shard %v: shards of different splits", d.file, d.shard, first.file, first.shard)
		}
		if prev := seen[d.shard.Index]; prev != nil {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d", prev.file, d.file, d.shard.Index, n)
		}
		seen[d.shard.Index] = d
		m.States += d.States
		m.Transitions += d.Transitions
		for _, h := range d.EndStates {
			ends[h] = true
		}
		if d.shard.Count == 1 {
			m.Runs = d.Runs // an unsharded document lists no end states
		}
		m.Subtrees += d.Subtrees
		m.Elapsed += d.Elapsed
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
	for i, d := range seen {
		if d == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
		}
	}
	base := fmt.Sprintf("preemption bound %d, preempt %s, %d cpus, %d tasks, %d iterations, %d toggles",
		m.Space.Bound, m.Space.Preempt, m.Space.CPUs, m.Space.Tasks, m.Space.Iterations, m.Space.Toggles)
	switch {
	case len(unsafe) > 0:
		// The fewest preemptions, then the fewest steps, then the schedule.
		sort.SliceStable(unsafe, func(i, j int) bool {
			a, b := unsafe[i], unsafe[j]
			if a.Preemptions != b.Preemptions {
				return a.Preemptions < b.Preemptions
			}
			if a.Steps != b.Steps {
				return a.Steps < b.Steps
			}
			return a.Schedule < b.Schedule
		})
		u := unsafe[0]
		m.Verdict = explore.Unsafe
		m.Hazard, m.Hazards, m.Schedule, m.Preemptions, m.Steps, m.Run = u.Hazard, u.Hazards, u.Schedule, u.Preemptions, u.Steps, u.Run
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
		fmt.Fprintf(w, "schedule: %q (replay it with mcountsim replay --schedule ...)\n", m.Schedule)
	}
	if m.Reason != "" {
		fmt.Fprintf(w, "stopped:  %s\n", m.Reason)
	}
}
