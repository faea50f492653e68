package dap

import (
	"fmt"
	"strings"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// An MPI_Datatype variable shows its constructor tree: its children are
// the combiner, the constructor's arguments and its old types, each old
// type a datatype variable again, from the extension's -mpi-type (which
// reads the shim's registry; nothing runs in the program).

// datatypeRef is a datatype's children: -mpi-type's value for it, read
// when the variable was listed (references last until the job runs).
type datatypeRef struct {
	frame frameRef
	value gdbmi.Tuple
}

// datatypeVariable is expr, an MPI_Datatype, as a variable.
func (ss *session) datatypeVariable(f frameRef, name, expr string) dap.Variable {
	dv := dap.Variable{Name: name, Type: "MPI_Datatype", EvaluateName: expr}
	v, err := ss.mpiType(f, expr)
	if err != nil {
		dv.Value = "<" + errText(err) + ">"
		return dv
	}
	dv.Value = v.String("label")
	st := listText(v.Get("state"))
	switch {
	case strings.Contains(st, "freed"):
		// a copy of a handle MPI_Type_free took, as the gdb printer says it
		was := v.String("name")
		if was == "" {
			was = v.String("label")
		}
		dv.Value = "freed datatype (was " + was
		if w := v.Tuple("free-site").String("where"); w != "" {
			dv.Value += ", freed at " + w
		}
		dv.Value += ")"
	case st != "" && !strings.Contains(st, "committed") && v.String("predefined") != "true":
		dv.Value += "  (" + st + ")"
	}
	if v.String("predefined") != "true" && v.String("null") != "true" {
		dv.VariablesReference = ss.refs.add(datatypeRef{frame: f, value: v})
	}
	return dv
}

func (ss *session) mpiType(f frameRef, expr string) (gdbmi.Tuple, error) {
	rec, err := ss.mi("-mpi-type %s %s", f.sel(), quote(expr))
	if err != nil {
		return nil, err
	}
	return rec.Results.Tuple("value"), nil
}

// datatypeChildren lists a datatype's constructor, arguments, old types
// and layout.
func (ss *session) datatypeChildren(r datatypeRef) []dap.Variable {
	v := r.value
	out := []dap.Variable{{Name: "combiner", Value: v.String("combiner")}}
	for _, p := range v.List("params").Values {
		t, _ := p.(gdbmi.Tuple)
		out = append(out, dap.Variable{Name: t.String("name"), Value: valueText(t.Get("value"))})
	}
	olds := v.List("oldtypes").Values
	for i, o := range olds {
		t, _ := o.(gdbmi.Tuple)
		name := "oldtype"
		if len(olds) > 1 {
			name = fmt.Sprintf("oldtypes[%d]", i)
		}
		if t.String("predefined") == "true" {
			out = append(out, dap.Variable{Name: name, Type: "MPI_Datatype", Value: t.String("label")})
			continue
		}
		out = append(out, ss.datatypeVariable(r.frame, name, "(MPI_Datatype)"+t.String("handle")))
	}
	for _, k := range []struct{ key, name string }{{"size", "size"}, {"extent", "extent"}, {"lb", "lb"},
		{"elements", "elements"}, {"handle", "handle"}} {
		if x := v.String(k.key); x != "" {
			out = append(out, dap.Variable{Name: k.name, Value: x})
		}
	}
	if st := listText(v.Get("state")); st != "" {
		out = append(out, dap.Variable{Name: "state", Value: st})
	}
	if w := v.Tuple("site").String("where"); w != "" {
		out = append(out, dap.Variable{Name: "created at", Value: w})
	}
	return out
}

// valueText is an MI value as one line: lists as [a, b, c].
func valueText(v gdbmi.Value) string {
	switch x := v.(type) {
	case gdbmi.Const:
		return string(x)
	case gdbmi.List:
		var parts []string
		for _, e := range x.Values {
			parts = append(parts, valueText(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case gdbmi.Tuple:
		var parts []string
		for _, r := range x {
			parts = append(parts, r.Name+"="+valueText(r.Value))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return ""
}

// listText is a list of words as "a, b".
func listText(v gdbmi.Value) string {
	l, ok := v.(gdbmi.List)
	if !ok {
		c, _ := v.(gdbmi.Const)
		return string(c)
	}
	var parts []string
	for _, e := range l.Values {
		parts = append(parts, valueText(e))
	}
	return strings.Join(parts, ", ")
}
