package sched

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
)

// TestMapDataPages: segments are mapped in whole 4 KiB pages, adjacent and
// overlapping pages merged, each segment's bytes at its address.
func TestMapDataPages(t *testing.T) {
	segs := []kernel.Segment{
		{Name: ".data", Addr: 0x200000, Bytes: []byte{1, 2, 3}},
		{Name: ".bss", Addr: 0x200ff8, Bytes: make([]byte, 16)}, // runs into the next page
		{Name: ".rodata", Addr: 0x205010, Bytes: []byte{9}},
		{Name: "empty", Addr: 0x300000},
	}
	maps, data, err := mapData(segs)
	require.NoError(t, err)
	require.Equal(t, []dataSeg{{addr: 0x200000, size: 0x2000, off: 0}, {addr: 0x205000, size: 0x1000, off: 0x2000}}, maps)
	require.Len(t, data, 0x3000)
	require.Equal(t, []byte{1, 2, 3}, data[:3])
	require.Equal(t, byte(9), data[0x2010])

	_, _, err = mapData([]kernel.Segment{{Name: "low", Addr: StackBase + 8, Bytes: []byte{1}}})
	require.ErrorIs(t, err, ErrConfig)
	require.ErrorContains(t, err, "data segment low at 0x7f000008 overlaps the stacks")
}

// TestLoadInsideLastPage: a word load past a segment's last byte but inside
// its page reads zeros; one past the page faults and names the page, and
// so does a store.
func TestLoadInsideLastPage(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	img.Data = []kernel.Segment{{Name: ".rodata", Addr: 0x200000, Bytes: []byte("abcdefg")}}
	m, err := New(img, Config{}, &Program{})
	require.NoError(t, err)
	v, err := m.Load(0x200004, 4, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(0x00676665), v) // "efg\0"
	v, err = m.Load(0x200ffc, 4, 0)
	require.NoError(t, err)
	require.Zero(t, v)
	_, err = m.Load(0x200ffe, 4, 0)
	require.ErrorIs(t, err, isa.ErrMemory)
	require.EqualError(t, err, "load of 4 bytes at 0x200ffe outside the task's stack [0x7f000000,0x7f000100), text and data: page 0x201000 is not mapped: memory fault")
	_, err = m.Load(0x1ffffc, 4, 0)
	require.EqualError(t, err, "load of 4 bytes at 0x1ffffc outside the task's stack [0x7f000000,0x7f000100), text and data: page 0x1ff000 is not mapped: memory fault")
	for _, a := range []uint64{^uint64(0) - 2, ^uint64(0) - 0xfffff} { // a+size wraps: a fault, not a panic
		_, err = m.Load(a, 8, 0)
		require.ErrorIs(t, err, isa.ErrMemory)
		require.ErrorIs(t, m.Store(a, 8, 7, 1), isa.ErrMemory)
	}
	require.NoError(t, m.Store(0x200ff0, 4, 7, 1))
	err = m.Store(0x201000, 4, 7, 1)
	require.EqualError(t, err, "store of 4 bytes at 0x201000 outside the task's stack [0x7f000000,0x7f000100) and data: page 0x201000 is not mapped: memory fault")
}

// TestReadOnlyPages: a page is read-only when every segment on it is; a
// store there faults, naming the page; loads read it.
func TestReadOnlyPages(t *testing.T) {
	img, err := kernel.Build(kernel.ARM, kernel.Config{})
	require.NoError(t, err)
	img.Data = []kernel.Segment{
		{Name: ".rodata", Addr: 0x200000, Bytes: []byte("abcd"), ReadOnly: true},
		{Name: ".data", Addr: 0x201ff8, Bytes: []byte{1}},
		{Name: ".rodata.str", Addr: 0x202000, Bytes: []byte{2}, ReadOnly: true},
	}
	m, err := New(img, Config{}, &Program{})
	require.NoError(t, err)
	require.Equal(t, []bool{true, false, true}, m.st.dataAt[0].ro)
	require.True(t, m.readOnly(0x200000, 4))
	require.True(t, m.readOnly(0x200ffc, 4)) // inside the page, past the segment
	require.False(t, m.readOnly(0x200ffc, 8))
	require.False(t, m.readOnly(0x201000, 4))
	v, err := m.Load(0x200000, 4, 0)
	require.NoError(t, err)
	require.Equal(t, uint64(0x64636261), v)
	require.EqualError(t, m.Store(0x200004, 4, 1, 1), "store of 4 bytes at 0x200004 to the read-only page 0x200000: memory fault")
	require.NoError(t, m.Store(0x201000, 4, 1, 1))
}
