package kernel

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/mcountsim/mcountsim/isa/arm"
	"github.com/mcountsim/mcountsim/isa/x86"
	"github.com/mcountsim/mcountsim/objfile"
)

// DataBase is where BuildObject places an object's data sections (and a
// synthesized GOT): above the task stacks of package sched.
const DataBase = 0x200000

// maxARMArgs bounds the arguments of an ARM workload's call: four in
// r0-r3, the rest on the stack.
const maxARMArgs = 16

// maxData and maxText bound what BuildObject lays out.
const (
	maxData = 16 << 20
	maxText = 16 << 20
)

// ErrUnsupportedObject is wrapped by every error BuildObject returns for an
// object it cannot link: an unsupported relocation, a Thumb or PIC call
// site, too many arguments.
var ErrUnsupportedObject = errors.New("unsupported object")

// ObjectConfig is what the text built around an object depends on.
type ObjectConfig struct {
	Function   string  // the function the workload calls (required)
	Args       []int64 // its integer arguments, in the platform ABI (ARM: r0-r3, then the stack, at most 16; x86-64: at most 6; arm64, riscv64: at most 8)
	Iterations int     // workload iterations per worker; default 2
}

// Object is an image linked from an ELF relocatable object.
type Object struct {
	Image *Image
	// Return is the address in the worker loop right after the call to
	// the function: a task there holds the function's return value in r0
	// (ARM), %rax (x86-64), x0 (arm64) or a0 (riscv64).
	Return uint64
	// Stubs names the undefined functions linked to generated stubs that
	// return 0 (Image.Stubs holds the same list).
	Stubs []string
	// Helpers names the run-time helpers (__aeabi_uidiv, __clzdi2, ...)
	// the object calls, linked to real code (see IsARMHelper,
	// IsRISCVHelper, IsARM64Helper and IsX86Helper).
	Helpers []string
}

// LoadObject reads the ELF object at path and links it (see LinkObject).
func LoadObject(path string, cfg ObjectConfig) (*Object, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return LinkObject(path, raw, cfg)
}

// BuildObject returns the image LinkObject links from raw.
func BuildObject(raw []byte, cfg ObjectConfig) (*Image, error) {
	o, err := LinkObject("object", raw, cfg)
	if err != nil {
		return nil, err
	}
	return o.Image, nil
}

// LinkObject links the ELF relocatable object raw (an ARM A32 or x86-64
// .o, as gcc -pg emits it; an arm64 or riscv64 one as
// objectarm64.go and objectriscv.go describe) into a simulated text:
//
//	worker:  a kthread frame, then per iteration: load cfg.Args into the
//	         argument registers, call cfg.Function, call schedule; then do_exit
//	         (the same loop as Build's, with the object's function)
//	the object's executable sections, in section order
//	the trampolines and hook stubs of Build
//	when the object calls one, the run-time helpers (libgcc.go,
//	libgccrv.go, libgcca64.go, libgccx86.go): on ARM __aeabi_uidiv and the
//	other division, shift, multiply and bit helpers as real A32 code; on
//	riscv64 __clzdi2, __ctzdi2, __popcountdi2 and the other bit and
//	128-bit shift helpers as RV64 code; on arm64 __popcountdi2,
//	__paritydi2 and the 128-bit shifts as A64 code; on x86-64
//	__popcountdi2, __paritydi2 and the string functions (strlen, strcmp,
//	memcmp, ...) as x86-64 code; and on every arch memset, memcpy and
//	memmove (a name the object defines keeps the object's function)
//	a stub for every other undefined function the object calls: return 0
//	and clobber every caller-saved register, as the ABI allows; their names
//	are Object.Stubs and Image.Stubs, so that a result can say "foo is a
//	stub returning 0"; an undefined weak symbol is no stub: its address is
//	0, as a static link (the kernel's) makes it, so that code testing an
//	optional hook for NULL takes the branch it takes natively; nor are the
//	stack protector's symbols (-fstack-protector): __stack_chk_fail is a
//	HookPanic hook (reaching it is a fault), __stack_chk_guard a canary
//	word on a read-only data page, and an object that reads the current
//	task pointer (arm64 sp_el0, RISC-V tp, an x86-64 gs operand) gets
//	Image.Current, a read-only page of canary words, where
//	__ref_stack_chk_guard is at offset 0
//
// Data sections (.data, .bss, .rodata, ...) and a GOT for the GOT
// relocations (x86-64's GOTPCREL; arm64's ADR_GOT_PAGE and
// LD64_GOT_LO12_NC, gcc's way to an undefined weak symbol) are data
// segments at DataBase: the writable
// sections first, then the read-only ones from a page of their own (a page
// is read-only only when every segment on it is), then COMMON and the GOT. Calls to the
// profiling hook (__gnu_mcount_nc on ARM; __fentry__ or mcount on x86-64)
// are linked to Build's trampolines, and every such call is a site of the
// image: on ARM the push {lr} and the bl (8 bytes), on x86-64 the 5-byte
// call. name is used in error messages.
func LinkObject(name string, raw []byte, cfg ObjectConfig) (*Object, error) {
	if cfg.Iterations == 0 {
		cfg.Iterations = 2
	}
	if cfg.Iterations < 1 || cfg.Iterations > 255 {
		return nil, fmt.Errorf("iterations must be 1..255, got %d", cfg.Iterations)
	}
	f, err := objfile.NewFile(bytes.NewReader(raw), name)
	if err != nil {
		return nil, err
	}
	ef, err := elf.NewFile(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if f.Type != elf.ET_REL {
		return nil, fmt.Errorf("%s: %w: not a relocatable object (%v)", name, ErrUnsupportedObject, f.Type)
	}
	l := &linker{name: name, f: f, ef: ef, cfg: cfg, secAddr: map[int]uint64{}, got: map[int]uint64{}, stubs: map[string]bool{}, helpers: map[string]bool{}}
	arch, ok := ObjectArch(f.Arch)
	if !ok {
		return nil, fmt.Errorf("%s: %w: arch %v (want ARM A32, x86-64, arm64 or riscv64)", name, ErrUnsupportedObject, f.Arch)
	}
	l.arch = arch
	switch arch {
	case ARM:
		if len(cfg.Args) > maxARMArgs {
			return nil, fmt.Errorf("%s: %w: %d arguments, the ARM workload passes at most %d (r0-r3 and the stack)", name, ErrUnsupportedObject, len(cfg.Args), maxARMArgs)
		}
	case X86:
		if len(cfg.Args) > 6 {
			return nil, fmt.Errorf("%s: %w: %d arguments, the x86-64 workload passes at most 6", name, ErrUnsupportedObject, len(cfg.Args))
		}
	case ARM64, RISCV64:
		if err := workerArgs(name, l.arch, len(cfg.Args)); err != nil {
			return nil, err
		}
		if err := l.layout64(); err != nil {
			return nil, err
		}
	}
	return l.link()
}

// ObjectArch returns the architecture whose text an object of machine a
// links into, and false for a machine LinkObject does not link.
func ObjectArch(a objfile.Arch) (Arch, bool) {
	arch, ok := map[objfile.Arch]Arch{objfile.ArchARM: ARM, objfile.ArchX86_64: X86, objfile.ArchARM64: ARM64, objfile.ArchRISCV64: RISCV64}[a]
	return arch, ok
}

type linker struct {
	name    string
	f       *objfile.File
	ef      *elf.File
	cfg     ObjectConfig
	arch    Arch
	a       *asm
	secAddr map[int]uint64 // loaded address of each section (text or data)
	common  map[int]uint64 // SHN_COMMON symbols
	got     map[int]uint64 // GOT slot of each symbol (x86-64)
	gotSeg  int            // index of the GOT in Image.Data, or -1
	stubs   map[string]bool
	helpers map[string]bool // run-time helpers the object calls
	ret     uint64
	// prologue is the layout of an arm64 or riscv64 object's sites
	// (objectarm64.go, objectriscv.go); hi20 indexes its %pcrel_hi
	// relocations by address (RISC-V).
	prologue string
	hi20     map[uint64]objfile.Reloc
	// kdata are the kernel's data words the object reads, by name
	// (__stack_chk_guard), and panics whether it calls __stack_chk_fail.
	kdata  map[string]uint64
	panics bool
}

// The stack protector's kernel symbols (-fstack-protector): the global
// guard (ARM's kernels; -mstack-protector-guard=global elsewhere) and the
// panic every guard calls.
const (
	stackChkGuard = "__stack_chk_guard"
	stackChkFail  = "__stack_chk_fail"
	// refStackChkGuard is x86-64's per-CPU canary, read through gs
	// (-mstack-protector-guard-symbol=__ref_stack_chk_guard).
	refStackChkGuard = "__ref_stack_chk_guard"
)

// builtinNames are the symbols the services define.
var builtinNames = map[string]bool{
	"worker": true, "__gnu_mcount_nc": true, "trace_function": true, "schedule": true, "do_exit": true,
	"__fentry__": true, "mcount": true, "ftrace_caller": true,
	"_mcount": true, "ftrace_stub": true, "ftrace_regs_caller": true,
}

func (l *linker) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", l.name, ErrUnsupportedObject, fmt.Sprintf(format, args...))
}

func (l *linker) link() (*Object, error) {
	f := l.f
	var fn *objfile.Symbol
	for i := range f.Symbols {
		s := &f.Symbols[i]
		if s.Type != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		if builtinNames[s.Name] {
			return nil, l.errorf("the object defines %s, a name of mcountsim's own text", s.Name)
		}
		if s.Name == l.cfg.Function {
			fn = s
		}
	}
	if fn == nil {
		return nil, fmt.Errorf("%s: no function %q in the object", l.name, l.cfg.Function)
	}
	if fn.Thumb {
		return nil, l.errorf("%s is Thumb code; only A32 (-marm) is supported", fn.Name)
	}
	base := map[Arch]uint64{ARM: ARMBase, X86: X86Base, ARM64: ARM64Base, RISCV64: RISCVBase}[l.arch]
	l.a = &asm{img: &Image{Arch: l.arch, Base: base, Align: 4, Prologue: l.prologue}}
	switch l.arch {
	case X86:
		l.a.img.Align = 1
	case RISCV64:
		l.a.img.Align = 2
	}
	l.worker()
	if err := l.text(); err != nil {
		return nil, err
	}
	switch l.arch {
	case ARM:
		armText{l.a}.services()
	case X86:
		x86Text{l.a}.services()
	}
	if err := l.data(); err != nil {
		return nil, err
	}
	if err := l.relocateText(); err != nil {
		return nil, err
	}
	if err := l.sites(); err != nil {
		return nil, err
	}
	var helpers []string
	for s := range l.helpers {
		helpers = append(helpers, s)
	}
	sort.Strings(helpers)
	if len(helpers) > 0 {
		l.a.end()
		switch l.arch {
		case ARM:
			armText{l.a}.libgcc(l.defines)
		case RISCV64:
			rvText{l.a}.libgcc(l.defines)
		case ARM64:
			arm64Text{l.a}.libgcc(l.defines)
		case X86:
			x86Text{l.a}.libgcc(l.defines)
		}
	}
	var stubs []string
	for s := range l.stubs {
		stubs = append(stubs, s)
	}
	sort.Strings(stubs)
	for _, s := range stubs {
		l.stub(s)
	}
	if l.arch == ARM64 || l.arch == RISCV64 {
		l.services64()
	}
	if l.panics {
		l.a.panicHook(stackChkFail)
	}
	img, err := l.a.finish()
	if err != nil {
		return nil, err
	}
	if l.arch == RISCV64 {
		if err := l.checkRISCV(img); err != nil {
			return nil, err
		}
	}
	img.Stubs = stubs
	sort.SliceStable(img.Sites, func(i, j int) bool { return img.Sites[i].Addr < img.Sites[j].Addr })
	return &Object{Image: img, Return: l.ret, Stubs: stubs, Helpers: helpers}, nil
}

// undefined reports whether the object refers to name without defining it.
func (l *linker) undefined(name string) bool {
	for _, s := range l.f.Symbols {
		if s.Name == name && s.Section == elf.SHN_UNDEF {
			return true
		}
	}
	return false
}

// defines reports whether the object defines a symbol named name.
func (l *linker) defines(name string) bool {
	for _, s := range l.f.Symbols {
		if s.Name == name && s.Section != elf.SHN_UNDEF {
			return true
		}
	}
	return false
}

// worker emits the workload loop.
func (l *linker) worker() {
	a := l.a
	a.sym("worker")
	a.img.Entry = a.pc()
	switch l.arch {
	case ARM:
		l.workerARM()
	case X86:
		l.workerX86()
	case ARM64:
		l.workerARM64()
	case RISCV64:
		l.workerRISCV()
	}
}

// text copies the executable sections and names their functions.
func (l *linker) text() error {
	a := l.a
	for _, s := range l.f.Sections {
		if !s.Executable() || s.Flags&elf.SHF_ALLOC == 0 || len(s.Data) == 0 {
			continue
		}
		align := uint64(4)
		if l.arch == X86 {
			align = 16
		}
		if es := l.ef.Sections[s.Index]; (l.arch == ARM64 || l.arch == RISCV64) && es.Addralign > align && es.Addralign <= 4096 {
			align = es.Addralign // -falign-functions=8 (CALL_OPS literals)
		}
		if uint64(len(a.img.Text))+uint64(len(s.Data)) > maxText {
			return l.errorf("executable sections larger than %d MiB", maxText>>20)
		}
		a.end()
		for a.pc()%align != 0 {
			if l.arch == X86 {
				a.emit([]byte{0xcc})
			} else if l.arch == RISCV64 {
				a.emit([]byte{0, 0}) // c.unimp
			} else {
				a.emit(arm.Word(0xe7f000f0).Bytes()) // udf: never executed
			}
		}
		l.secAddr[s.Index] = a.pc()
		a.emit(s.Data)
	}
	var funcs []Symbol
	for _, s := range l.f.Symbols {
		if s.Type != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || s.Section >= elf.SHN_LORESERVE {
			continue
		}
		at, ok := l.secAddr[int(s.Section)]
		if !ok {
			continue
		}
		size := s.Size
		if size == 0 {
			size = 1
		}
		funcs = append(funcs, Symbol{Name: s.Name, Addr: at + s.Value, Size: size, Compiled: true})
	}
	sort.SliceStable(funcs, func(i, j int) bool { return funcs[i].Addr < funcs[j].Addr })
	a.img.Symbols = append(a.img.Symbols, funcs...)
	return nil
}

// sites turns objfile's sites into the image's, each in its arch's layout.
func (l *linker) sites() error {
	found, err := l.f.Sites()
	if err != nil {
		return err
	}
	site := map[Arch]func(s objfile.Site, fn string, p uint64) (Site, error){
		ARM: l.siteARM, X86: l.siteX86, ARM64: l.siteARM64, RISCV64: l.siteRISCV}[l.arch]
	for _, s := range found {
		fn, p, ok := l.placed(s)
		if !ok {
			continue
		}
		if l.arch == X86 && !s.HasMethod(objfile.MethodReloc) && !s.HasMethod(objfile.MethodMloc) {
			// x86-64 ftrace patches the __fentry__/mcount calls
			// (__mcount_loc) only: the NOPs of -fpatchable-function-entry
			// are CONFIG_CALL_PADDING's room for call thunks and FineIBT,
			// and the linker script discards their table
			// (HAVE_DYNAMIC_FTRACE_NO_PATCHABLE's PATCHABLE_DISCARDS).
			continue
		}
		st, err := site(s, fn, p)
		if err != nil {
			return err
		}
		l.a.img.Sites = append(l.a.img.Sites, st)
	}
	return nil
}

// siteARM is the site s of function fn whose bl is at call: the A32 push
// {lr}; bl __gnu_mcount_nc pair.
func (l *linker) siteARM(s objfile.Site, fn string, call uint64) (Site, error) {
	if s.Thumb || !s.ARMPushLR {
		return Site{}, l.errorf("site at %s (%s) is not the A32 push {lr}; bl __gnu_mcount_nc pair", s.FunctionRef(), s.Disasm)
	}
	return Site{Func: fn, Addr: call - 4, Len: 8, Call: call}, nil
}

// siteX86 is the site s of function fn at call: a 5-byte call.
func (l *linker) siteX86(s objfile.Site, fn string, call uint64) (Site, error) {
	switch {
	case len(s.Bytes) == 5 && s.Bytes[0] == 0xe8:
	case len(s.Bytes) == 6 && s.Bytes[0] == 0xff && s.Bytes[1] == 0x15:
		// relaxed by relaxGOTCall to e8 rel32; nop
	case bytes.Equal(s.Bytes, x86.Nop5()):
		// The call as the kernel's build leaves it: a NOP recorded in
		// __mcount_loc, written by gcc -mrecord-mcount -mnop-mcount or by
		// objtool --mcount --mnop (which leaves R_X86_64_NONE), the
		// state ftrace_init finds at boot.
	default:
		return Site{}, l.errorf("site at %s (%s) is neither a 5-byte call nor the 5-byte NOP of -mnop-mcount", s.FunctionRef(), s.Disasm)
	}
	return Site{Func: fn, Addr: call, Len: 5, Call: call}, nil
}

// placed returns the function of site s, for the image, and where s is
// loaded; ok is false when its section is not.
func (l *linker) placed(s objfile.Site) (fn string, addr uint64, ok bool) {
	at, ok := l.secAddr[s.SectionIndex]
	fn = s.Function
	if fn == "" {
		fn = s.FunctionRef()
	}
	return fn, at + s.SectionOffset, ok
}

// stub emits a function that returns 0 and clobbers every caller-saved
// register, standing for an undefined function the object calls.
func (l *linker) stub(name string) {
	a := l.a
	a.sym(name)
	switch l.arch {
	case ARM:
		l.stubARM()
	case X86:
		l.stubX86()
	case ARM64:
		l.stubARM64()
	case RISCV64:
		l.stubRISCV()
	}
}
