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
