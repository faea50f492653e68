// Package datatype is mpidbg's model of MPI datatypes (MPI-4.1 chapter 5,
// "Datatypes", §5.1 "Derived Datatypes"): the shim's checks, mpidbg
// inspect, the gdb helper and the DAP server all reason about datatypes
// through it.
//
// A Type is a constructor tree, as MPI_Type_get_envelope and
// MPI_Type_get_contents describe it (§5.1.13): a predefined type
// (Predefined, a Basic) at each leaf, and at each inner node the
// constructor that made it with its arguments: Contiguous, Vector,
// Hvector, Indexed, Hindexed, IndexedBlock, HindexedBlock and Struct
// (§5.1.2), Subarray (§5.1.3), Darray (§5.1.4), Resized (§5.1.7) and Dup
// (§5.1.10); ParseExpr reads the same trees from text, one form per
// constructor. Each constructor checks its arguments as the standard
// requires (an ArgError otherwise) and computes the new type's quantities
// from those of its old types, so no quantity needs the flattened type
// map:
//
//   - the type map (§5.1): the sequence of (basic type, displacement)
//     pairs of count instances, instance r displaced by r times the
//     extent. TypeMap walks it without building it; ElementAt,
//     ElementAtPacked and ElementAtOffset find one element by its index,
//     by its byte in the packed stream (MPI_Pack, §5.2) or by its byte in
//     the buffer, by descending the tree.
//   - the type signature (§5.1, §5.1.11): the type map's basic types
//     without displacements. Signature gives it in a regular form that
//     never expands repetitions, Runs in compressed form; MatchTypes and
//     MatchSig compare a sender's and a receiver's (§3.3.1), telling a full
//     match from a legal partial receive, a truncation and the first
//     mismatching element. AppendBinary and DecodeSig carry a signature
//     between processes.
//   - TypeSize (§5.1.5): the bytes of data, as MPI_Type_size reports them.
//   - LB, UB and Extent (§5.1.2, §5.1.6, §5.1.7): the bounds that space
//     consecutive instances, with the alignment padding ε and the MPI_LB
//     and MPI_UB markers, as MPICH computes them (docs/datatype-model.md
//     lists where that departs from the letter of the standard); Resized
//     sets them.
//   - TrueLB, TrueUB and TrueExtent (§5.1.8): the bounds of the data
//     alone, ignoring markers and resizing: the bytes a buffer's data can
//     touch.
//   - element paths (Path): an element named by the tree, at each level
//     the type and the indices that choose a child, such as
//     s_type(STRUCT)[2][5](CHAR); Type.Resolve turns one into an Element.
//
// Every displacement, bound, extent and size is in bytes, as MPI_Aint
// values, and may be negative where the standard allows it (displacements,
// lb, ub, extents of resized types). Counts, block lengths, element
// indices and the strides and displacements of Vector, Indexed and
// IndexedBlock are in instances of the old type, as in the C binding;
// the h* constructors and Struct take bytes. Alignments are the LP64 C
// ABI's, and gfortran's for the Fortran types.
//
// Beyond the standard's quantities the package answers what the checks
// need: the contiguous byte Blocks of a buffer and their compact Strided
// form, whether a type or a Buffer overlaps itself (§5.1.11 forbids it for
// receive buffers) and where two buffers overlap (Overlap), Decode to read
// a buffer's values through a type, and MetaTree and ExpandedTree to show a
// type.
package datatype
