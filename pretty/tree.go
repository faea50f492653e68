package pretty

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss/tree"
	"github.com/mpidbg/mpidbg/datatype"
)

// MetaTree draws a constructor tree, one line per datatype handle:
//
//	s_type  STRUCT count=2 blocklengths=[1,3] displacements=[0,8]  size 16 extent 24
//	├── [0] 1 x at +0 → INT  size 4 extent 4
//	└── [1] 3 x at +8 → CHAR  size 1 extent 1
func (r *Renderer) MetaTree(n *datatype.Node) string {
	return r.draw(n, func(n *datatype.Node, root bool) string {
		if root || n.Edge == "" {
			return r.TypeLabel(n.Type)
		}
		return r.dim.Render(n.Edge+" →") + " " + r.TypeLabel(n.Type)
	})
}

// ExpandedTree draws an instance tree: the root type, then one line per
// instance with the indices that choose it, its byte offset from the
// buffer start and its type.
//
//	s_type  STRUCT ...
//	├── [1][0] +0  INT
//	└── [2][0] +8  CHAR
func (r *Renderer) ExpandedTree(n *datatype.Node) string {
	return r.draw(n, func(n *datatype.Node, root bool) string {
		if root {
			return r.TypeLabel(n.Type)
		}
		var b strings.Builder
		for _, i := range n.Index {
			fmt.Fprintf(&b, "[%d]", i)
		}
		return b.String() + " " + r.num.Render(fmt.Sprintf("%+d", n.Offset)) + "  " + r.TypeName(n.Type)
	})
}

// draw builds the lipgloss tree of n with label for each node.
func (r *Renderer) draw(n *datatype.Node, label func(n *datatype.Node, root bool) string) string {
	t := r.subtree(n, true, label)
	t.EnumeratorStyle(r.indent).
		RootStyle(r.lg.NewStyle()).
		ItemStyle(r.lg.NewStyle())
	return t.String()
}

func (r *Renderer) subtree(n *datatype.Node, root bool, label func(n *datatype.Node, root bool) string) *tree.Tree {
	t := tree.Root(label(n, root))
	for _, c := range n.Children {
		if len(c.Children) == 0 && c.More == 0 {
			t.Child(label(c, false))
			continue
		}
		t.Child(r.subtree(c, false, label))
	}
	if n.More > 0 {
		t.Child(r.dim.Render(fmt.Sprintf("… %d more", n.More)))
	}
	return t
}

// TypeLabel is one line about a type: its name, constructor and arguments,
// size, extent and, when not zero, lower bound.
//
//	s_type  STRUCT count=2 blocklengths=[1,3] displacements=[0,8]  size 16 extent 24 lb -4
func (r *Renderer) TypeLabel(t *datatype.Type) string {
	var b strings.Builder
	switch {
	case t.IsPredefined():
		b.WriteString(r.comb.Render(t.Name))
	case t.Name != "":
		b.WriteString(r.name.Render(t.Name) + "  " + r.comb.Render(t.Combiner.String()))
	default:
		b.WriteString(r.comb.Render(t.Combiner.String()))
	}
	if a := t.Args(); a != "" {
		b.WriteString(" " + a)
	}
	b.WriteString(r.dim.Render("  size ") + r.num.Render(fmt.Sprint(t.TypeSize())) +
		r.dim.Render(" extent ") + r.num.Render(fmt.Sprint(t.Extent())))
	if t.LB() != 0 {
		b.WriteString(r.dim.Render(" lb ") + r.num.Render(fmt.Sprint(t.LB())))
	}
	return b.String()
}

// TypeName names a type as a path step does: "s_type(STRUCT)", "VECTOR"
// for an unnamed derived type, "INT" for a predefined one.
func (r *Renderer) TypeName(t *datatype.Type) string {
	switch {
	case t.IsPredefined():
		return r.comb.Render(t.Name)
	case t.Name != "":
		return r.name.Render(t.Name) + "(" + r.comb.Render(t.Combiner.String()) + ")"
	}
	return r.comb.Render(t.Combiner.String())
}
