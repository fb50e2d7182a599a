package explore_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
)

// FuzzParseSchedule: the schedule parser never panics, and every schedule
// it accepts prints (String) to a text that parses back to the same
// schedule, whose choices are in increasing step order with options >= 1.
func FuzzParseSchedule(f *testing.F) {
	for _, s := range []string{"", "-", "8:2,10:1,14:1", " 1:1 , 2:3 ", "1:1,1:2", "0:1", "3:0", "x", "1:", ":1", "+1:01", "9223372036854775807:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := explore.ParseSchedule(text)
		if err != nil {
			require.NotContains(t, err.Error(), "\n")
			return
		}
		for i, c := range s {
			require.GreaterOrEqual(t, c.Option, 1)
			require.GreaterOrEqual(t, c.Step, 1)
			if i > 0 {
				require.Greater(t, c.Step, s[i-1].Step)
			}
		}
		printed := s.String()
		back, err := explore.ParseSchedule(printed)
		require.NoError(t, err, "%q prints as %q", text, printed)
		require.Equal(t, len(s), len(back))
		if len(s) > 0 {
			require.Equal(t, s, back, "%q prints as %q", text, printed)
		}
		require.Equal(t, printed, back.String())
		require.Equal(t, len(s) == 0, strings.TrimSpace(printed) == "")
	})
}
