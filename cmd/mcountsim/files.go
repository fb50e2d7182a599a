package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/mcountsim/mcountsim/report"
)

// readStrategyFile reads a scenario file (a regular file of at most
// maxScenarioSize bytes). Its config lines set every flag of fs that the
// command line did not set (explicit flags win); set holds the flags given
// on the command line.
func readStrategyFile(path string, fs *flag.FlagSet, set map[string]bool) (*patch.File, error) {
	data, err := readInput(path, "--strategy-file", maxScenarioSize)
	if err != nil {
		return nil, err
	}
	file, err := patch.ParseFile(path, bytes.NewReader(data))
	if err != nil {
		return nil, err // a *patch.FileError names the file and line
	}
	for _, s := range file.Config.Settings {
		if set[s.Key] {
			continue
		}
		if fs.Lookup(s.Key) == nil {
			return nil, fmt.Errorf("%s: config key %q is not a flag of this command", s.Pos, s.Key)
		}
		if err := fs.Set(s.Key, s.Value); err != nil {
			return nil, fmt.Errorf("%s: config %s=%s: %v", s.Pos, s.Key, s.Value, err)
		}
	}
	return file, nil
}

// writeHTML writes the HTML timeline of res to f, created before the
// search so that an unwritable path fails at once.
func writeHTML(f *os.File, sc explore.Scenario, opts explore.Options, res *explore.Result) error {
	res, err := explore.WithRun(sc, opts, res)
	if err != nil {
		return err
	}
	if err := report.HTML(f, sc, opts, res); err != nil {
		return fmt.Errorf("%s: %v", f.Name(), err)
	}
	return f.Close()
}
