package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/pretty"
	"github.com/spf13/pflag"
)

var explainCommand = &command{
	name:    "explain",
	args:    "[ID | CATEGORY]",
	summary: "document a kind of finding, or list them all",
	about: `With a finding id (as reports show it, e.g. type-not-committed), prints
its catalogue entry: title, category, severity, the MPI rule it enforces
and what to do about it. With a category (e.g. leak), lists that
category's ids; without an argument, lists every id, grouped by category.

Reports already speak the language of the code a finding points at.
--lang does the same here: fortran names the datatypes as a Fortran
program does (MPI_INTEGER for MPI_INT) and writes element paths in
Fortran form, indices from 1; python names MPI's constants as mpi4py
does (MPI.INT). Code examples stay in C.

Examples:
  mpidbg explain
  mpidbg explain type-not-committed
  mpidbg explain --lang fortran type-mismatch
  mpidbg explain leak`,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error {
		lang := fs.String("lang", "c", "spell MPI's names and element paths as `LANG` programs do: c, c++, fortran or python")
		return func(o *output, args []string) error {
			l, err := checks.ParseLanguage(*lang)
			if err != nil {
				return &usageError{cmd: "explain", msg: err.Error(), hint: true}
			}
			r := pretty.New(o.stdout, o.color) // the terminal's width; the text goes through o.out()
			switch {
			case len(args) > 1:
				return &usageError{cmd: "explain", msg: fmt.Sprintf("want at most one id, got %d arguments", len(args)), hint: true}
			case len(args) == 0:
				fmt.Fprintln(o.out(), r.Catalogue(in(checks.All(), l)))
				fmt.Fprintf(o.out(), "\nRun '%s' for one finding's rule and documentation.\n", l.ExplainCommand("ID"))
				return nil
			}
			id := strings.ToLower(strings.TrimSpace(args[0]))
			if e, ok := checks.Lookup(id); ok {
				fmt.Fprintln(o.out(), r.Entry(e.In(l)))
				return nil
			}
			var inCat []checks.Entry
			for _, e := range checks.All() {
				if string(e.Category) == id {
					inCat = append(inCat, e)
				}
			}
			if len(inCat) > 0 {
				fmt.Fprintln(o.out(), r.Catalogue(in(inCat, l)))
				return nil
			}
			msg := fmt.Sprintf("unknown finding id %q", args[0])
			if c := closest(id, allIDs()); len(c) > 0 {
				msg += "; did you mean " + strings.Join(c, ", ") + "?"
			}
			return &usageError{cmd: "explain", msg: msg, detail: "Run 'mpidbg explain' for the list."}
		}
	},
}

// in spells entries in language l.
func in(es []checks.Entry, l checks.Language) []checks.Entry {
	for i := range es {
		es[i] = es[i].In(l)
	}
	return es
}

func allIDs() []string {
	var ids []string
	for _, e := range checks.All() {
		ids = append(ids, e.ID)
	}
	for _, c := range checks.Categories {
		ids = append(ids, string(c))
	}
	return ids
}

// closest returns up to three candidates nearest to s: those it begins,
// those containing it or contained in it, and those within an edit
// distance of a third of its length (at least 2), nearest first.
func closest(s string, candidates []string) []string {
	type scored struct {
		id string
		d  int
	}
	var found []scored
	limit := max(2, len(s)/3)
	for _, c := range candidates {
		d := editDistance(s, c)
		switch {
		case len(s) >= 3 && strings.HasPrefix(c, s):
			d = 0
		case len(s) >= 3 && (strings.Contains(c, s) || strings.Contains(s, c) && len(c) >= 4):
			d = min(d, limit)
		}
		if d <= limit {
			found = append(found, scored{c, d})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return a.d - b.d })
	var out []string
	for _, f := range found[:min(3, len(found))] {
		out = append(out, f.id)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
