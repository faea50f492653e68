// Package ranklist reads and writes lists of MPI ranks such as "0,2-3":
// comma-separated items, each a rank ("7"), a run of consecutive ranks
// ("0-99") or, in the wire form, a run with a step ("0-98:2"). Every Go
// reader and writer of such lists uses it: a launch configuration's
// "ranks" (package dap), the wire's sets of ranks (package wire), and
// the reports' lists (run/report, checks/deadlock).
//
// The forms differ only in what they allow, so that each keeps the
// behaviour its users rely on: a launch configuration is typed by hand
// and may have blanks around items, and the VS Code extension checks it
// with its own copy of the grammar (extensions/vscode/src/config.js),
// held to the same cases as this package by testdata/ranklists.json; the
// wire form has steps, which a person rarely writes.
package ranklist

import (
	"slices"
	"strconv"
	"strings"
)

// Form is one way of writing rank lists.
type Form struct {
	Steps  bool   // runs with a step, "0-98:2"
	Blanks bool   // blanks around items when reading: "0, 2-3"
	Sep    string // between items when writing; "" is ","
	NoRuns bool   // write every rank: no item is a run
}

var (
	// Launch is a launch configuration's "ranks": "0,2-3", "0, 2-3".
	Launch = Form{Blanks: true}
	// Compact is how mpidbg run's report lists ranks: "0,2,5-7".
	Compact = Form{}
	// Prose is a list of ranks in a sentence: "0, 2, 5-7".
	Prose = Form{Sep: ", "}
	// Wire is the wire's form of a set of ranks: "0-3,7,10-20:2".
	Wire = Form{Steps: true}
	// Expanded writes every rank, "0,1,2,3": what the shim reads from
	// MPIDBG_DEBUGGER_RANKS, so that its C reader needs no runs.
	Expanded = Form{NoRuns: true}
)

// Run is the ranks First, First+Step, ... up to Last.
type Run struct{ First, Last, Step int }

// Len is the number of ranks in r.
func (r Run) Len() int { return (r.Last-r.First)/r.Step + 1 }

// ItemError is an item of a list that is not a rank or a run. Item is
// the item as written, blanks included.
type ItemError struct{ Item string }

func (e *ItemError) Error() string {
	return strconv.Quote(e.Item) + " is not a rank or a run such as 2-3"
}

// Parse reads a list in form f: its runs, in the list's order (not
// sorted; a rank may be in several). An empty list has none. On an item
// that is not a rank or a run, it returns the runs before it and an
// *ItemError.
func Parse(s string, f Form) ([]Run, error) {
	if s == "" {
		return nil, nil
	}
	var out []Run
	for _, item := range strings.Split(s, ",") {
		text := item
		if f.Blanks {
			text = strings.TrimSpace(text)
		}
		lo, hi, step := text, text, "1"
		if a, b, ok := strings.Cut(text, "-"); ok {
			lo, hi = a, b
			if h, st, ok := strings.Cut(b, ":"); ok && f.Steps {
				hi, step = h, st
			}
		}
		a, err1 := strconv.Atoi(lo)
		z, err2 := strconv.Atoi(hi)
		d, err3 := strconv.Atoi(step)
		if err1 != nil || err2 != nil || err3 != nil || a < 0 || z < a || d < 1 {
			return out, &ItemError{Item: item}
		}
		out = append(out, Run{First: a, Last: z, Step: d})
	}
	return out, nil
}

// Fold groups ranks, in the order given (sorted, for the shortest
// list), into the runs form f writes: three ranks or more evenly
// spaced (by one, or with f.Steps by any step) are a run; any other rank
// is a run of its own.
func Fold(ranks []int, f Form) []Run {
	var out []Run
	for i := 0; i < len(ranks); {
		j := i + 1 // ranks[i:j] is a run
		step := 0
		if j < len(ranks) && !f.NoRuns {
			step = ranks[j] - ranks[i]
			if step == 1 || (f.Steps && step > 1) {
				for j+1 < len(ranks) && ranks[j+1]-ranks[j] == step {
					j++
				}
				j++
			}
		}
		if j-i < 3 {
			j = i + 1 // two ranks: one alone, the next may start a run
			step = 1
		}
		out = append(out, Run{First: ranks[i], Last: ranks[j-1], Step: step})
		i = j
	}
	return out
}

// Items appends r as items: "a-b" (or "a-b:s") for three ranks or more,
// else each rank on its own.
func (r Run) Items(dst []string) []string {
	switch n := r.Len(); {
	case n >= 3 && r.Step == 1:
		return append(dst, strconv.Itoa(r.First)+"-"+strconv.Itoa(r.Last))
	case n >= 3:
		return append(dst, strconv.Itoa(r.First)+"-"+strconv.Itoa(r.Last)+":"+strconv.Itoa(r.Step))
	}
	for x := r.First; x <= r.Last; x += r.Step {
		dst = append(dst, strconv.Itoa(x))
	}
	return dst
}

// Format writes ranks, in the order given, in form f.
func Format(ranks []int, f Form) string {
	var items []string
	for _, r := range Fold(ranks, f) {
		items = r.Items(items)
	}
	sep := f.Sep
	if sep == "" {
		sep = ","
	}
	return strings.Join(items, sep)
}

// Set writes a set of ranks in the Compact form, sorted and without
// repeats: [5 0 2 6 7 2] is "0,2,5-7".
func Set(ranks []int) string {
	rs := slices.Clone(ranks)
	slices.Sort(rs)
	return Format(slices.Compact(rs), Compact)
}

// Phrase names a set of ranks in a sentence: "rank 3" for one rank,
// "ranks 0-63" for several.
func Phrase(ranks []int) string {
	s := Set(ranks)
	if !strings.ContainsAny(s, ",-") {
		return "rank " + s
	}
	return "ranks " + s
}
