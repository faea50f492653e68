package main

/*
#include "engine.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// self reads this process's own memory: the registry's records and the
// arrays they point to.
type self struct{}

func (self) ReadAt(p []byte, addr uint64) error {
	if len(p) == 0 {
		return nil
	}
	if C.mpidbg_read_mem(unsafe.Pointer(&p[0]), C.uint64_t(addr), C.uint64_t(len(p))) != 0 {
		return fmt.Errorf("address %#x is not readable", addr)
	}
	return nil
}

// models hands out datatype models built from the registry. The builder
// caches by handle and record serial; it is replaced when the set of
// predefined types changes (the C side's model epoch), and forgets the
// models of the types MPI_Type_set_name renamed (the C side's ring of
// renamed handles), so that element paths carry the names given.
var models struct {
	sync.Mutex
	epoch   uint64
	renamed uint64
	b       *registry.Builder
}

func builder() *registry.Builder {
	e := uint64(C.mpidbg_model_epoch())
	seq := uint64(C.mpidbg_renamed_seq())
	models.Lock()
	defer models.Unlock()
	if models.b != nil && models.epoch == e && seq != models.renamed {
		if seq-models.renamed > C.MPIDBG_RENAMED/2 {
			models.b = nil // too far behind the ring: start over
		} else {
			for s := models.renamed; s < seq; s++ {
				models.b.Forget(uint64(C.mpidbg_renamed_at(C.uint64_t(s))))
			}
			models.renamed = seq
		}
	}
	if models.b == nil || models.epoch != e {
		pre := map[uint64]datatype.Basic{}
		for i := 0; i < int(C.mpidbg_predef_count()); i++ {
			var h C.uint64_t
			var b C.int32_t
			C.mpidbg_predef_at(C.int(i), &h, &b)
			if datatype.Basic(b).Valid() {
				pre[uint64(h)] = datatype.Basic(b)
			}
		}
		models.b = &registry.Builder{MPI: thisMPI(), Predefined: pre, Lookup: lookupType}
		models.epoch = e
		models.renamed = seq
	}
	return models.b
}

// lookupType returns the registry record of a derived datatype handle.
func lookupType(h uint64) (registry.Type, bool) {
	addr := uint64(C.mpidbg_type_record_addr(C.uint64_t(h)))
	if addr == 0 {
		return registry.Type{}, false
	}
	t, err := registry.ReadType(self{}, addr)
	return t, err == nil
}

// model returns the datatype with handle h.
func model(h uint64) (*datatype.Type, error) {
	return builder().Build(h)
}

// errUnmodelled marks a type the model cannot build (a predefined type of
// another language binding, say): checks that need it are skipped.
var errUnmodelled = errors.New("datatype not modelled")

func modelOf(h uint64) (*datatype.Type, error) {
	t, err := model(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnmodelled, err)
	}
	return t, nil
}

// predefinedName returns "MPI_INT" for a predefined handle the registry
// knows, or "".
func predefinedName(h uint64) string {
	if b, ok := builder().Predefined[h]; ok {
		return "MPI_" + b.String()
	}
	return ""
}

// ctorNames maps a combiner to the constructor that makes it, for the
// "datatype made here by ..." line.
var ctorNames = map[datatype.Combiner]string{
	datatype.CombinerDup:           "MPI_Type_dup",
	datatype.CombinerContiguous:    "MPI_Type_contiguous",
	datatype.CombinerVector:        "MPI_Type_vector",
	datatype.CombinerHvector:       "MPI_Type_create_hvector",
	datatype.CombinerIndexed:       "MPI_Type_indexed",
	datatype.CombinerHindexed:      "MPI_Type_create_hindexed",
	datatype.CombinerIndexedBlock:  "MPI_Type_create_indexed_block",
	datatype.CombinerHindexedBlock: "MPI_Type_create_hindexed_block",
	datatype.CombinerStruct:        "MPI_Type_create_struct",
	datatype.CombinerSubarray:      "MPI_Type_create_subarray",
	datatype.CombinerDarray:        "MPI_Type_create_darray",
	datatype.CombinerResized:       "MPI_Type_create_resized",
}

// thisMPI is the MPI library the shim was built for (shim.h's
// MPIDBG_MPI_ID, which reg.c writes into the registry at load time).
func thisMPI() registry.MPI { return registry.MPI(C.mpidbg_registry.mpi) }
