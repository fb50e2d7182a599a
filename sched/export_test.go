package sched

// Canonical reports whether m's hash is the one up to task symmetry (not
// the exact fallback of symmetry.go).
func Canonical(m *Machine) bool {
	if !m.st.symmetric {
		return false
	}
	_, ok := m.hashSym()
	return ok
}

// StackSumsHold reports whether m's incremental per-task stack sums and
// foreign-word counts are those computed afresh.
func StackSumsHold(m *Machine) bool {
	for t := 0; t < m.cfg.Tasks; t++ {
		var sum [2]uint64
		var foreign uint16
		for w := t * m.cfg.StackWords; w < (t+1)*m.cfg.StackWords; w++ {
			h, f := m.wordHash(w, t, m.stackLo(t))
			sum[0] += h[0]
			sum[1] += h[1]
			if f {
				foreign++
			}
		}
		if sum != m.stackSum[t] || foreign != m.foreign[t] {
			return false
		}
	}
	return true
}

// DataStackHolds reports whether m's count of data windows in the stack
// window is the one computed afresh.
func DataStackHolds(m *Machine) bool { return m.dataStack == m.stackWindows(0, len(m.data)) }
