package explore

import (
	"fmt"
	"strconv"
	"strings"
)

// Choice picks option Option at step Step (1-based: the step it performs).
type Choice struct {
	Step   int
	Option int
}

// Schedule is the list of non-default choices of a run, in step order.
type Schedule []Choice

// String renders s as "step:option,step:option" ("" for the default run).
func (s Schedule) String() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = fmt.Sprintf("%d:%d", c.Step, c.Option)
	}
	return strings.Join(parts, ",")
}

// ParseSchedule parses the String form of a schedule.
func ParseSchedule(text string) (Schedule, error) {
	text = strings.TrimSpace(text)
	if text == "" || text == "-" {
		return nil, nil
	}
	var s Schedule
	last := 0
	for _, tok := range strings.Split(text, ",") {
		a, b, ok := strings.Cut(strings.TrimSpace(tok), ":")
		step, err1 := strconv.Atoi(a)
		opt, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("bad schedule element %q (want step:option)", tok)
		}
		if step <= last || opt < 1 {
			return nil, fmt.Errorf("bad schedule element %q: steps must increase and options be >= 1", tok)
		}
		s = append(s, Choice{Step: step, Option: opt})
		last = step
	}
	return s, nil
}

// fromPath turns a per-step option path into a schedule.
func fromPath(path []int32) Schedule {
	var s Schedule
	for i, o := range path {
		if o != 0 {
			s = append(s, Choice{Step: i + 1, Option: int(o)})
		}
	}
	return s
}
