package datatype

// Subarray is MPI_Type_create_subarray (MPI-4.1 §5.1.3): the subsizes block
// starting at starts of an array of sizes elements of old, stored in C
// (row-major) or Fortran (column-major) order. The type has lb 0 and the
// extent of the whole array. When old holds no data, the true bounds are 0
// and the alignment 1, as for an empty darray block.
func Subarray(sizes, subsizes, starts []int64, order Order, old *Type) (*Type, error) {
	const fn = "subarray"
	n := len(sizes)
	if n == 0 {
		return nil, argErr(fn, "ndims", 0, "must be positive")
	}
	if len(subsizes) != n || len(starts) != n {
		return nil, argErr(fn, "arrays", []int{n, len(subsizes), len(starts)}, "must all have ndims entries")
	}
	for i := range sizes {
		switch {
		case sizes[i] < 1:
			return nil, argErr(fn, indexedArg("sizes", i), sizes[i], "must be positive")
		case subsizes[i] < 1 || subsizes[i] > sizes[i]:
			return nil, argErr(fn, indexedArg("subsizes", i), subsizes[i], "must be between 1 and sizes["+itoa(int64(i))+"] ("+itoa(sizes[i])+")")
		case starts[i] < 0 || starts[i] > sizes[i]-subsizes[i]:
			return nil, argErr(fn, indexedArg("starts", i), starts[i], "must be between 0 and sizes-subsizes ("+itoa(sizes[i]-subsizes[i])+")")
		}
	}
	if order > OrderFortran {
		return nil, argErr(fn, "order", int(order), "must be MPI_ORDER_C or MPI_ORDER_FORTRAN")
	}
	if err := checkOld(fn, old); err != nil {
		return nil, err
	}
	if err := checkMagnitude(fn, gridMagnitude(sizes, old)...); err != nil {
		return nil, err
	}
	t := &Type{Combiner: CombinerSubarray, Sizes: clone(sizes), Subsizes: clone(subsizes), Starts: clone(starts), Order: order, Old: old}
	runs := make([]runSeq, n)
	for i := range sizes {
		runs[i] = runSeq{first: starts[i], blen: subsizes[i], lastLen: subsizes[i], n: 1}
	}
	t.setGrid(sizes, runs, order, old)
	return t, nil
}

// Darray is MPI_Type_create_darray (MPI-4.1 §5.1.4): the part of a global
// array of gsizes elements of old that process rank of size owns when the
// array is distributed over a psizes process grid, numbered in row-major
// order whatever the array's order, by distribs with dargs (DargDefault
// for MPI_DISTRIBUTE_DFLT_DARG). The type has lb 0 and the extent of the
// whole array. When this rank owns nothing, or old holds no data, the true
// bounds are 0 and the alignment 1 (MPICH builds the owned part from an
// empty type).
//
// MPICH 4.0 departs from MPI-4.1 §5.1.8 for a CYCLIC dimension in which
// this rank owns a single partial block (fewer than darg indices): an
// empty type at the block's start then widens the true bounds to include
// that start. The model keeps the standard's true bounds, those of the data.
func Darray(size, rank int64, gsizes []int64, distribs []Distrib, dargs, psizes []int64, order Order, old *Type) (*Type, error) {
	const fn = "darray"
	n := len(gsizes)
	switch {
	case size < 1:
		return nil, argErr(fn, "size", size, "must be positive")
	case rank < 0 || rank >= size:
		return nil, argErr(fn, "rank", rank, "must be between 0 and size-1 ("+itoa(size-1)+")")
	case n == 0:
		return nil, argErr(fn, "ndims", 0, "must be positive")
	case len(distribs) != n || len(dargs) != n || len(psizes) != n:
		return nil, argErr(fn, "arrays", []int{n, len(distribs), len(dargs), len(psizes)}, "must all have ndims entries")
	case order > OrderFortran:
		return nil, argErr(fn, "order", int(order), "must be MPI_ORDER_C or MPI_ORDER_FORTRAN")
	}
	procs := int64(1)
	for i := range gsizes {
		if gsizes[i] < 1 {
			return nil, argErr(fn, indexedArg("gsizes", i), gsizes[i], "must be positive")
		}
		if psizes[i] < 1 {
			return nil, argErr(fn, indexedArg("psizes", i), psizes[i], "must be positive")
		}
		procs *= psizes[i]
		if dargs[i] != DargDefault && dargs[i] < 1 {
			return nil, argErr(fn, indexedArg("dargs", i), dargs[i], "must be positive or MPI_DISTRIBUTE_DFLT_DARG")
		}
		switch distribs[i] {
		case DistribNone:
			if psizes[i] != 1 {
				return nil, argErr(fn, indexedArg("psizes", i), psizes[i], "must be 1 for MPI_DISTRIBUTE_NONE")
			}
		case DistribBlock:
			if dargs[i] != DargDefault && dargs[i]*psizes[i] < gsizes[i] {
				return nil, argErr(fn, indexedArg("dargs", i), dargs[i], "times psizes ("+itoa(psizes[i])+") must cover gsizes ("+itoa(gsizes[i])+") for MPI_DISTRIBUTE_BLOCK")
			}
		case DistribCyclic:
		default:
			return nil, argErr(fn, indexedArg("distribs", i), int(distribs[i]), "must be BLOCK, CYCLIC or NONE")
		}
	}
	if procs != size {
		return nil, argErr(fn, "psizes", psizes, "must multiply to size ("+itoa(size)+")")
	}
	if err := checkOld(fn, old); err != nil {
		return nil, err
	}
	if err := checkMagnitude(fn, gridMagnitude(gsizes, old)...); err != nil {
		return nil, err
	}
	t := &Type{Combiner: CombinerDarray, Size: size, Rank: rank, Gsizes: clone(gsizes), Distribs: clone(distribs),
		Dargs: clone(dargs), Psizes: clone(psizes), Order: order, Old: old}
	// row-major process grid: the last dimension varies fastest
	coords := make([]int64, n)
	r := rank
	for i := n - 1; i >= 0; i-- {
		coords[i] = r % psizes[i]
		r /= psizes[i]
	}
	runs := make([]runSeq, n)
	for i := range gsizes {
		runs[i] = distribute(gsizes[i], distribs[i], dargs[i], psizes[i], coords[i])
	}
	t.setGrid(gsizes, runs, order, old)
	return t, nil
}

// gridMagnitude estimates the whole array's bytes and elements.
func gridMagnitude(sizes []int64, old *Type) []float64 {
	n := 1.0
	for _, v := range sizes {
		n *= float64(v)
	}
	return []float64{n * abs64(old.Extent()), n * float64(old.size), n * float64(old.nelem)}
}

// distribute returns the global indices of one dimension that grid
// coordinate coord owns.
func distribute(gsize int64, d Distrib, darg, psize, coord int64) runSeq {
	one := func(s, e int64) runSeq {
		e = min(e, gsize)
		if s >= e {
			return runSeq{}
		}
		return runSeq{first: s, blen: e - s, lastLen: e - s, n: 1}
	}
	switch d {
	case DistribBlock:
		b := darg
		if b == DargDefault {
			b = (gsize + psize - 1) / psize
		}
		return one(coord*b, coord*b+b)
	case DistribCyclic:
		b := darg
		if b == DargDefault {
			b = 1
		}
		first, period := coord*b, psize*b
		if first >= gsize {
			return runSeq{}
		}
		n := (gsize - first + period - 1) / period
		last := first + (n-1)*period
		return runSeq{first: first, period: period, blen: b, lastLen: min(b, gsize-last), n: n}
	}
	return one(0, gsize) // DistribNone
}

// setGrid lays out a subarray or darray: the owned runs of each dimension
// of an array of sizes elements of old.
func (t *Type) setGrid(sizes []int64, runs []runSeq, order Order, old *Type) {
	n := len(sizes)
	ext := old.Extent()
	g := &gridKids{old: old, outer: 1}
	// strides in bytes, and the dimensions from slowest to fastest
	strides := make([]int64, n)
	s := ext
	for k := 0; k < n; k++ {
		i := n - 1 - k // C: the last dimension is fastest
		if order == OrderFortran {
			i = k
		}
		strides[i] = s
		s *= sizes[i]
	}
	elems := int64(1)
	for k := 0; k < n; k++ {
		i := k
		if order == OrderFortran {
			i = n - 1 - k
		}
		total := runs[i].total()
		g.dims = append(g.dims, gridDim{stride: strides[i], seq: runs[i], total: total, argPos: i})
		elems *= total
	}
	for _, d := range g.dims[:n-1] {
		g.outer *= d.total
	}
	t.kids = g
	t.size, t.nelem, t.align = elems*old.size, elems*old.nelem, old.align
	t.lb, t.ub = 0, s // s is now the whole array's extent
	if elems == 0 || old.size == 0 {
		// MPICH builds the owned part from an empty type (see setEmpty)
		t.align = align1
		return
	}
	// the data's bounds are at the corners of the owned index box
	t.trueLB, t.trueUB = old.trueLB, old.trueUB
	for _, d := range g.dims {
		last := d.seq.run(d.seq.n - 1)
		lo := d.seq.first * d.stride
		hi := (last.start + last.len - 1) * d.stride
		t.trueLB += min(lo, hi)
		t.trueUB += max(lo, hi)
	}
}
