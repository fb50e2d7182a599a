package sched

import "slices"

// Older views (explore's package doc, "Older views").
//
// Two states that differ only in the CPUs' floors (fetch.go) are ordered:
// if every floor of one is at most the other's, byte by byte and CPU by
// CPU, the one with the older floors can do every step the other can. A
// fetch of a window offers the values between the floor and the latest
// write of each byte (the single-copy-atomic stores kept whole, which the
// floors do not change), so its choices include the other's; each choice
// leaves both with the floors of what it fetched in the window, and the
// other bytes stay ordered; a synchronization point or an own store makes
// both equal. Nothing else reads a floor: the hash aside, only fetches and
// the reductions that look at whether a view is stale (the memo, local
// fetches, shadowed stores), each of which is exact from any state. So
// every hazard reachable from the newer state is reachable from the older
// one, through the same steps, with the same preemptions. HashFloorFree
// and the floors it appends are what an explorer needs to prune the newer
// state when it has claimed the older.

// HashFloorFree returns Hash as it would be if no CPU's floors were part
// of the state (the writes each CPU last synchronized on stay in it where
// the hash reads them: viewKey), and appends m's stale floors to dst: one
// entry per CPU and dirty byte whose floor is older than the byte's latest
// write, rank<<48 | byte<<16 | floor, sorted. A CPU's rank is its place
// among the CPUs ordered as the floor-free hash names them (so that two
// states with one floor-free hash rank interchangeable CPUs alike; CPUs
// with one name, which are interchangeable, are ordered by their floors).
// A state's floors are all at most another's, with the same floor-free
// hash and preemptions used, exactly when every entry of the other's
// names a byte that has an entry in its with a floor no newer (OlderViews).
func (m *Machine) HashFloorFree(dst []uint64) ([2]uint64, []uint64) {
	if m.st.fetch == nil || len(m.st.dirty) == 0 {
		return m.Hash(), dst
	}
	names, tasks := m.cpuName, m.taskName
	m.floorFree = true
	h := m.Hash()
	m.floorFree = false
	free := m.cpuName
	m.cpuName, m.taskName = names, tasks

	// Every CPU's entries, unranked, in CPU order; then ranked.
	base := len(dst)
	var lo, hi [MaxCPUs]int32
	nd := len(m.st.dirty)
	for c := 0; c < m.cfg.CPUs; c++ {
		lo[c] = int32(len(dst))
		if !m.vsumOn || m.vsum[c] != m.dsum {
			fl := m.floor[c*nd : (c+1)*nd]
			for _, i := range m.st.floorDirty {
				if fl[i] != m.dprov[i] {
					dst = append(dst, uint64(i)<<16|uint64(fl[i]))
				}
			}
		}
		hi[c] = int32(len(dst))
	}
	n := len(dst) - base
	if n == 0 {
		return h, dst
	}
	var order [MaxCPUs]int
	o := order[:m.cfg.CPUs]
	for c := range o {
		o[c] = c
	}
	slices.SortFunc(o, func(a, b int) int {
		if free[a] != free[b] {
			if free[a] < free[b] {
				return -1
			}
			return 1
		}
		return slices.Compare(dst[lo[a]:hi[a]], dst[lo[b]:hi[b]])
	})
	for r, c := range o {
		for _, e := range dst[lo[c]:hi[c]] {
			dst = append(dst, uint64(r)<<48|e)
		}
	}
	copy(dst[base:], dst[base+n:])
	return h, dst[:base+n]
}

// OlderViews reports whether floors a (HashFloorFree's entries) are all
// at most b's: every byte b is stale at, a is stale at too, with a floor
// no newer (a byte without an entry has its latest write as its floor).
func OlderViews(a, b []uint64) bool {
	if len(b) > len(a) {
		return false
	}
	i := 0
	for _, x := range b {
		for i < len(a) && a[i]>>16 < x>>16 {
			i++
		}
		if i == len(a) || a[i]>>16 != x>>16 || a[i]&0xffff > x&0xffff {
			return false
		}
		i++
	}
	return true
}

// syncedDigest is CPU c's view for the floor-free hash: the writes it
// last synchronized on, of the bytes the hash reads them of.
func (m *Machine) syncedDigest(c int) uint64 {
	if len(m.st.syncedDirty) == 0 {
		return 0
	}
	nd := len(m.st.dirty)
	sy := m.synced[c*nd : (c+1)*nd]
	var h hasher
	h.init()
	for _, i := range m.st.syncedDirty {
		h.u64(uint64(sy[i]))
	}
	return h.sum()[0]
}
