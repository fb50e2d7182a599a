package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mcountsim/mcountsim/objfile"
)

const sitesUsage = `usage: mcountsim sites [--json] FILE...

List every mcount / fentry / patchable-function-entry site of ELF objects
and executables (ARM A32/Thumb-2, x86-64, arm64, riscv64), found through
call relocations against the profiling hook (reloc), __mcount_loc entries
(mloc) and __patchable_function_entries entries (pfe).

Each line shows: file, section, function+offset, site offset in the
section, methods, relocation type, the site's bytes (hex, file order) and
their disassembly; a last line counts sites and functions. On ARM,
"(after push {lr})" marks a site preceded by the __gnu_mcount_nc push.

With --json, write JSON Lines instead, one object per site, with the keys
file, arch, section, function, site_offset, function_offset, address,
methods, reloc_type, target, bytes, disasm, thumb and arm_push_lr, and no
total line.

A FILE must be a regular file of at most 256 MiB (a FIFO, device or
directory is refused without being read); counts inside it are bounded
too (see the objfile package).

Exit status: 0 on success, 2 on any error (one line on stderr).

Examples:
  mcountsim sites vmlinux.o
  mcountsim sites --json drivers/*.o > sites.jsonl
  arm-linux-gnueabi-gcc -O2 -pg -c f.c && mcountsim sites f.o

Flags:
`

// sitesRecord is one site in --json output.
type sitesRecord struct {
	File           string   `json:"file"`
	Arch           string   `json:"arch"`
	Section        string   `json:"section"`
	Function       string   `json:"function"`
	SiteOffset     uint64   `json:"site_offset"`
	FunctionOffset int64    `json:"function_offset"`
	Address        uint64   `json:"address"`
	Methods        []string `json:"methods"`
	RelocType      string   `json:"reloc_type"`
	Target         string   `json:"target"`
	Bytes          string   `json:"bytes"`
	Disasm         string   `json:"disasm"`
	Thumb          bool     `json:"thumb"`
	ARMPushLR      bool     `json:"arm_push_lr"`
}

// runSites implements `mcountsim sites [--json] FILE...` and returns the
// exit status: 0 on success, 2 on any error.
func runSites(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("sites")
	jsonOut := fs.Bool("json", false, "write JSON Lines, one object per site")
	if err := fs.Parse(args); err != nil {
		if helpRequested(err, fs, stdout, sitesUsage, "") {
			return 0
		}
		fmt.Fprintf(stderr, "mcountsim sites: %v (see mcountsim sites --help)\n", err)
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "mcountsim sites: no FILE given (see mcountsim sites --help)")
		return 2
	}
	var all []objfile.Site
	for _, path := range fs.Args() {
		sites, err := sitesOf(path)
		if err != nil {
			fmt.Fprintf(stderr, "mcountsim sites: %s\n", sitesOneLine(err))
			return 2
		}
		all = append(all, sites...)
	}
	var err error
	if *jsonOut {
		err = sitesWriteJSON(stdout, all)
	} else {
		err = sitesWriteText(stdout, all)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcountsim sites: %s\n", sitesOneLine(err))
		return 2
	}
	return 0
}

// sitesOf loads one file (a regular file of at most maxObjectSize bytes,
// of which only the sections site discovery needs are read) and finds its
// sites.
func sitesOf(path string) ([]objfile.Site, error) {
	in, size, err := openInput(path, "", maxObjectSize)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	f, err := objfile.NewFile(io.NewSectionReader(in, 0, size), path)
	if err != nil {
		return nil, err
	}
	return f.Sites()
}

// sitesOneLine makes sure an error message fits on one line.
func sitesOneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

func sitesWriteJSON(w io.Writer, sites []objfile.Site) error {
	enc := json.NewEncoder(w)
	for _, s := range sites {
		rec := sitesRecord{
			File:           s.File,
			Arch:           s.Arch.String(),
			Section:        s.Section,
			Function:       s.Function,
			SiteOffset:     s.SectionOffset,
			FunctionOffset: s.FunctionOffset,
			Address:        s.Address,
			Methods:        make([]string, len(s.Methods)),
			RelocType:      s.RelocType,
			Target:         s.Target,
			Bytes:          hex.EncodeToString(s.Bytes),
			Disasm:         s.Disasm,
			Thumb:          s.Thumb,
			ARMPushLR:      s.ARMPushLR,
		}
		for i, m := range s.Methods {
			rec.Methods[i] = m.String()
		}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

func sitesWriteText(w io.Writer, sites []objfile.Site) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	type fn struct{ file, name string }
	funcs := map[fn]bool{}
	for _, s := range sites {
		methods := make([]string, len(s.Methods))
		for i, m := range s.Methods {
			methods[i] = m.String()
		}
		reloc := s.RelocType
		if reloc == "" {
			reloc = "-"
		}
		disasm := s.Disasm
		if s.ARMPushLR {
			disasm += " (after push {lr})"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%#x\t%s\t%s\t%x\t%s\n", s.File, s.Section, s.FunctionRef(),
			s.SectionOffset, strings.Join(methods, ","), reloc, s.Bytes, disasm)
		if s.Function != "" {
			funcs[fn{s.File, s.Function}] = true
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d sites in %d functions\n", len(sites), len(funcs))
	return err
}
