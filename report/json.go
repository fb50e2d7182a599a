package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/params"
	"github.com/mcountsim/mcountsim/patch"
)

// Config is the scenario as JSON reports it.
type Config struct {
	Arch     string `json:"arch"`
	Strategy string `json:"strategy"`
	explore.Size
	Bound  int  `json:"bound"`
	Strict bool `json:"strict"`
	// StackWords is each task's stack, in 4-byte words.
	StackWords int `json:"stack_words"`
	// StrategySHA256 is the SHA-256 of the strategy in the file format
	// (patch.Format): two strategies of one name with different forms or
	// steps differ here, and merge refuses to combine them.
	StrategySHA256 string `json:"strategy_sha256"`
	// Prologue is the x86 call-site flavour asked for ("" for the default).
	Prologue string `json:"prologue,omitempty"`
	// Object, Function and Args name the --object workload, and
	// ObjectSHA256 is the SHA-256 of its linked text and data (what the
	// machine runs), so that a rebuilt object is a different scenario.
	Object       string `json:"object,omitempty"`
	Function     string `json:"function,omitempty"`
	Args         string `json:"args,omitempty"`
	ObjectSHA256 string `json:"object_sha256,omitempty"`
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
	c := Config{Arch: sc.Arch.String(), Strategy: name, Size: sc.Size(), Bound: opts.EffectiveBound(), Strict: sc.Strict,
		Prologue: sc.Prologue, Object: sc.Object, Function: sc.Function, StackWords: sc.StackWords}
	if c.StackWords == 0 {
		c.StackWords = params.StackWords.Default // sched.Config's
	}
	if sc.Strategy != nil {
		c.StrategySHA256 = digest([]byte(patch.Format(sc.Strategy)))
	}
	if sc.ObjectFile != "" || sc.Function != "" {
		c.Args = fmt.Sprint(sc.Args)
	}
	if sc.Image != nil {
		if img, err := sc.Image(); err == nil {
			h := sha256.New()
			fmt.Fprintf(h, "%#x %#x %d\n", img.Base, img.Entry, len(img.Text))
			h.Write(img.Text)
			for _, d := range img.Data {
				fmt.Fprintf(h, "%+v\n", d)
			}
			c.ObjectSHA256 = hex.EncodeToString(h.Sum(nil))
		}
	}
	return c
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
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
