package sched

import (
	"fmt"
	"slices"

	"github.com/mcountsim/mcountsim/isa"
	"github.com/mcountsim/mcountsim/kernel"
)

// Data memory is mapped in pages, as the kernel maps it: every page that
// holds a byte of a data segment is mapped whole, so a load past a
// segment's last byte but inside its last page reads zeros (word-at-a-time
// string functions read there legally), and a load or store past the last
// page faults, naming the page.

// PageSize is the granule of data memory.
const PageSize = 4096

// maxStackArea is the most bytes the workers' stacks can take.
const maxStackArea = uint64(MaxTasks * 4096 * 4)

// meetsStackWindow reports whether [lo, hi) meets the widest stack window
// (the stacks with their whole width on either side: symmetry.go), where
// nothing but the stacks is mapped, so that a task's access there outside
// its own stack faults wherever it falls, as task symmetry needs.
func meetsStackWindow(lo, hi uint64) bool {
	return lo < StackBase+2*maxStackArea && hi > StackBase-maxStackArea
}

// mapData lays the image's data segments out in page-granular mappings
// (adjacent and overlapping pages merged): it returns the mappings and
// their initial bytes, one after another.
func mapData(segs []kernel.Segment) ([]dataSeg, []byte, error) {
	type span struct {
		lo, hi uint64
	}
	var spans []span
	for _, s := range segs {
		if len(s.Bytes) == 0 {
			continue
		}
		lo := s.Addr &^ (PageSize - 1)
		hi := (s.Addr + uint64(len(s.Bytes)) + PageSize - 1) &^ (PageSize - 1)
		if hi <= lo {
			return nil, nil, fmt.Errorf("%w: data segment %s at %#x wraps the address space", ErrConfig, s.Name, s.Addr)
		}
		if meetsStackWindow(lo, hi) {
			return nil, nil, fmt.Errorf("%w: data segment %s at %#x overlaps the stacks", ErrConfig, s.Name, s.Addr)
		}
		spans = append(spans, span{lo, hi})
	}
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	var maps []dataSeg
	var size uint64
	for _, s := range spans {
		if n := len(maps); n > 0 && s.lo <= maps[n-1].addr+maps[n-1].size {
			maps[n-1].size = max(maps[n-1].size, s.hi-maps[n-1].addr)
			continue
		}
		maps = append(maps, dataSeg{addr: s.lo, size: s.hi - s.lo})
	}
	for i := range maps {
		maps[i].off = size
		size += maps[i].size
		// A page is read-only when every segment on it is.
		d := &maps[i]
		ro := make([]bool, d.size/PageSize)
		for p := range ro {
			lo, hi := d.addr+uint64(p)*PageSize, d.addr+uint64(p+1)*PageSize
			on, all := false, true
			for _, s := range segs {
				if len(s.Bytes) > 0 && s.Addr < hi && s.Addr+uint64(len(s.Bytes)) > lo {
					on = true
					all = all && s.ReadOnly
				}
			}
			ro[p] = on && all
		}
		if slices.Contains(ro, true) {
			d.ro = ro
		}
	}
	data := make([]byte, size)
	for _, s := range segs {
		for _, d := range maps {
			if s.Addr >= d.addr && s.Addr+uint64(len(s.Bytes)) <= d.addr+d.size {
				copy(data[d.off+s.Addr-d.addr:], s.Bytes)
				break
			}
		}
	}
	return maps, data, nil
}

// memFault is the error of an access that reaches neither the task's
// stack, nor text (for loads), nor a mapped data page: it names the first
// unmapped page the access touches.
func (m *Machine) memFault(load bool, a uint64, size int) error {
	lo, hi := m.stackRange(m.cur)
	page := a &^ (PageSize - 1)
	if _, ok := m.dataOff(page, 1); ok {
		page += PageSize // the access starts in a mapped page and runs past it
	}
	if load {
		return fmt.Errorf("load of %d bytes at %#x outside the task's stack [%#x,%#x), text and data: page %#x is not mapped: %w", size, a, lo, hi, page, isa.ErrMemory)
	}
	return fmt.Errorf("store of %d bytes at %#x outside the task's stack [%#x,%#x) and data: page %#x is not mapped: %w", size, a, lo, hi, page, isa.ErrMemory)
}

// readOnly reports whether the n bytes at a lie in mapped data pages that
// are all read-only: no task can ever write them.
func (m *Machine) readOnly(a uint64, n int) bool {
	for _, d := range m.st.dataAt {
		if a >= d.addr && a+uint64(n) <= d.addr+d.size {
			if d.ro == nil {
				return false
			}
			for p := (a - d.addr) / PageSize; p <= (a+uint64(n)-1-d.addr)/PageSize; p++ {
				if !d.ro[p] {
					return false
				}
			}
			return true
		}
	}
	return false
}

// hasReadOnly reports whether any data page is read-only.
func (m *Machine) hasReadOnly() bool {
	for _, d := range m.st.dataAt {
		if d.ro != nil {
			return true
		}
	}
	return false
}
