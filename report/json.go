package report

import (
	"encoding/json"
	"io"

	"github.com/mcountsim/mcountsim/explore"
)

// Config is the scenario as JSON reports it.
type Config struct {
	Arch       string `json:"arch"`
	Strategy   string `json:"strategy"`
	Preempt    string `json:"preempt"`
	CPUs       int    `json:"cpus"`
	Tasks      int    `json:"tasks"`
	Iterations int    `json:"iterations"`
	Toggles    int    `json:"toggles"`
	Functions  int    `json:"functions"`
	Bound      int    `json:"bound"`
	Strict     bool   `json:"strict"`
}

// Document is the JSON form of a result: one object.
//
// A replay ("mode": "replay") is one run, not a search: its "verdict" is
// "UNSAFE" when the run reaches a hazard (it is a counterexample) and
// NoHazardInRun otherwise, never "SAFE"; "outcome" says it in words.
type Document struct {
	Config Config `json:"config"`
	*explore.Result
	// Verdict shadows the result's verdict for a replay (see above).
	Verdict string `json:"verdict"`
	// Outcome is the replay's outcome in words (replays only).
	Outcome string `json:"outcome,omitempty"`
	// ReplayCommand is the command that replays the counterexample (or
	// the replayed run), and ReplayNote what it needs first, if anything
	// (see ReplayCommand and ReplayNote).
	ReplayCommand string `json:"replay_command,omitempty"`
	ReplayNote    string `json:"replay_note,omitempty"`
}

// NoHazardInRun is the "verdict" of a replay whose run reaches no hazard.
const NoHazardInRun = "NO-HAZARD-IN-RUN"

// ConfigOf describes sc and opts.
func ConfigOf(sc explore.Scenario, opts explore.Options) Config {
	sc = sc.WithDefaults()
	name := ""
	if sc.Strategy != nil {
		name = sc.Strategy.Name
	}
	return Config{Arch: sc.Arch.String(), Strategy: name, Preempt: sc.Preempt.String(), CPUs: sc.CPUs, Tasks: sc.Tasks,
		Iterations: sc.Iterations, Toggles: sc.Toggles, Functions: sc.Functions, Bound: opts.EffectiveBound(), Strict: sc.Strict}
}

// JSON writes res (checked or replayed under sc and opts) as one indented JSON object.
func JSON(w io.Writer, sc explore.Scenario, opts explore.Options, res *explore.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	doc := Document{Config: ConfigOf(sc, opts), Result: res, Verdict: res.Verdict.String()}
	if res.Mode == "replay" {
		doc.Outcome = ReplayVerdict(res)
		if res.Hazard == nil {
			doc.Verdict = NoHazardInRun
		}
	}
	if res.Verdict == explore.Unsafe || res.Mode == "replay" {
		doc.ReplayCommand = ReplayCommand(sc, opts, res.Schedule)
		doc.ReplayNote = ReplayNote(sc, res.Schedule)
	}
	return enc.Encode(doc)
}
