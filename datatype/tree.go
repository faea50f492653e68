package datatype

import (
	"fmt"
	"strings"
)

// Node is one node of a type tree. Trees are data; package pretty draws
// them.
//
// The meta tree has one node per datatype handle: a node's children are the
// types its constructor was given, and Edge says how the constructor uses
// each ("[2] 7 x at +47" for block 2 of a struct). The expanded tree has one
// node per instance of a type in a buffer, down to the basic elements:
// Index holds the path indices that choose the node from its parent and
// Offset its byte displacement from the buffer start.
type Node struct {
	Type     *Type
	Edge     string
	Index    []int64
	Offset   int64
	Children []*Node
	More     int64 // children left out by the node limit
}

// Param is one argument of a type's constructor, for displays that lay
// them out themselves (a debugger's struct view of a handle). Value is an
// int64, a string, a []int64 or a []string.
type Param struct {
	Name  string
	Value any
}

// Params lists the constructor's arguments in MPI's order, old types
// apart (Old, Types); none for a predefined type.
func (t *Type) Params() []Param {
	switch t.Combiner {
	case CombinerContiguous:
		return []Param{{"count", t.Count}}
	case CombinerVector, CombinerHvector:
		return []Param{{"count", t.Count}, {"blocklength", t.BlockLen}, {"stride", t.Stride}}
	case CombinerIndexed, CombinerHindexed, CombinerStruct:
		return []Param{{"count", t.Count}, {"blocklengths", t.BlockLens}, {"displacements", t.Disps}}
	case CombinerIndexedBlock, CombinerHindexedBlock:
		return []Param{{"count", int64(len(t.Disps))}, {"blocklength", t.BlockLen}, {"displacements", t.Disps}}
	case CombinerSubarray:
		return []Param{{"sizes", t.Sizes}, {"subsizes", t.Subsizes}, {"starts", t.Starts}, {"order", t.Order.String()}}
	case CombinerDarray:
		d := make([]string, len(t.Distribs))
		for i, x := range t.Distribs {
			d[i] = x.String()
		}
		g := make([]string, len(t.Dargs))
		for i, x := range t.Dargs {
			g[i] = fmt.Sprint(x)
			if x == DargDefault {
				g[i] = "DFLT"
			}
		}
		return []Param{{"size", t.Size}, {"rank", t.Rank}, {"gsizes", t.Gsizes}, {"distribs", d}, {"dargs", g},
			{"psizes", t.Psizes}, {"order", t.Order.String()}}
	case CombinerResized:
		return []Param{{"lb", t.ResizedLB}, {"extent", t.ResizedExtent}}
	}
	return nil
}

// Args describes the constructor's arguments on one line, e.g.
// "count=2 blocklength=5 stride=3".
func (t *Type) Args() string {
	ps := t.Params()
	parts := make([]string, len(ps))
	for i, p := range ps {
		var v string
		switch x := p.Value.(type) {
		case []int64:
			v = ints(x)
		case []string:
			v = "[" + strings.Join(x, " ") + "]"
		default:
			v = fmt.Sprint(x)
		}
		parts[i] = p.Name + "=" + v
	}
	return strings.Join(parts, " ")
}

func ints(v []int64) string { return strings.ReplaceAll(fmt.Sprint(v), " ", ",") }

// MetaTree returns the constructor tree of t, one node per handle.
func (t *Type) MetaTree() *Node {
	n := &Node{Type: t}
	switch t.Combiner {
	case CombinerNamed:
		if t.Basic.IsPair() {
			f, at := t.Basic.Fields()
			for i := range f {
				n.Children = append(n.Children, &Node{Type: Predefined(f[i]), Edge: fmt.Sprintf("[%d] at %+d", i, at[i])})
			}
		}
	case CombinerStruct:
		for i, c := range t.Types {
			k := c.MetaTree()
			k.Edge = fmt.Sprintf("[%d] %d x at %+d", i, t.BlockLens[i], t.Disps[i])
			n.Children = append(n.Children, k)
		}
	default:
		k := t.Old.MetaTree()
		k.Edge = "oldtype"
		n.Children = []*Node{k}
	}
	return n
}

// ExpandedTree returns the instances of count copies of t down to the basic
// elements, in type-map order, with at most limit nodes; what the limit
// leaves out is counted in the More field of the nodes that lose children.
func (t *Type) ExpandedTree(count int64, limit int) *Node {
	budget := limit
	root := &Node{Type: t}
	if count == 1 {
		t.expand(root, 0, &budget)
		return root
	}
	for r := int64(0); r < count; r++ {
		if budget <= 0 {
			root.More = count - r
			break
		}
		budget--
		k := &Node{Type: t, Index: []int64{r}, Offset: r * t.Extent()}
		root.Children = append(root.Children, k)
		t.expand(k, k.Offset, &budget)
	}
	return root
}

func (t *Type) expand(n *Node, base int64, budget *int) {
	if t.leaf() {
		return
	}
	k := t.kids
	for i, nb := int64(0), k.len(); i < nb; i++ {
		disp, cnt, c := k.at(i)
		for j := int64(0); j < cnt; j++ {
			if *budget <= 0 {
				n.More += cnt - j + remaining(k, i+1)
				return
			}
			*budget--
			off := base + disp + j*c.Extent()
			child := &Node{Type: c, Index: k.indices(nil, i, j), Offset: off}
			n.Children = append(n.Children, child)
			c.expand(child, off, budget)
		}
	}
}

// remaining counts the child instances of blocks i and later.
func remaining(k kids, i int64) int64 {
	if s, ok := k.(*stridedKids); ok {
		return (s.count - i) * s.blockLen
	}
	var n int64
	for ; i < k.len(); i++ {
		_, c, _ := k.at(i)
		n += c
	}
	return n
}
