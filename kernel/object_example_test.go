package kernel_test

import (
	"fmt"

	"github.com/mcountsim/mcountsim/kernel"
)

// LinkObject links a gcc -O2 -marm -pg object: the workload calls big(3,
// 5, 7, 11), every function's push {lr}; bl __gnu_mcount_nc pair is a site,
// and the undefined ext_fn becomes an ABI stub.
func ExampleLinkObject() {
	o, err := kernel.LoadObject("testdata/obj/arm-fixture.o", kernel.ObjectConfig{Function: "big", Args: []int64{3, 5, 7, 11}, Iterations: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	img := o.Image
	fmt.Println("return lands at", img.Name(o.Return), "stubs", o.Stubs)
	fmt.Println(len(img.Sites), "sites")
	for _, s := range img.Sites {
		if s.Func == "big" {
			fmt.Printf("site %s: %d bytes, rec->ip %s\n", img.Name(s.Addr), s.Len, img.Name(s.Call))
		}
	}
	for _, d := range img.Data {
		fmt.Printf("%-8s %#x %d bytes\n", d.Name, d.Addr, len(d.Bytes))
	}
	// Output:
	// return lands at worker+0x1c stubs [ext_fn]
	// 11 sites
	// site big+0x8: 8 bytes, rec->ip big+0xc
	// .data    0x200000 32 bytes
	// .bss     0x200020 4 bytes
	// .rodata  0x201000 60 bytes
}
