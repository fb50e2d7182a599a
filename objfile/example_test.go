package objfile_test

import (
	"fmt"
	"log"

	"github.com/mcountsim/mcountsim/objfile"
)

// Open an object built like a clang kernel object after objtool --mcount:
// the calls to __fentry__ are 5-byte NOPs whose relocations were left as
// R_X86_64_NONE, and __mcount_loc lists them.
func ExampleOpen() {
	f, err := objfile.Open("testdata/x86-objtool.o")
	if err != nil {
		log.Fatal(err)
	}
	sites, err := f.Sites()
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sites[:3] {
		fmt.Println(s.Section, s.FunctionRef(), s.Methods, s.RelocType, s.Target, s.Disasm)
	}
	fmt.Println(len(sites), "sites")
	// Output:
	// .text helper_static+0x0 [mloc] R_X86_64_NONE __fentry__ nopl (%rax,%rax)
	// .text weak_hook+0x0 [mloc] R_X86_64_NONE __fentry__ nopl (%rax,%rax)
	// .text leaf+0x0 [mloc] R_X86_64_NONE __fentry__ nopl (%rax,%rax)
	// 11 sites
}

// List the sites of a Thumb-2 object whose __mcount_loc was added the way
// the kernel's recordmcount does: each site is found both by its
// R_ARM_THM_CALL relocation and by its __mcount_loc entry, and follows the
// push {lr} of the __gnu_mcount_nc ABI.
func ExampleFile_Sites() {
	f, err := objfile.Open("testdata/arm-thumb-mloc.o")
	if err != nil {
		log.Fatal(err)
	}
	sites, err := f.Sites()
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range sites {
		fmt.Printf("%-14s %-18s %-12s push{lr}=%v %s\n", s.Section, s.FunctionRef(), fmt.Sprint(s.Methods), s.ARMPushLR, s.Disasm)
	}
	// Output:
	// .text          helper_static+0x4  [reloc mloc] push{lr}=true bl 0xc (thumb)
	// .text          weak_hook+0x4      [reloc mloc] push{lr}=true bl 0x38 (thumb)
	// .text          leaf+0x2           [reloc mloc] push{lr}=true bl 0x4a (thumb)
	// .text          sibling+0x2        [reloc mloc] push{lr}=true bl 0x5a (thumb)
	// .text          with_unlikely+0x6  [reloc mloc] push{lr}=true bl 0x6a (thumb)
	// .text          sum_va+0x8         [reloc mloc] push{lr}=true bl 0xa8 (thumb)
	// .text          vla+0x6            [reloc mloc] push{lr}=true bl 0xe2 (thumb)
	// .text          big_frame+0xa      [reloc mloc] push{lr}=true bl 0x10a (thumb)
	// .text.unlikely cold_report+0x6    [reloc mloc] push{lr}=true bl 0x6 (thumb)
	// .init.text     init_fn+0x2        [reloc mloc] push{lr}=true bl 0x2 (thumb)
	// .text.startup  main+0x6           [reloc mloc] push{lr}=true bl 0x6 (thumb)
}

// Patchable entries placed before the function symbol
// (-fpatchable-function-entry=4,2) get a negative FunctionOffset.
func ExampleSite_FunctionRef() {
	f, err := objfile.Open("testdata/arm64-pfe4-2.o")
	if err != nil {
		log.Fatal(err)
	}
	sites, err := f.Sites()
	if err != nil {
		log.Fatal(err)
	}
	s := sites[0]
	fmt.Println(s.FunctionRef(), s.FunctionOffset, s.Methods, s.Disasm)
	// Output:
	// helper_static-0x8 -8 [pfe] nop
}
