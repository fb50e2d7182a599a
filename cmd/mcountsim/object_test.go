package main

import (
	"path/filepath"
	"testing"

	"github.com/mcountsim/mcountsim/kernel"
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
	require.Equal(t, "big+0x8", img.Name(img.Sites[2].Addr))

	_, _, err = objectImage(filepath.Join(objFixtures, "x86-fentry-tls.o"), "tls", "1", 1)
	require.ErrorContains(t, err, "relocation R_X86_64_TPOFF32 at .text+0x9")
	_, _, err = objectImage(filepath.Join(objFixtures, "arm-fixture.o"), "", "", 1)
	require.ErrorContains(t, err, "--function")
	_, _, err = objectImage(filepath.Join(objFixtures, "arm-fixture.o"), "big", "1,2,3,4,5", 1)
	require.ErrorContains(t, err, "at most 4")

	require.NoError(t, checkObjectFlags(kernel.X86, map[string]bool{"arch": true}, "x86"))
	require.ErrorContains(t, checkObjectFlags(kernel.X86, map[string]bool{"arch": true}, "arm"), "the object is x86")
	require.ErrorContains(t, checkObjectFlags(kernel.ARM, map[string]bool{"functions": true}, ""), "--functions")
}
