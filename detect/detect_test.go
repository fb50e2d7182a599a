package detect

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShadowReturns(t *testing.T) {
	var s Shadow
	s.Call(0x100, 0x1000, 0x200, 0) // an ordinary call
	s.Call(0x210, 0x0ff8, 0x300, 4) // an mcount call: the callee pops the site's word
	k, f := s.Return(0x210, 0x0ffc)
	assert.Equal(t, None, k)
	assert.Equal(t, uint64(0x300), f.Callee)
	k, _ = s.Return(0x104, 0x1000)
	assert.Equal(t, BadReturn, k, "wrong target")
	k, _ = s.Return(0x100, 0x1000)
	assert.Equal(t, BadReturn, k, "no call pending")

	s.Call(0x100, 0x1000, 0x200, 0)
	k, _ = s.Return(0x100, 0x0ff8)
	assert.Equal(t, StackImbalance, k)
}

func TestShadowDepthBound(t *testing.T) {
	var s Shadow
	for i := 0; i < MaxDepth+3; i++ {
		s.Call(uint64(i), 0, 0, 0)
	}
	assert.Equal(t, uint8(MaxDepth), s.N, "the oldest frames are dropped")
	k, _ := s.Return(uint64(MaxDepth+2), 0)
	assert.Equal(t, None, k, "the newest frame is still there")
}

func TestPassConsistent(t *testing.T) {
	history := [][MaxSiteBytes]uint16{
		{},                       // compiled
		{1, 1, 1, 1, 2, 2, 2, 2}, // boot: nops
		{3, 3, 3, 3, 2, 2, 2, 2}, // enable wrote the push
		{3, 3, 3, 3, 4, 4, 4, 4}, // and the bl
	}
	var held Pass
	held.Fetch(0, []byte{1, 2, 3, 4}, []uint16{3, 3, 3, 3})
	held.Fetch(4, []byte{5, 6, 7, 8}, []uint16{4, 4, 4, 4})
	assert.True(t, held.Consistent(history))

	var mixed Pass // the boot nop, then the new bl: never held together
	mixed.Fetch(0, []byte{1, 2, 3, 4}, []uint16{1, 1, 1, 1})
	mixed.Fetch(4, []byte{5, 6, 7, 8}, []uint16{4, 4, 4, 4})
	assert.False(t, mixed.Consistent(history))
}

func TestKindNames(t *testing.T) {
	for k := BadReturn; k <= Fault; k++ {
		got, err := ParseKind(k.String())
		assert.NoError(t, err)
		assert.Equal(t, k, got)
	}
	_, err := ParseKind("none")
	assert.Error(t, err)
}

func TestResultsSymmetric(t *testing.T) {
	same := TaskResults{Returns: []Return{{Func: 0x10, Value: 3}}}
	r := &Results{Tasks: []TaskResults{same, same}, Compared: true}
	assert.True(t, r.Symmetric())
	r.Tasks[1] = TaskResults{Returns: []Return{{Func: 0x10, Value: 4}}}
	assert.False(t, r.Symmetric(), "task 1 owes another value")
	r.Compared = false
	assert.True(t, r.Symmetric(), "nothing is compared")
	var none *Results
	assert.True(t, none.Symmetric())
}
