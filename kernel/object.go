package kernel

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
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
	// Helpers names the run-time helpers (__aeabi_uidiv, ...) the object
	// calls, linked to real code (see IsARMHelper).
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
//	on ARM, when the object calls one, the run-time helpers (libgcc.go):
//	__aeabi_uidiv and the other division, shift and multiply helpers as
//	real A32 code
//	a stub for every other undefined function the object calls: return 0
//	and clobber every caller-saved register, as the ABI allows; their names
//	are Object.Stubs and Image.Stubs, so that a result can say "foo is a
//	stub returning 0"
//
// Data sections (.data, .bss, .rodata, ...) and, on x86-64, a GOT for the
// GOTPCREL relocations are data segments at DataBase: the writable
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
	switch f.Arch {
	case objfile.ArchARM:
		if len(cfg.Args) > maxARMArgs {
			return nil, fmt.Errorf("%s: %w: %d arguments, the ARM workload passes at most %d (r0-r3 and the stack)", name, ErrUnsupportedObject, len(cfg.Args), maxARMArgs)
		}
		l.arch = ARM
	case objfile.ArchX86_64:
		if len(cfg.Args) > 6 {
			return nil, fmt.Errorf("%s: %w: %d arguments, the x86-64 workload passes at most 6", name, ErrUnsupportedObject, len(cfg.Args))
		}
		l.arch = X86
	case objfile.ArchARM64, objfile.ArchRISCV64:
		l.arch = map[objfile.Arch]Arch{objfile.ArchARM64: ARM64, objfile.ArchRISCV64: RISCV64}[f.Arch]
		if err := workerArgs(name, l.arch, len(cfg.Args)); err != nil {
			return nil, err
		}
		if err := l.layout64(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s: %w: arch %v (want ARM A32, x86-64, arm64 or riscv64)", name, ErrUnsupportedObject, f.Arch)
	}
	return l.link()
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
	helpers map[string]bool // ARM run-time helpers the object calls
	ret     uint64
	// prologue is the layout of an arm64 or riscv64 object's sites
	// (objectarm64.go, objectriscv.go); hi20 indexes its %pcrel_hi
	// relocations by address (RISC-V).
	prologue string
	hi20     map[uint64]objfile.Reloc
}

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
		armText{l.a}.libgcc()
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

// worker emits the workload loop.
func (l *linker) worker() {
	a := l.a
	a.sym("worker")
	a.img.Entry = a.pc()
	switch l.arch {
	case ARM64:
		l.workerARM64()
		return
	case RISCV64:
		l.workerRISCV()
		return
	}
	if l.arch == ARM {
		t := armText{a}
		t.w(arm.Push(arm.RegList(arm.R4, arm.R5, arm.R6, arm.LR)))
		t.w(t.ok(arm.MovImm(arm.R5, uint32(l.cfg.Iterations))))
		// Arguments after the fourth go on the stack, the fifth at sp, in
		// an area that keeps sp 8-byte aligned at the call (AAPCS 5.5,
		// 6.2.1.2); they are stored again before every call, since the
		// callee owns them.
		onStack := max(len(l.cfg.Args)-4, 0)
		if onStack > 0 {
			t.w(t.ok(arm.SubImm(arm.SP, arm.SP, uint32(onStack*4+7)&^7)))
		}
		loop := uint32(a.pc())
		// ldr rN, [pc, #off]: the arguments sit in a literal pool after the
		// loop; a stack argument goes through r0 first.
		loads := make([]uint64, len(l.cfg.Args))
		for i := 4; i < len(l.cfg.Args); i++ {
			loads[i] = a.pc()
			t.w(0)
			t.w(arm.StrImm(arm.R0, arm.SP, int32(4*(i-4))))
		}
		for i := range min(len(l.cfg.Args), 4) {
			loads[i] = a.pc()
			t.w(0)
		}
		t.call(l.cfg.Function)
		l.ret = a.pc()
		t.call("schedule")
		t.w(t.ok(arm.SubsImm(arm.R5, arm.R5, 1)))
		t.w(t.ok(arm.B(uint32(a.pc()), loop)).If(arm.NE))
		t.call("do_exit")
		for i, v := range l.cfg.Args {
			lit := a.pc()
			t.w(arm.Word(uint32(v)))
			rt := i
			if i >= 4 {
				rt = arm.R0 // then stored to the stack
			}
			copy(a.img.Text[loads[i]-a.img.Base:], arm.LdrImm(rt, arm.PC, int32(lit-loads[i]-8)).Bytes())
		}
		return
	}
	t := x86Text{a}
	// Four pushes keep %rsp 16-byte aligned at the call, as the ABI wants.
	for _, r := range []x86.Reg{x86.RBX, x86.RBP, x86.R12, x86.R13} {
		a.emit(x86.Push(r))
	}
	t.b(0xbb, byte(l.cfg.Iterations), 0, 0, 0) // mov $iterations,%ebx
	loop := a.pc()
	regs := []x86.Reg{x86.RDI, x86.RSI, x86.RDX, x86.RCX, x86.R8, x86.R9}
	for i, v := range l.cfg.Args {
		a.emit(movabs(regs[i], uint64(v)))
	}
	t.call(l.cfg.Function)
	l.ret = a.pc()
	t.call("schedule")
	a.emit(x86.SubImm(x86.RBX, 1))
	t.jcc(x86.NE, loop)
	t.call("do_exit")
}

// movabs encodes mov $imm64,%r (REX.W B8+r io; Intel SDM Vol. 2B, MOV).
func movabs(r x86.Reg, v uint64) []byte {
	rex := byte(0x48)
	if r >= 8 {
		rex |= 1
	}
	out := []byte{rex, 0xb8 | byte(r&7)}
	return binary.LittleEndian.AppendUint64(out, v)
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
		funcs = append(funcs, Symbol{Name: s.Name, Addr: at + s.Value, Size: size})
	}
	sort.SliceStable(funcs, func(i, j int) bool { return funcs[i].Addr < funcs[j].Addr })
	a.img.Symbols = append(a.img.Symbols, funcs...)
	return nil
}

// data lays out every allocated non-executable section (and COMMON
// symbols) as data segments, applies their relocations, and makes room
// for the GOT.
func (l *linker) data() error {
	img := l.a.img
	dbase := l.dataBase()
	next := dbase
	type pending struct {
		seg int
		sec *elf.Section
		idx int
	}
	var todo []pending
	// The writable sections first, then the read-only ones from a page of
	// their own, as a linker puts .rodata and .data in different segments:
	// a page holding only read-only data is read-only (a store there
	// faults), and loads from it commute with everything (the partial-order
	// reduction, explore's package doc). COMMON and the GOT, writable,
	// start a page of their own after read-only data.
	roLast := false
	for _, i := range l.dataOrder() {
		es := l.ef.Sections[i]
		if ro := es.Flags&elf.SHF_WRITE == 0; ro != roLast {
			if next > dbase {
				next = (next + pageSize - 1) &^ (pageSize - 1)
			}
			roLast = ro
		}
		align := max(es.Addralign, 8)
		if align > 4096 || align&(align-1) != 0 || es.Size > maxData || next+es.Size > dbase+maxData {
			return fmt.Errorf("%s: %w: section %s (size %#x, alignment %#x) does not fit in %d MiB of data", l.name, ErrUnsupportedObject, es.Name, es.Size, es.Addralign, maxData>>20)
		}
		next = (next + align - 1) &^ (align - 1)
		b := make([]byte, es.Size)
		if es.Type != elf.SHT_NOBITS {
			d, err := es.Data()
			if err != nil {
				return fmt.Errorf("%s: section %s: %v", l.name, es.Name, err)
			}
			copy(b, d)
		}
		l.secAddr[i] = next
		img.Data = append(img.Data, Segment{Name: es.Name, Addr: next, Bytes: b, ReadOnly: es.Flags&elf.SHF_WRITE == 0})
		todo = append(todo, pending{len(img.Data) - 1, es, i})
		next += es.Size
	}
	if roLast {
		next = (next + pageSize - 1) &^ (pageSize - 1)
	}
	var commons []byte
	cbase := (next + 15) &^ 15
	for i, s := range l.f.Symbols {
		if s.Section != elf.SHN_COMMON {
			continue
		}
		align := max(s.Value, 1)
		if align > 4096 || align&(align-1) != 0 || s.Size > maxData || uint64(len(commons))+s.Size > maxData {
			return fmt.Errorf("%s: %w: common symbol %s (size %#x, alignment %#x) does not fit in %d MiB of data", l.name, ErrUnsupportedObject, s.Name, s.Size, s.Value, maxData>>20)
		}
		off := (uint64(len(commons)) + align - 1) &^ (align - 1)
		commons = append(commons, make([]byte, off+s.Size-uint64(len(commons)))...)
		if l.common == nil {
			l.common = map[int]uint64{}
		}
		l.common[i] = cbase + off
	}
	if len(commons) > 0 {
		img.Data = append(img.Data, Segment{Name: "COMMON", Addr: cbase, Bytes: commons})
		next = cbase + uint64(len(commons))
	}
	// Relocations of data sections (pointers in .data, jump tables in .rodata).
	for _, p := range todo {
		relocs, err := l.elfRelocs(p.idx)
		if err != nil {
			return err
		}
		seg := img.Data[p.seg]
		for _, r := range relocs {
			if err := l.relocate(func() []byte { return seg.Bytes }, seg.Addr, r, p.sec.Name); err != nil {
				return err
			}
		}
	}
	// The GOT: one slot per symbol a GOTPCREL relocation of text names.
	l.gotSeg = -1
	if l.arch == X86 {
		var n int
		for _, s := range l.f.Sections {
			for _, r := range s.Relocs {
				switch elf.R_X86_64(r.Type) {
				case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
					if _, ok := l.got[r.Sym]; !ok && !l.hookSym(r.Sym) {
						l.got[r.Sym] = uint64(n) * 8
						n++
					}
				}
			}
		}
		if n > 0 {
			at := (next + 15) &^ 15
			img.Data = append(img.Data, Segment{Name: "GOT", Addr: at, Bytes: make([]byte, n*8)})
			l.gotSeg = len(img.Data) - 1
			got := img.Data[l.gotSeg].Bytes
			for sym, off := range l.got {
				l.got[sym] = at + off
				v, err := l.symAddr(sym)
				var late *lateSym
				switch {
				case errors.As(err, &late):
					a := l.a
					a.later(func() { binary.LittleEndian.PutUint64(got[off:], a.addr(late.name)) })
				case err != nil:
					return err
				default:
					binary.LittleEndian.PutUint64(got[off:], v)
				}
			}
		}
	}
	return nil
}

// pageSize is the page of the data layout (sched.PageSize).
const pageSize = 4096

// dataOrder returns the indices of the allocated non-executable sections
// to lay out as data: the writable ones in section order, then the
// read-only ones.
func (l *linker) dataOrder() []int {
	var rw, ro []int
	for i, es := range l.ef.Sections {
		if es.Flags&elf.SHF_ALLOC == 0 || es.Flags&elf.SHF_EXECINSTR != 0 || es.Size == 0 {
			continue
		}
		if es.Type != elf.SHT_PROGBITS && es.Type != elf.SHT_NOBITS && es.Type != elf.SHT_INIT_ARRAY && es.Type != elf.SHT_FINI_ARRAY {
			continue
		}
		if es.Flags&elf.SHF_WRITE != 0 {
			rw = append(rw, i)
		} else {
			ro = append(ro, i)
		}
	}
	return append(rw, ro...)
}

// elfRelocs returns the relocations applying to section idx of a data
// section (objfile loads those of text only).
func (l *linker) elfRelocs(idx int) ([]objfile.Reloc, error) {
	var out []objfile.Reloc
	bo := l.ef.ByteOrder
	for _, rs := range l.ef.Sections {
		if (rs.Type != elf.SHT_REL && rs.Type != elf.SHT_RELA) || int(rs.Info) != idx {
			continue
		}
		d, err := rs.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: section %s: %v", l.name, rs.Name, err)
		}
		rela := rs.Type == elf.SHT_RELA
		size := map[bool]map[bool]int{false: {false: 8, true: 12}, true: {false: 16, true: 24}}[l.ef.Class == elf.ELFCLASS64][rela]
		for off := 0; off+size <= len(d); off += size {
			e := d[off : off+size]
			var r objfile.Reloc
			r.RELA = rela
			if l.ef.Class == elf.ELFCLASS32 {
				info := bo.Uint32(e[4:])
				r.Offset, r.Sym, r.Type = uint64(bo.Uint32(e)), int(info>>8), info&0xff
				if rela {
					r.Addend = int64(int32(bo.Uint32(e[8:])))
				}
			} else {
				info := bo.Uint64(e[8:])
				r.Offset, r.Sym, r.Type = bo.Uint64(e), int(info>>32), uint32(info)
				if rela {
					r.Addend = int64(bo.Uint64(e[16:]))
				}
			}
			if r.Sym >= len(l.f.Symbols) {
				return nil, fmt.Errorf("%s: relocation in %s names symbol %d of %d", l.name, rs.Name, r.Sym, len(l.f.Symbols))
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// hookSym reports whether symbol i is the profiling hook of the arch.
func (l *linker) hookSym(i int) bool {
	s := l.f.Symbols[i]
	return s.Section == elf.SHN_UNDEF && objfile.IsHook(l.f.Arch, s.Name)
}

// symTarget returns the name a call to undefined symbol s links to: the
// trampoline for the profiling hook, a service, or a generated stub.
func (l *linker) symTarget(s objfile.Symbol) (string, error) {
	switch {
	case l.arch == ARM && s.Name == "__gnu_mcount_nc":
		return "__gnu_mcount_nc", nil
	case l.arch == ARM && (s.Name == "mcount" || s.Name == "_mcount"):
		return "", l.errorf("calls %s: the pre-EABI mcount ABI is not supported (gcc >= 4.4 emits __gnu_mcount_nc)", s.Name)
	case l.arch == X86 && (s.Name == "__fentry__" || s.Name == "mcount"):
		return s.Name, nil
	case (l.arch == ARM64 || l.arch == RISCV64) && s.Name == "_mcount":
		return s.Name, nil
	case builtinNames[s.Name]:
		return s.Name, nil
	case l.arch == ARM && IsARMHelper(s.Name):
		l.helpers[s.Name] = true
		return s.Name, nil
	}
	l.stubs[s.Name] = true
	return s.Name, nil
}

// symAddr returns the address symbol i resolves to. Undefined symbols
// resolve to a trampoline, a service or a stub; the address of a text
// symbol is known only once everything is placed, so symAddr must run
// after layout (it is called from relocation, which runs later).
func (l *linker) symAddr(i int) (uint64, error) {
	s := l.f.Symbols[i]
	switch {
	case s.Section == elf.SHN_UNDEF:
		if i == 0 {
			return 0, nil
		}
		name, err := l.symTarget(s)
		if err != nil {
			return 0, err
		}
		return 0, &lateSym{name}
	case s.Section == elf.SHN_ABS:
		return s.Value, nil
	case s.Section == elf.SHN_COMMON:
		return l.common[i], nil
	case s.Section >= elf.SHN_LORESERVE:
		return 0, l.errorf("symbol %s in special section %#x", s.Name, uint16(s.Section))
	}
	at, ok := l.secAddr[int(s.Section)]
	if !ok {
		return 0, l.errorf("symbol %s is in section %s, which is not loaded", s.Name, l.f.Sections[s.Section].Name)
	}
	v := at + s.Value
	if s.Thumb {
		v |= 1
	}
	return v, nil
}

// lateSym is a symbol placed after the object's text (a service or a
// stub); relocations against it are applied once it is placed.
type lateSym struct{ name string }

func (e *lateSym) Error() string { return "late symbol " + e.name }

// relocateText applies the relocations of every loaded executable section.
func (l *linker) relocateText() error {
	for _, s := range l.f.Sections {
		at, ok := l.secAddr[s.Index]
		if !ok || !s.Executable() {
			continue
		}
		off := at - l.a.img.Base
		for _, r := range s.Relocs {
			if l.arch == X86 && l.hookSym(r.Sym) && isGOTCall(r.Type) {
				if err := l.relaxGOTCall(s, at, r); err != nil {
					return err
				}
				continue
			}
			n := uint64(len(s.Data))
			text := func() []byte { return l.a.img.Text[off : off+n] }
			if err := l.relocate(text, at, r, s.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

func isGOTCall(t uint32) bool {
	switch elf.R_X86_64(t) {
	case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX:
		return true
	}
	return false
}

// relaxGOTCall turns gcc's PIC call of the profiling hook, call
// *__fentry__@GOTPCREL(%rip) (ff 15 rel32), into a direct call followed by
// a nop (e8 rel32 90), as ld -z call-nop=suffix-nop does: the site is then
// the 5-byte call the strategies patch.
func (l *linker) relaxGOTCall(s *objfile.Section, at uint64, r objfile.Reloc) error {
	if r.Offset < 2 || s.Data[r.Offset-2] != 0xff || s.Data[r.Offset-1] != 0x15 {
		return l.errorf("%s at %s+%#x is not a call through the GOT", l.f.RelocTypeName(r.Type), s.Name, r.Offset)
	}
	call := at + r.Offset - 2
	name, err := l.symTarget(l.f.Symbols[r.Sym])
	if err != nil {
		return err
	}
	copy(l.a.img.Text[call-l.a.img.Base:], []byte{0x90, 0x90, 0x90, 0x90, 0x90, 0x90})
	a := l.a
	a.later(func() {
		enc, ok := x86.CallRel32(call, a.addr(name))
		if !ok {
			a.fail("kernel: call %s out of range", name)
		}
		copy(a.img.Text[call-a.img.Base:], enc)
	})
	return nil
}

// relocate applies r to the section loaded at addr whose bytes buf
// returns (an accessor: text grows while stubs are laid out).
func (l *linker) relocate(buf func() []byte, addr uint64, r objfile.Reloc, sec string) error {
	if l.arch == ARM64 || l.arch == RISCV64 {
		return l.relocate64(buf, addr, r, sec)
	}
	tname := l.f.RelocTypeName(r.Type)
	where := fmt.Sprintf("%s+%#x", sec, r.Offset)
	if l.arch == ARM {
		switch elf.R_ARM(r.Type) {
		case elf.R_ARM_NONE, elf.R_ARM_V4BX:
			return nil
		case elf.R_ARM_CALL, elf.R_ARM_JUMP24, elf.R_ARM_ABS32, elf.R_ARM_REL32, elf.R_ARM_MOVW_ABS_NC, elf.R_ARM_MOVT_ABS:
		default:
			return l.errorf("relocation %s at %s", tname, where)
		}
	} else {
		switch elf.R_X86_64(r.Type) {
		case elf.R_X86_64_NONE:
			return nil
		case elf.R_X86_64_64, elf.R_X86_64_PC32, elf.R_X86_64_PLT32, elf.R_X86_64_32, elf.R_X86_64_32S,
			elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
		default:
			return l.errorf("relocation %s at %s", tname, where)
		}
	}
	if r.Offset+relocSize(l.arch, r.Type) > uint64(len(buf())) {
		return fmt.Errorf("%s: relocation %s at %s runs past its section", l.name, tname, where)
	}
	v, err := l.symAddr(r.Sym)
	var late *lateSym
	if errors.As(err, &late) {
		a := l.a
		a.later(func() {
			if err := l.apply(buf(), addr, r, a.addr(late.name), where); err != nil {
				a.fail("%v", err)
			}
		})
		return nil
	}
	if err != nil {
		return err
	}
	return l.apply(buf(), addr, r, v, where)
}

func relocSize(arch Arch, t uint32) uint64 {
	if arch == X86 && elf.R_X86_64(t) == elf.R_X86_64_64 {
		return 8
	}
	return 4
}

// apply writes the relocated field (ARM: ELF for the ARM Architecture,
// §5.6; x86-64: System V ABI AMD64 supplement, §4.4).
func (l *linker) apply(buf []byte, addr uint64, r objfile.Reloc, s uint64, where string) error {
	p := addr + r.Offset
	field := buf[r.Offset:]
	tname := l.f.RelocTypeName(r.Type)
	if l.arch == ARM {
		w := binary.LittleEndian.Uint32(field)
		switch elf.R_ARM(r.Type) {
		case elf.R_ARM_CALL, elf.R_ARM_JUMP24:
			if s&1 != 0 {
				return l.errorf("%s at %s targets Thumb code", tname, where)
			}
			a := int64(int32(w<<8) >> 6)
			d := int64(s) + a - int64(p)
			if d&3 != 0 || d < -(1<<25) || d >= 1<<25 {
				return l.errorf("%s at %s: target %#x out of range", tname, where, s)
			}
			w = w&0xff000000 | uint32(d>>2)&0x00ffffff
		case elf.R_ARM_ABS32:
			w = uint32(int64(s) + int64(int32(w)))
		case elf.R_ARM_REL32:
			w = uint32(int64(s) + int64(int32(w)) - int64(p))
		case elf.R_ARM_MOVW_ABS_NC, elf.R_ARM_MOVT_ABS:
			a := int64(int16(uint16(w>>4&0xf000 | w&0xfff)))
			v := uint32(int64(s) + a)
			if elf.R_ARM(r.Type) == elf.R_ARM_MOVT_ABS {
				v >>= 16
			}
			v &= 0xffff
			w = w&^0x000f0fff | (v>>12)<<16 | v&0xfff
		}
		binary.LittleEndian.PutUint32(field, w)
		return nil
	}
	a := r.Addend
	var v int64
	switch elf.R_X86_64(r.Type) {
	case elf.R_X86_64_64:
		binary.LittleEndian.PutUint64(field, uint64(int64(s)+a))
		return nil
	case elf.R_X86_64_PC32, elf.R_X86_64_PLT32:
		v = int64(s) + a - int64(p)
	case elf.R_X86_64_32:
		v = int64(s) + a
		if v < 0 || v > 0xffffffff {
			return l.errorf("%s at %s: %#x does not fit", tname, where, v)
		}
		binary.LittleEndian.PutUint32(field, uint32(v))
		return nil
	case elf.R_X86_64_32S:
		v = int64(s) + a
	case elf.R_X86_64_GOTPCREL, elf.R_X86_64_GOTPCRELX, elf.R_X86_64_REX_GOTPCRELX:
		slot, ok := l.got[r.Sym]
		if !ok {
			return l.errorf("%s at %s: no GOT slot", tname, where)
		}
		v = int64(slot) + a - int64(p)
	}
	if v < -1<<31 || v >= 1<<31 {
		return l.errorf("%s at %s: %#x does not fit in 32 bits", tname, where, v)
	}
	binary.LittleEndian.PutUint32(field, uint32(int32(v)))
	return nil
}

// sites turns objfile's sites into the image's.
func (l *linker) sites() error {
	if l.arch == ARM64 || l.arch == RISCV64 {
		return l.sites64()
	}
	found, err := l.f.Sites()
	if err != nil {
		return err
	}
	img := l.a.img
	for _, s := range found {
		at, ok := l.secAddr[s.SectionIndex]
		if !ok {
			continue
		}
		call := at + s.SectionOffset
		fn := s.Function
		if fn == "" {
			fn = s.FunctionRef()
		}
		if l.arch == ARM {
			if s.Thumb || !s.ARMPushLR {
				return l.errorf("site at %s (%s) is not the A32 push {lr}; bl __gnu_mcount_nc pair", s.FunctionRef(), s.Disasm)
			}
			img.Sites = append(img.Sites, Site{Func: fn, Addr: call - 4, Len: 8, Call: call})
			continue
		}
		switch {
		case len(s.Bytes) == 5 && s.Bytes[0] == 0xe8:
		case len(s.Bytes) == 6 && s.Bytes[0] == 0xff && s.Bytes[1] == 0x15:
			// relaxed by relaxGOTCall to e8 rel32; nop
		default:
			return l.errorf("site at %s (%s) is not a 5-byte call", s.FunctionRef(), s.Disasm)
		}
		img.Sites = append(img.Sites, Site{Func: fn, Addr: call, Len: 5, Call: call})
	}
	return nil
}

// stub emits a function that returns 0 and clobbers every caller-saved
// register, standing for an undefined function the object calls.
func (l *linker) stub(name string) {
	a := l.a
	a.sym(name)
	switch l.arch {
	case ARM64:
		l.stubARM64()
		return
	case RISCV64:
		l.stubRISCV()
		return
	}
	if l.arch == ARM {
		t := armText{a}
		for _, r := range []int{arm.R0, arm.R1, arm.R2, arm.R3, arm.R12} {
			t.w(t.ok(arm.MovImm(r, 0)))
		}
		t.w(arm.BX(arm.LR))
		return
	}
	// xor %eax,%eax; xor %ecx,%ecx; ... xor %r11d,%r11d; ret
	a.emit([]byte{0x31, 0xc0, 0x31, 0xc9, 0x31, 0xd2, 0x31, 0xf6, 0x31, 0xff,
		0x45, 0x31, 0xc0, 0x45, 0x31, 0xc9, 0x45, 0x31, 0xd2, 0x45, 0x31, 0xdb})
	a.emit(x86.Ret())
}
