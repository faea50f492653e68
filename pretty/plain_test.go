package pretty

import (
	"github.com/mpidbg/mpidbg/datatype"
	"github.com/muesli/termenv"
)

// The commands draw through a Renderer (New or Plain); these shorthands
// and Profile are only the tests'.

// TypeMap draws the type map of count instances of t without colour; see
// Renderer.TypeMap.
func TypeMap(t *datatype.Type, count int64, limit int) string {
	return plain.TypeMap(t, count, limit)
}

// Values draws decoded buffer values without colour; see Renderer.Values.
func Values(vals []datatype.Value) string { return plain.Values(vals) }

// MetaTree draws a constructor tree (datatype.Type.MetaTree) without colour.
func MetaTree(n *datatype.Node) string { return plain.MetaTree(n) }

// ExpandedTree draws an instance tree (datatype.Type.ExpandedTree) without
// colour.
func ExpandedTree(n *datatype.Node) string { return plain.ExpandedTree(n) }

// Profile is the colour profile r renders with.
func (r *Renderer) Profile() termenv.Profile { return r.lg.ColorProfile() }
