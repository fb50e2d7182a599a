package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcountsim/mcountsim/explore"
	"github.com/mcountsim/mcountsim/kernel"
	"github.com/mcountsim/mcountsim/patch"
)

func strategy(t testing.TB, arch kernel.Arch, name string) *patch.Strategy {
	t.Helper()
	s, ok := patch.Lookup(arch, name)
	if !ok {
		t.Skipf("no built-in %v strategy %s", arch, name)
	}
	return s
}

// renderHTML checks sc and renders the result.
func renderHTML(t testing.TB, sc explore.Scenario, opts explore.Options) (*explore.Result, string) {
	t.Helper()
	res, err := explore.Check(sc, opts)
	require.NoError(t, err)
	res, err = explore.WithRun(sc, opts, res)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, HTML(&buf, sc, opts, res))
	return res, buf.String()
}

// htmlRow is one row of the rendered timeline.
type htmlRow struct {
	Classes string
	Step    string
	Kind    string
	Cells   []string // text of each cell, tags stripped, entities decoded
}

var (
	rowRE  = regexp.MustCompile(`(?s)<tr id="e\d+" class="([^"]*)" data-step="(\d+)" data-kind="([^"]*)">(.*?)</tr>`)
	cellRE = regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`)
	tagRE  = regexp.MustCompile(`<[^>]*>`)
	dataRE = regexp.MustCompile(`(?s)<script type="application/json" id="mcs-data">(.*?)</script>`)
)

func text(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRE.ReplaceAllString(s, " "))), " ")
}

func rows(page string) []htmlRow {
	var out []htmlRow
	for _, m := range rowRE.FindAllStringSubmatch(page, -1) {
		r := htmlRow{Classes: m[1], Step: m[2], Kind: m[3]}
		for _, c := range cellRE.FindAllStringSubmatch(m[4], -1) {
			r.Cells = append(r.Cells, text(c[1]))
		}
		out = append(out, r)
	}
	return out
}

func pageDataOf(t testing.TB, page string) pageData {
	t.Helper()
	m := dataRE.FindStringSubmatch(page)
	require.NotNil(t, m, "the page embeds its data")
	var d pageData
	require.NoError(t, json.Unmarshal([]byte(m[1]), &d))
	return d
}

// externalRE matches anything that would make the page fetch or link to
// something outside itself.
var externalRE = regexp.MustCompile(`(?i)(https?:|ftp:|file:|data:|\bsrc\s*=|@import|url\(|<link\b|<iframe\b|//[a-z0-9-]+\.[a-z]{2,})`)

// Acceptance 1: the ARM nop-nop counterexample, with every lane, the
// preemption, both patch writes and the hazard, in one self-contained file.
func TestHTMLNopNop(t *testing.T) {
	sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "nop-nop")}
	res, page := renderHTML(t, sc, explore.Options{Bound: explore.DefaultBound})
	require.Equal(t, explore.Unsafe, res.Verdict)
	plain := text(page)

	assert.Empty(t, externalRE.FindAllString(page, -1), "the page refers to nothing outside itself")
	assert.Contains(t, page, "<!DOCTYPE html>")
	assert.Contains(t, page, "<style>")
	assert.Contains(t, page, `<script>`)
	assert.Contains(t, plain, "mcountsim arm nop-nop UNSAFE")
	assert.Contains(t, plain, `mcountsim replay --arch arm --strategy nop-nop --schedule "`+res.Schedule+`"`)

	// A lane per CPU and per task.
	for _, lane := range []string{"cpu0", "cpu1", "worker0", "worker1", "patcher"} {
		assert.Regexp(t, `<th class="lane lane-(cpu|task)[^"]*">`+lane+`</th>`, page, "lane %s", lane)
	}

	rs := rows(page)
	require.Len(t, rs, len(res.Replay.Trace), "one row per event")
	const (
		colW0     = 4
		colW1     = 5
		colPatch  = 6
		wantCells = 7
	)
	var preempt, push, bl, hazard, siteNop, siteBL, stopSpan *htmlRow
	for i := range rs {
		r := &rs[i]
		require.Len(t, r.Cells, wantCells, "row %d", i)
		switch {
		case r.Kind == "preempt":
			preempt = r
		case r.Kind == "store" && strings.Contains(r.Cells[colPatch], "e52de004 (push {lr})"):
			push = r
		case r.Kind == "store" && strings.Contains(r.Cells[colPatch], "eb000002 (bl 0x8038)"):
			bl = r
		case r.Kind == "hazard" && hazard == nil:
			hazard = r
		case r.Kind == "exec" && strings.Contains(r.Classes, "explained") && strings.Contains(r.Cells[colW0], "mov r0, r0"):
			siteNop = r
		case r.Kind == "exec" && strings.Contains(r.Classes, "explained") && strings.Contains(r.Cells[colW0], "bl 0x8038"):
			siteBL = r
		}
		if strings.HasPrefix(r.Cells[colPatch], "stop_machine patch enable #1: stop_machine() called") && stopSpan == nil {
			stopSpan = r
		}
	}

	// The preemption: worker0 on cpu0, between the two site words.
	require.NotNil(t, preempt, "a preemption row")
	assert.Contains(t, preempt.Classes, "preempt")
	assert.Contains(t, preempt.Cells[colW0], "preempted")
	assert.Contains(t, preempt.Cells[colW0], "f0+0x8")
	assert.Regexp(t, `timer interrupt|by its stopper`, preempt.Cells[colW0])

	// Both patch writes, on the patcher's lane, inside the stop_machine span.
	require.NotNil(t, push, "the write of push {lr}")
	require.NotNil(t, bl, "the write of bl")
	assert.Contains(t, push.Cells[colPatch], "write #3")
	assert.Contains(t, push.Cells[colPatch], "f0+0x4")
	assert.Contains(t, bl.Cells[colPatch], "write #4")
	assert.Contains(t, bl.Cells[colPatch], "f0+0x8")
	assert.Contains(t, bl.Classes, "culprit", "the task executed the bl this write put there")
	assert.NotContains(t, push.Classes, "culprit", "the task never executed the push")
	require.NotNil(t, stopSpan, "the stop_machine span is labelled")
	assert.Less(t, atoi(stopSpan.Step), atoi(push.Step))
	assert.Less(t, atoi(preempt.Step), atoi(push.Step))
	assert.Regexp(t, `<td class="st-[a-z]+ span span-stop span-start has-ev"><span class="span-label">stop_machine</span>`, page)
	// Both CPUs spin in their stoppers while the words are written.
	assert.Contains(t, page, `<td class="band c-stopper"><span class="band-label">stopper</span>`)
	assert.Regexp(t, `data-step="`+push.Step+`" data-kind="store">\s*<td class="col-step">`+push.Step+`</td><td class="col-cpu">cpu\d</td>\s*<td class="band c-stopper">\s*</td>\s*<td class="band c-stopper">`, page)
	for _, cpu := range []string{"cpu0", "cpu1"} {
		assert.Contains(t, plain, cpu+" enters its stopper")
	}

	// The site words the task executed, with their writers.
	require.NotNil(t, siteNop)
	require.NotNil(t, siteBL)
	assert.Contains(t, siteNop.Cells[colW0], "f0+0x4 0x8024 e1a00000 mov r0, r0")
	assert.Contains(t, siteNop.Cells[colW0], "site word +0 ← write #1 at boot (nops form)")
	assert.Contains(t, siteBL.Cells[colW0], "site word +4 ← write #4 at step "+bl.Step)
	assert.Less(t, atoi(siteNop.Step), atoi(preempt.Step))
	assert.Greater(t, atoi(siteBL.Step), atoi(bl.Step))

	// The hazard, highlighted, and its explanation.
	require.NotNil(t, hazard)
	assert.Contains(t, hazard.Classes, "first-hazard")
	assert.Contains(t, hazard.Cells[colW0], "HAZARD foreign-slot")
	assert.Contains(t, hazard.Cells[colW0], "__gnu_mcount_nc+0x14")
	assert.Contains(t, hazard.Cells[colW0], "written from r4")
	assert.Equal(t, res.Hazard.Step, atoi(hazard.Step))
	section := text(between(page, `<section id="hazard"`, `</section>`) + between(page, `<section id="explanation"`, `</section>`))
	h0, h1 := res.Hazards[0], res.Hazards[1]
	assert.Contains(t, section, fmt.Sprintf("foreign-slot at step %d on cpu%d, worker0, pc 0x804c <__gnu_mcount_nc+0x14>", h0.Step, h0.CPU))
	assert.Contains(t, section, fmt.Sprintf("bad-return at step %d", h1.Step))
	assert.Contains(t, section, "a combination the site never held")
	nop, call := res.Replay.Explanation[0].Insns[0], res.Replay.Explanation[0].Insns[1]
	assert.Contains(t, section, fmt.Sprintf("step %d cpu%d +0 e1a00000 mov r0, r0 write #1 at boot (nops form)", nop.Step, nop.CPU))
	assert.Contains(t, section, fmt.Sprintf("step %d cpu%d +4 eb000002 bl 0x8038 <__gnu_mcount_nc> write #4 at step %s on cpu%d (enable #1, enabled form)",
		call.Step, call.CPU, bl.Step, call.Writer.CPU))
	assert.Contains(t, section, fmt.Sprintf("write #4 at step %s on cpu%d (enable #1): f0+0x8 ← eb000002 (bl 0x8038) executed by the task", bl.Step, call.Writer.CPU))
	for _, ev := range res.Replay.Explanation[0].During {
		want := fmt.Sprintf("step %d ", ev.Step)
		if ev.CPU >= 0 {
			want += fmt.Sprintf("cpu%d ", ev.CPU)
		}
		assert.Contains(t, section, want+strings.Join(strings.Fields(ev.Text), " "), "what happened while the task sat in the site")
	}

	// The data the step controls use.
	d := pageDataOf(t, page)
	assert.Equal(t, h0.Step, d.FirstHazard)
	var hazardSteps []int
	for _, h := range res.Hazards {
		hazardSteps = append(hazardSteps, h.Step)
	}
	assert.Equal(t, hazardSteps, d.HazardSteps)
	assert.Equal(t, []string{"worker0", "worker1", "patcher"}, d.Tasks)
	require.Len(t, d.States, len(d.Steps))
	assert.Equal(t, res.Replay.Steps, d.Steps[len(d.Steps)-1])
	at := func(step int) stepState {
		for i, s := range d.Steps {
			if s == step {
				return d.States[i]
			}
		}
		t.Fatalf("no state for step %d", step)
		return stepState{}
	}
	assert.Equal(t, "e1a00000 (mov r0, r0)", at(nop.Step).Sites[0].Bytes, "before the patch the site holds the nops")
	assert.Equal(t, "preempted", at(atoi(preempt.Step)).Tasks[0].State)
	assert.Equal(t, []string{"stopper", "stopper"}, at(atoi(push.Step)).CPUs)
	assert.True(t, at(atoi(bl.Step)).Sites[1].Changed, "the bl is written at its step")
	assert.False(t, at(atoi(bl.Step)).Sites[0].Changed)
	assert.Equal(t, "eb000002 (bl 0x8038)", at(atoi(bl.Step)).Sites[1].Bytes)
	assert.Equal(t, "write #4, step "+bl.Step+" (enable #1)", at(atoi(bl.Step)).Sites[1].Writer)
	assert.Contains(t, at(h0.Step).Summary, "foreign-slot")
}

// A SAFE check has no counterexample: the page shows one representative
// schedule and says so.
func TestHTMLSafe(t *testing.T) {
	sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "jmp-over")}
	res, page := renderHTML(t, sc, explore.Options{Bound: 1})
	require.Equal(t, explore.Safe, res.Verdict)
	assert.True(t, res.Representative, "explore.WithRun attached a representative run")
	plain := text(page)
	assert.Contains(t, plain, "mcountsim arm jmp-over SAFE")
	assert.Contains(t, plain, "one representative schedule")
	assert.Contains(t, plain, "No hazard in this run")
	assert.Contains(t, page, `id="btn-hazard" title="next hazard (h)" disabled`)
	assert.Empty(t, externalRE.FindAllString(page, -1))
	rs := rows(page)
	require.NotEmpty(t, rs)
	var writes, exits int
	for _, r := range rs {
		switch r.Kind {
		case "store":
			writes++
		case "exit":
			exits++
		case "hazard":
			t.Errorf("a hazard row in a SAFE page: %v", r.Cells)
		}
	}
	assert.Equal(t, 2, writes, "enable and disable each write the first word")
	assert.Equal(t, 3, exits, "both workers and the patcher exit")
	d := pageDataOf(t, page)
	assert.Zero(t, d.FirstHazard)
	assert.Empty(t, d.HazardSteps)
}

// A replayed schedule, and a result whose run has no machine, render the
// same run.
func TestHTMLReplayAndDecoded(t *testing.T) {
	sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "two-step-sched")}
	opts := explore.Options{Bound: 2}
	res, page := renderHTML(t, sc, opts)
	require.Equal(t, explore.Unsafe, res.Verdict)
	assert.Regexp(t, `span-label">synchronize_sched\(\)</span>`, page, "the grace period is a span")

	rep, err := explore.Replay(sc, res.Schedule, opts)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, HTML(&buf, sc, opts, rep))
	replayed := buf.String()
	assert.Contains(t, text(replayed), "UNSAFE: the schedule reaches a hazard")
	assert.Equal(t, len(rows(page)), len(rows(replayed)))

	// A result whose run lost what is drawn (json:"-") is not drawn as it
	// is; explore.WithRun replays it.
	stripped := *res
	run := *res.Replay
	run.Image, run.Writes, run.Describe = nil, nil, nil
	stripped.Replay = &run
	buf.Reset()
	require.Error(t, HTML(&buf, sc, opts, &stripped))
	again, err := explore.WithRun(sc, opts, &stripped)
	require.NoError(t, err)
	require.NoError(t, HTML(&buf, sc, opts, again))
	assert.Equal(t, len(rows(page)), len(rows(buf.String())))
	assert.Equal(t, pageDataOf(t, page).HazardSteps, pageDataOf(t, buf.String()).HazardSteps)
}

func TestHTMLX86(t *testing.T) {
	sc := explore.Scenario{Strategy: strategy(t, kernel.X86, "plain-write")}
	_, page := renderHTML(t, sc, explore.Options{Bound: 1})
	assert.Empty(t, externalRE.FindAllString(page, -1))
	assert.NotEmpty(t, rows(page))
}

func TestHTMLErrors(t *testing.T) {
	var buf bytes.Buffer
	assert.Error(t, HTML(&buf, explore.Scenario{}, explore.Options{}, nil))
	sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "nop-nop")}
	bad := &explore.Result{Mode: "replay", Verdict: explore.Unsafe, Schedule: "99999:1"}
	assert.Error(t, HTML(&buf, sc, explore.Options{}, bad), "a result without its run")
	_, err := explore.WithRun(sc, explore.Options{}, bad)
	assert.ErrorIs(t, err, explore.ErrSchedule)
}

func TestReplayCommand(t *testing.T) {
	st := strategy(t, kernel.ARM, "nop-nop")
	assert.Equal(t, `mcountsim replay --arch arm --strategy nop-nop --schedule "8:2,14:1"`,
		ReplayCommand(explore.Scenario{Strategy: st}, explore.Options{Bound: 2}, "8:2,14:1"))
	assert.Equal(t, `mcountsim replay --arch arm --strategy nop-nop --tasks 3 --bound 1 --strict --schedule ""`,
		ReplayCommand(explore.Scenario{Strategy: st, Tasks: 3, Strict: true}, explore.Options{Bound: 1}, ""))
}

func cellsOfStep(rs []htmlRow, step string, col int) []string {
	var out []string
	for _, r := range rs {
		if r.Step == step {
			out = append(out, r.Cells[col])
		}
	}
	return out
}

func between(s, from, to string) string {
	i := strings.Index(s, from)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], to)
	if j < 0 {
		return s[i:]
	}
	return s[i : i+j]
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// Issue 14, point 6: the stack panel's data. nop-nop's worker0 stored
// 0x7f0000e8 from r4 with f0's push {r4, lr} at step 6, and the trampoline's
// ldr lr, [sp, #4] at the hazard loaded it expecting a saved return
// address; the idle worker1's lane is collapsed.
func TestHTMLStackPanelData(t *testing.T) {
	sc := explore.Scenario{Strategy: strategy(t, kernel.ARM, "nop-nop")}
	res, page := renderHTML(t, sc, explore.Options{})
	d := pageDataOf(t, page)
	assert.Equal(t, 0, d.StackTask, "the panel opens on the hazard's task")
	assert.Contains(t, d.Stack, stackView{Step: 6, Task: 0, Addr: "0x7f0000e8", Value: "00000000", Source: "written from r4", Insn: "f0: push {r4, lr}"})
	assert.Contains(t, d.Stack, stackView{Step: 6, Task: 0, Addr: "0x7f0000ec", Value: "00008010", Source: "written from lr", Insn: "f0: push {r4, lr}"})
	for _, w := range d.Stack {
		assert.LessOrEqual(t, w.Step, res.Steps)
	}
	require.Len(t, d.Expected, 2, "foreign-slot and bad-return name a slot")
	assert.Equal(t, expectedSlot{Step: res.Hazard.Step, Task: 0, Addr: "0x7f0000e8",
		Note: "__gnu_mcount_nc+0x14 at step 23: worker0 loaded this slot expecting a saved return address (foreign-slot)"}, d.Expected[0])
	assert.Equal(t, "0x7f0000f0", d.Expected[1].Addr)
	assert.Regexp(t, `<th class="lane lane-task c-w1 lane-idle">worker1</th>`, page)
	assert.Regexp(t, `<th class="lane lane-task c-w0">worker0</th>`, page)
	assert.Contains(t, page, `<section id="stack" data-task="">`)
}

// A fetch through a stale view of text is marked on the page, with what the
// CPU may still see and when it last synchronized (model.md §1a).
func TestHTMLStaleView(t *testing.T) {
	// text_poke_bp without its second sync_core: a CPU that synchronized
	// on the int3 may still fetch old bytes 1-4 behind the new byte 0.
	st, err := patch.ParseFile("tpb.strategy", strings.NewReader(`strategy no-second-sync
arch x86
state enabled=enabled disabled=nop5
form enabled 0: call ftrace_caller
form nop5 0: nop5
form int3 0: int3
boot nop5
enable bp_on enabled
enable write int3
enable sync_core
enable write enabled@0[1:5]
enable write enabled@0[0:1]
enable sync_core
enable bp_off
disable bp_on nop5
disable write int3
disable sync_core
disable write nop5@0[1:5]
disable write nop5@0[0:1]
disable sync_core
disable bp_off
`))
	require.NoError(t, err)
	res, page := renderHTML(t, explore.Scenario{Strategy: st.Strategy}, explore.Options{})
	require.Equal(t, explore.Unsafe, res.Verdict)
	require.Equal(t, "torn-fetch", res.Hazard.Kind.String())
	assert.True(t, strings.Contains(page, `class="stale`) || strings.Contains(page, ` stale"`) || strings.Contains(page, ` stale `), "a stale row is marked")
	assert.Regexp(t, `stale fetch: cpu\d&#39;s view of text is stale \(last synchronized at step \d+: [^)]*\); it fetched`, page)
}
