package kernel

// The run-time helper libraries (libgcc.go for ARM, libgcca64.go for
// arm64, libgccrv.go for riscv64) are each a list of lines built routine
// by routine: a label, an instruction, or a branch to a label. Every line
// but a label is one 4-byte instruction; every exported name is a label,
// local labels start with ".".

// emitHelpers emits the helper library code at a's pc: label returns a
// line's label ("" for an instruction), enc a line's instruction at pc
// given the address of every label. Exported names become symbols, but
// those defined reports (the object's own functions keep their names).
func emitHelpers[L any](a *asm, code []L, defined func(string) bool, label func(L) string, enc func(it L, pc uint64, labels map[string]uint64) []byte) {
	labels := map[string]uint64{}
	pc := a.pc()
	for _, it := range code {
		if l := label(it); l != "" {
			labels[l] = pc
			continue
		}
		pc += 4
	}
	for _, it := range code {
		switch l := label(it); {
		case l != "" && l[0] != '.' && !defined(l):
			a.sym(l)
		case l != "":
		default:
			a.emit(enc(it, a.pc(), labels))
		}
	}
}
