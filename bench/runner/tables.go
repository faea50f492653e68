package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// account says how to turn a result into per-call costs.
type account struct {
	// calls is how many wrapped MPI calls lie on the measured path per
	// reported unit: a one-way ping-pong trip is one send and one
	// receive; a message of the rate test is one Isend and one Irecv
	// (the Waitalls are shared by 64 messages); a collective is one call
	// on each rank. 0: not meaningful (the halo mixes computation in).
	calls float64
	// ops is how many messages, collectives or iterations (op) one unit
	// holds.
	ops float64
	op  string
}

// accountOf returns the account of a result by its RESULT name.
func accountOf(name string) (account, bool) {
	switch {
	case name == "pingpong_8B_one_way", strings.HasPrefix(name, "msgrate") && strings.HasSuffix(name, "_8B_per_message"):
		return account{2, 1, "message"}, true
	case strings.HasPrefix(name, "collbench_"):
		return account{1, 1, "collective"}, true
	case strings.HasPrefix(name, "halo3d") && strings.HasSuffix(name, "_iteration"):
		return account{0, 1, "iteration"}, true
	case strings.HasPrefix(name, "rma_") && strings.HasSuffix(name, "_round"):
		return account{0, 1, "round"}, true
	case strings.HasPrefix(name, "waitany_") && strings.HasSuffix(name, "_per_completion"):
		return account{1, 1, "completion"}, true
	case strings.HasPrefix(name, "testany_") && strings.HasSuffix(name, "_per_completion"):
		return account{0, 1, "completion"}, true // polls between completions vary
	}
	return account{}, false
}

// layers prints every result in the four layered modes with ratios.
func layers(w io.Writer, list []*series) {
	fmt.Fprintln(w, "Modes: native = mpiexec alone; local = mpidbg run --checks "+crossRank+","+races+" (local checks only);")
	fmt.Fprintln(w, "cross = mpidbg run --checks "+races+" (race detection off); all = mpidbg run (the default checks, races on).")
	fmt.Fprintln(w)
	t := table{header: []string{"benchmark", "native", "local", "cross", "all", "local/native", "cross/local", "all/cross (races)", "all/native"},
		right: 1}
	for _, s := range list {
		med := s.medians()
		t.rows = append(t.rows, []string{s.key, cell(s.samples[native.name], s.unit), cell(s.samples[local.name], s.unit),
			cell(s.samples[cross.name], s.unit), cell(s.samples[all.name], s.unit),
			ratio(med[local.name], med[native.name]), ratio(med[cross.name], med[local.name]),
			ratio(med[all.name], med[cross.name]), ratio(med[all.name], med[native.name])})
	}
	t.print(w)
}

// added prints the time each layer adds, per MPI call and per op.
func added(w io.Writer, list []*series) {
	fmt.Fprintln(w, "Added time: shim = local − native (the local checks and the wrappers); cross-rank = cross − local")
	fmt.Fprintln(w, "(shadow messages, collective agreement); races = all − cross (the access tracker); all = all − native;")
	fmt.Fprintln(w, "per wrapped MPI call on the measured path (where that count is known) and per message, collective or iteration.")
	fmt.Fprintln(w)
	t := table{header: []string{"benchmark", "per", "shim per MPI call", "shim per op", "cross-rank per op", "races per op", "all per op"}, right: 2}
	for _, s := range list {
		a, ok := accountOf(s.name)
		scale, known := nanoseconds(s.unit)
		if !ok || !known {
			continue
		}
		med := s.medians()
		shim := (med[local.name] - med[native.name]) * scale
		xr := (med[cross.name] - med[local.name]) * scale
		rc := (med[all.name] - med[cross.name]) * scale
		perCall := "-"
		if a.calls > 0 {
			perCall = duration(shim / a.calls)
		}
		t.rows = append(t.rows, []string{s.key, a.op, perCall, duration(shim / a.ops), duration(xr / a.ops), duration(rc / a.ops),
			duration((med[all.name] - med[native.name]) * scale / a.ops)})
	}
	t.print(w)
}

// breakdownTable prints, for every breakdown result, "all" and "all
// without X" for every category X as a ratio to native, and what X costs:
// all − (all without X), per op.
func breakdownTable(w io.Writer, list []*series, categories []string) {
	var rows []*series
	for _, s := range list {
		if s.breakdown {
			rows = append(rows, s)
		}
	}
	if len(rows) == 0 || len(categories) == 0 {
		return
	}
	fmt.Fprintln(w, "Per-category breakdown: \"without X\" = mpidbg run --checks -X (every other default check on), as a ratio")
	fmt.Fprintln(w, "to native / the time X costs per op (all − all without X; negative: within the noise). A category with")
	fmt.Fprintln(w, "no checks on the program's path shows about the ratio of \"all\" and a cost near 0. Categories that")
	fmt.Fprintln(w, "share machinery (the four cross-rank ones share the shadow messages) each show only what is theirs alone:")
	fmt.Fprintln(w, "the layers above say what the groups cost.")
	fmt.Fprintln(w)
	fmt.Fprint(w, breakdownMarkdown(rows, categories))
	fmt.Fprintln(w)
}

// breakdownMarkdown is the breakdown table itself.
func breakdownMarkdown(rows []*series, categories []string) string {
	t := table{header: []string{"benchmark", "native", "all"}, right: 1}
	for _, c := range categories {
		t.header = append(t.header, "without "+c)
	}
	for _, s := range rows {
		med := s.medians()
		scale, _ := nanoseconds(s.unit)
		ops := 1.0
		if a, ok := accountOf(s.name); ok {
			ops = a.ops
		}
		row := []string{s.key, num(med[native.name]) + " " + s.unit,
			ratio(med[all.name], med[native.name]) + ", " + cell(s.samples[all.name], s.unit)}
		for _, c := range categories {
			v, ok := s.samples[without(c).name]
			if !ok {
				row = append(row, "-")
				continue
			}
			m := median(v)
			cost := "-"
			if scale > 0 {
				cost = duration((med[all.name] - m) * scale / ops)
			}
			row = append(row, ratio(m, med[native.name])+" / "+cost)
		}
		t.rows = append(t.rows, row)
	}
	var b strings.Builder
	t.print(&b)
	return b.String()
}

// table is a Markdown table; columns from right on are right-aligned.
type table struct {
	header []string
	right  int
	rows   [][]string
}

func (t table) print(w io.Writer) {
	fmt.Fprintln(w, "| "+strings.Join(t.header, " | ")+" |")
	sep := make([]string, len(t.header))
	for i := range sep {
		sep[i] = "---"
		if i >= t.right {
			sep[i] = "---:"
		}
	}
	fmt.Fprintln(w, "|"+strings.Join(sep, "|")+"|")
	for _, r := range t.rows {
		fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
	}
	fmt.Fprintln(w)
}

// medians by mode name; NaN for a layer the series has no samples of.
func (s *series) medians() map[string]float64 {
	m := map[string]float64{}
	for _, l := range []mode{native, local, cross, all} {
		m[l.name] = math.NaN()
	}
	for k, v := range s.samples {
		m[k] = median(v)
	}
	return m
}

func nanoseconds(unit string) (float64, bool) {
	switch unit {
	case "ns":
		return 1, true
	case "us":
		return 1e3, true
	case "ms":
		return 1e6, true
	}
	return 0, false
}

// duration formats a time in nanoseconds in the unit that suits it.
func duration(ns float64) string {
	a := math.Abs(ns)
	switch {
	case math.IsNaN(ns):
		return "-"
	case a < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case a < 1e4:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	case a < 1e6:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	}
	return fmt.Sprintf("%.2f ms", ns/1e6)
}

// cell is a median with its unit and the range of the samples.
func cell(v []float64, unit string) string {
	if len(v) == 0 {
		return "-"
	}
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%s %s [%s-%s]", num(median(v)), unit, num(lo), num(hi))
}

func num(x float64) string {
	if x >= 100 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'f', 1, 64)
}

func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

// median of v; NaN for none, so that a missing mode shows as "-".
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
