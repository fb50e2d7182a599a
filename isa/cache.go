package isa

// DecodeCache keeps the decoding of the instruction at each address of a
// text segment, one entry per possible instruction start (every align
// bytes). It only stores: each ISA's Lookup proves on a hit that the bytes
// now at the address are the ones the entry was decoded from, so a write to
// text can never leave a stale decoding behind.
type DecodeCache[T any] struct {
	base    uint64
	shift   uint
	entries []CacheEntry[T]
}

// CacheEntry is one decoded instruction (or the error decoding it gave).
type CacheEntry[T any] struct {
	Valid bool
	Inst  T
	Err   error
}

// NewDecodeCache returns a cache for size bytes of text at base whose
// instructions start on multiples of align (1, 2 or 4).
func NewDecodeCache[T any](base uint64, size, align int) DecodeCache[T] {
	var shift uint
	for 1<<shift < align {
		shift++
	}
	return DecodeCache[T]{base: base, shift: shift, entries: make([]CacheEntry[T], (size+align-1)/align)}
}

// Entry returns the entry of the instruction at pc, or nil when pc lies
// outside the text or is not aligned.
func (c *DecodeCache[T]) Entry(pc uint64) *CacheEntry[T] {
	if pc < c.base || (pc-c.base)&(1<<c.shift-1) != 0 {
		return nil
	}
	i := (pc - c.base) >> c.shift
	if i >= uint64(len(c.entries)) {
		return nil
	}
	return &c.entries[i]
}
