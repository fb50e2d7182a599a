package objfile

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMain turns off the panic-to-error safety net, so that any panic the
// input checks miss fails the tests (and the fuzzer) instead of hiding.
func TestMain(m *testing.M) {
	recoverPanics = false
	os.Exit(m.Run())
}

func TestRecoverAsError(t *testing.T) {
	recoverPanics = true
	defer func() { recoverPanics = false }()
	err := func() (err error) {
		defer recoverAsError("x.o", "test", &err)
		var s []int
		_ = s[3]
		return nil
	}()
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "x.o: malformed file (test panic: runtime error: index out of range")
}

// FuzzLoad feeds arbitrary bytes to the loader and site discovery: they
// must return a *FormatError or sites that lie inside their sections. The
// seeds are the tiny objects of elfbuild_test.go (one per architecture,
// 32- and 64-bit, with and without an __mcount_loc table: 300 to 700
// bytes), so that mutations reach site discovery instead of spending
// their time on the kilobytes of a compiler's output; the fixtures are
// covered by TestSitesTruncated and TestLoadBudgetKeepsFixtures.
func FuzzLoad(f *testing.F) {
	for _, o := range tinyObjects {
		f.Add(o.buildWith(false))
		f.Add(o.buildWith(true))
	}
	f.Add([]byte("\x7fELF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := NewFile(bytes.NewReader(data), "fuzz.o")
		if err != nil {
			var fe *FormatError
			require.ErrorAs(t, err, &fe)
			require.Equal(t, "fuzz.o", fe.File)
			return
		}
		sites, err := file.Sites()
		if err != nil {
			var fe *FormatError
			require.ErrorAs(t, err, &fe)
			return
		}
		for _, s := range sites {
			require.GreaterOrEqual(t, s.SectionIndex, 0)
			require.Less(t, s.SectionIndex, len(file.Sections))
			sec := file.Sections[s.SectionIndex]
			require.True(t, sec.Executable())
			require.Less(t, s.SectionOffset, sec.Size)
			require.NotEmpty(t, s.Methods)
			require.NotEmpty(t, s.Bytes)
			require.LessOrEqual(t, s.SectionOffset+uint64(len(s.Bytes)), sec.Size)
			require.Equal(t, sec.Data[s.SectionOffset:s.SectionOffset+uint64(len(s.Bytes))], s.Bytes)
		}
	})
}
