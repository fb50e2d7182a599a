package kernel

// Prologues returns the call-site layouts (Config.Prologue) Build lays
// out for arch, the default first; nil for an arch with one layout (ARM).
func Prologues(arch Arch) []string {
	switch arch {
	case X86:
		return []string{"fentry", "mcount"}
	case ARM64:
		return []string{ARM64PFE2, ARM64PFE42, ARM64PG}
	case RISCV64:
		return []string{RVAtomic, RVMcount, RVPFE16, RVPFE8}
	}
	return nil
}
