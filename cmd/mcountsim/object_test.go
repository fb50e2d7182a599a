package main

import (
	"github.com/mcountsim/mcountsim/explore"
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
	"github.com/stretchr/testify/require"
)

const objFixtures = "../../kernel/testdata/obj"

func TestParseObjectArgs(t *testing.T) {
	for in, want := range map[string][]int64{
		"":                   nil,
		"1":                  {1},
		"1,-2, 0x10":         {1, -2, 16},
		"0xffffffffffffffff": {-1},
	} {
		got, err := parseObjectArgs(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"1,,2", "x", "1;2"} {
		_, err := parseObjectArgs(bad)
		require.ErrorContains(t, err, "--args", bad)
	}
}

func TestObjectImage(t *testing.T) {
	arch, build, err := objectImage(filepath.Join(objFixtures, "arm-fixture.o"), "big", "3,5,7,11", 1)
	require.NoError(t, err)
	require.Equal(t, kernel.ARM, arch)
	img, err := build()
	require.NoError(t, err)
	require.NotEmpty(t, img.Sites)
	var names []string
	for _, s := range img.Sites {
		names = append(names, img.Name(s.Addr))
	}
	require.Contains(t, names, "big+0x8")

	_, _, err = objectImage(filepath.Join(objFixtures, "x86-fentry-tls.o"), "tls", "1", 1)
	require.ErrorContains(t, err, "relocation R_X86_64_TPOFF32 at .text+0x9")
	_, _, err = objectImage(filepath.Join(objFixtures, "arm-fixture.o"), "", "", 1)
	require.ErrorContains(t, err, "--function")
	_, _, err = objectImage(filepath.Join(objFixtures, "arm-fixture.o"), "big", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", 1)
	require.ErrorContains(t, err, "17 arguments, the ARM workload passes at most 16 (r0-r3 and the stack)")

	require.NoError(t, checkObjectFlags(kernel.X86, map[string]bool{"arch": true}, "x86"))
	require.ErrorContains(t, checkObjectFlags(kernel.X86, map[string]bool{"arch": true}, "arm"), "the object is x86")
	require.ErrorContains(t, checkObjectFlags(kernel.ARM, map[string]bool{"functions": true}, ""), "--functions")
}

func TestObjectPreflight(t *testing.T) {
	for _, c := range []struct{ file, fn, want string }{
		{"arm-fixture.o", "big", ""},
		{"x86-fentry-fixture.o", "big", ""},
		{"arm-unsupported.o", "odd", "cannot run even unpatched: fault at step 10, cpu 0, task 0, pc 0x8044 <odd+0x8>: pc 0x8044: e10f3000 (mrs r3, apsr): unsupported instruction"},
		{"x86-fentry-unsupported.o", "odd", "<odd+0x5>: pc 0x401055: 0f 31 (rdtsc): unsupported instruction"},
		{"arm-runaway.o", "spin", "step budget of 4000000 steps used up (runaway execution) at pc"},
		{"x86-fentry-runaway.o", "spin", "step budget of 4000000 steps used up (runaway execution) at pc"},
	} {
		file, fn, want := c.file, c.fn, c.want
		arch, build, err := objectImage(filepath.Join(objFixtures, file), fn, "3,5,7,11", 1)
		require.NoError(t, err, file)
		name := "jmp-over"
		if arch == kernel.X86 {
			name = "text-poke-bp"
		}
		st, _ := patch.Lookup(arch, name)
		err = explore.Preflight(explore.Scenario{Arch: arch, Strategy: st, Image: build, StackWords: explore.ObjectStackWords})
		if want == "" {
			require.NoError(t, err, file)
			continue
		}
		require.ErrorContains(t, err, want, file)
	}
}
