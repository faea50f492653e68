package checks

import "strings"

// Communicators and process topologies: a colour MPI_Comm_split cannot
// take, a Cartesian grid that cannot be made, and a topology query on a
// communicator without that topology (shim/hooks_topo.c, before the
// call).

// invalidColor: Val is the colour.
var invalidColor = register(Check{
	Entry: Entry{ID: "invalid-color", Category: CatArgument, Severity: SevError,
		Title: "MPI_Comm_split is given a negative colour that is not MPI_UNDEFINED",
		Rule:  "MPI-4.1 §7.4.2: color is a non-negative integer, or MPI_UNDEFINED for a process that joins no new communicator",
		Doc: `Processes that pass the same colour to MPI_Comm_split end up in the same
new communicator; a process that should join none passes MPI_UNDEFINED and
gets MPI_COMM_NULL. Any other negative colour is erroneous: MPICH and Open
MPI refuse it with MPI_ERR_ARG, which the default error handler turns into
an abort. Typical causes: a colour computed as rank / size - 1, or -1 used
where MPI_UNDEFINED was meant.`},
	Message: func(m *Message) {
		m.Mark("color")
		m.Printf("color %d is negative and not MPI_UNDEFINED: pass a non-negative colour, or MPI_UNDEFINED to join no new communicator", m.Val)
	},
})

// invalidDims: Arg is the negative dims entry ("dims[1]") and Val its
// value; or, with Count > 0, the grid has Count processes and the
// communicator only Lim.
var invalidDims = register(Check{
	Entry: Entry{ID: "invalid-dims", Category: CatArgument, Severity: SevError,
		Title: "a Cartesian grid's dimensions are negative, or the grid has more processes than the communicator",
		Rule:  "MPI-4.1 §8.5.1, §8.5.2: dims[i] is the number of processes in dimension i; a grid larger than the group of comm_old is erroneous; negative dims[i] given to MPI_Dims_create are erroneous",
		Doc: `MPI_Cart_create lays the processes of a communicator out as a grid of
dims[0] x dims[1] x ... processes. The grid may be smaller than the
communicator (the processes left over get MPI_COMM_NULL), never larger, and
no dimension can be negative. MPI_Dims_create fills the zero entries of
dims; a negative entry is erroneous. Typical causes: a grid sized for
another job (dims {4,4} on 8 processes), or dims left uninitialised before
MPI_Dims_create; compute the grid with MPI_Dims_create from the
communicator's size and zeroed dims.`},
	Message: func(m *Message) {
		m.Mark("dims")
		if m.Count > 0 {
			m.Printf("the grid has %d processes but the communicator only %d: a Cartesian grid may be smaller than the communicator, never larger", m.Count, m.Lim)
			return
		}
		m.Printf("%s %d is negative: each dimension is a number of processes", m.Arg, m.Val)
	},
})

// topologyMismatch: the variant says what topology the communicator has
// (VariantNoTopology, VariantCart, VariantGraph, VariantDistGraph); the
// call says which one it needs.
var topologyMismatch = register(Check{
	Entry: Entry{ID: "topology-mismatch", Category: CatArgument, Severity: SevError,
		Title: "a topology query is made on a communicator without that topology",
		Rule:  "MPI-4.1 §8.5.5, §8.5.6: the Cartesian and graph inquiry functions need a communicator with a Cartesian, graph or distributed graph topology",
		Doc: `MPI_Cart_get, MPI_Cart_coords, MPI_Cart_shift and the other Cartesian
queries read the grid MPI_Cart_create (or MPI_Cart_sub) attached to the
communicator; MPI_Graph_* need MPI_Graph_create's, MPI_Dist_graph_* a
distributed graph's. Asked of another communicator (MPI_COMM_WORLD instead
of the Cartesian communicator, a duplicate made with MPI_Comm_split), the
call fails with MPI_ERR_TOPOLOGY, which the default error handler turns into
an abort. Pass the communicator the topology constructor returned;
MPI_Topo_test tells which topology a communicator has.`},
	Message: func(m *Message) {
		m.Mark("comm")
		has := map[Variant]string{VariantNoTopology: "no topology", VariantCart: "a Cartesian topology",
			VariantGraph: "a graph topology", VariantDistGraph: "a distributed graph topology"}[m.Variant]
		m.Printf("%s has %s, and %s needs %s", m.Arg, has, m.Call, neededTopology(m.Call))
	},
})

// neededTopology names what a query function needs, from its name.
func neededTopology(call string) string {
	switch {
	case strings.HasPrefix(call, "MPI_Dist_graph"):
		return "a distributed graph topology (MPI_Dist_graph_create)"
	case strings.HasPrefix(call, "MPI_Graph"):
		return "a graph topology (MPI_Graph_create)"
	}
	return "a Cartesian topology (MPI_Cart_create or MPI_Cart_sub)"
}
