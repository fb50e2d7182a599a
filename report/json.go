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
type Document struct {
	Config Config `json:"config"`
	*explore.Result
}

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
	return enc.Encode(Document{Config: ConfigOf(sc, opts), Result: res})
}
