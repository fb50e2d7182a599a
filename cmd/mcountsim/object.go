package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcountsim/mcountsim/kernel"
)

// objectImage links the object at path for --function and --args and
// returns its arch and a builder for the scenario (the image is linked
// once and shared: machines only read it). Errors are usage errors (exit
// 2): an unreadable or corrupt object, a missing function, an unsupported
// relocation or call site, named.
func objectImage(path, function, args string, iterations int) (kernel.Arch, func() (*kernel.Image, error), error) {
	if function == "" {
		return 0, nil, errors.New("--object needs --function NAME (the function the workload calls)")
	}
	vals, err := parseObjectArgs(args)
	if err != nil {
		return 0, nil, err
	}
	o, err := loadObject(path, kernel.ObjectConfig{Function: function, Args: vals, Iterations: iterations})
	if err != nil {
		return 0, nil, err
	}
	img := o.Image
	return img.Arch, func() (*kernel.Image, error) { return img, nil }, nil
}

// checkObjectFlags reports flags that make no sense with --object: the
// built-in text's shape, and an --arch other than the object's.
func checkObjectFlags(arch kernel.Arch, set map[string]bool, archFlag string) error {
	for _, name := range []string{"functions", "prologue"} {
		if set[name] {
			return fmt.Errorf("--%s describes the built-in text; it cannot be used with --object", name)
		}
	}
	if set["arch"] {
		a, err := kernel.ParseArch(archFlag)
		if err != nil {
			return fmt.Errorf("--arch: %v", err)
		}
		if a != arch {
			return fmt.Errorf("--arch is %v but the object is %v", a, arch)
		}
	}
	return nil
}

// parseObjectArgs parses --args: integers separated by commas, in decimal
// or with a 0x, 0o or 0b prefix, possibly negative ("1,-2,0x10").
func parseObjectArgs(s string) ([]int64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []int64
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		v, err := strconv.ParseInt(f, 0, 64)
		if err != nil {
			// Accept unsigned 64-bit values too (e.g. 0xffffffffffffffff).
			u, uerr := strconv.ParseUint(f, 0, 64)
			if uerr != nil {
				return nil, fmt.Errorf("--args: argument %d (%q) is not an integer", i+1, f)
			}
			v = int64(u)
		}
		out = append(out, v)
	}
	return out, nil
}
