package sched_test

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/isa/riscv"
	"github.com/mcountsim/mcountsim/kernel"
)

// straightRV is register and stack work in the style of compiled RV64GC
// code, compressed forms included (encodings from riscv64-linux-gnu-as
// -march=rv64gc), like straightA32; each round ends with sd a3,8(sp).
var straightRV = []uint32{
	0x4441,     // c.li s0,16
	0x0084049b, // addiw s1,s0,8
	0x9ca1,     // c.addw s1,s0
	0x14fd,     // c.addi s1,-1
	0x048a,     // c.slli s1,2
	0xe026,     // c.sdsp s1,0(sp)
	0x6502,     // c.ldsp a0,0(sp)
	0x9522,     // c.add a0,s0
	0x00a03633, // snez a2,a0
	0x02c585b3, // mul a1,a1,a2
	0x00c5e6b3, // or a3,a1,a2
	0x00d6c633, // xor a2,a3,a3
	0x0685,     // c.addi a3,1
}

func straightRVImage(tb testing.TB) *kernel.Image {
	img := &kernel.Image{Arch: kernel.RISCV64, Base: 0x8000, Entry: 0x8000, Align: 2}
	img.Text = binary.LittleEndian.AppendUint32(img.Text, uint32(riscv.Addi(riscv.SP, riscv.SP, -64)))
	for len(img.Text) < stepTextBytes {
		for _, x := range straightRV {
			if x&3 == 3 {
				img.Text = binary.LittleEndian.AppendUint32(img.Text, x)
			} else {
				img.Text = binary.LittleEndian.AppendUint16(img.Text, uint16(x))
			}
		}
		img.Text = append(img.Text, riscv.Sd(riscv.A3, riscv.SP, 8).Bytes()...)
	}
	j, ok := riscv.Jal(riscv.Zero, img.Base+uint64(len(img.Text)), img.Base+4)
	require.True(tb, ok)
	img.Text = append(img.Text, j.Bytes()...)
	img.Symbols = []kernel.Symbol{{Name: "straight", Addr: img.Base, Size: uint64(len(img.Text))}}
	return img
}
