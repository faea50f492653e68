package registry

import (
	"fmt"
	"sync"

	"github.com/mpidbg/mpidbg/datatype"
)

// Builder turns datatype handles into datatype models, following the
// registry's records down to predefined types. It caches by handle and
// record serial, so a handle MPI reused for a new type is rebuilt. Safe
// for concurrent use.
type Builder struct {
	MPI        MPI
	Predefined map[uint64]datatype.Basic
	Lookup     func(handle uint64) (Type, bool)

	mu    sync.Mutex
	cache map[builtKey]*datatype.Type
	users map[uint64][]uint64 // old type handle -> handles of cached types built on it
}

type builtKey struct {
	handle uint64
	serial uint32
}

// maxDepth bounds constructor nesting: a corrupted registry may hold a
// type whose old type is itself.
const maxDepth = 64

// UnknownHandleError is returned for a handle that is neither predefined
// nor in the registry.
type UnknownHandleError struct{ Handle uint64 }

func (e *UnknownHandleError) Error() string {
	return fmt.Sprintf("registry: datatype handle %#x is neither predefined nor recorded", e.Handle)
}

// Build returns the model of the datatype with this handle.
func (b *Builder) Build(handle uint64) (*datatype.Type, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.build(handle, 0)
}

func (b *Builder) build(handle uint64, depth int) (*datatype.Type, error) {
	if basic, ok := b.Predefined[handle]; ok {
		return datatype.Predefined(basic), nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("registry: datatype %#x nests more than %d constructors deep", handle, maxDepth)
	}
	rec, ok := b.Lookup(handle)
	if !ok {
		return nil, &UnknownHandleError{Handle: handle}
	}
	key := builtKey{handle, rec.Serial}
	if t, ok := b.cache[key]; ok {
		return t, nil
	}
	olds := make([]*datatype.Type, len(rec.Types))
	for i, h := range rec.Types {
		t, err := b.build(h, depth+1)
		if err != nil {
			return nil, fmt.Errorf("registry: old type %d of %#x: %w", i, handle, err)
		}
		olds[i] = t
	}
	t, err := FromContents(b.MPI, rec.Combiner, rec.Ints, rec.Addrs, olds)
	if err != nil {
		return nil, fmt.Errorf("registry: datatype %#x: %w", handle, err)
	}
	t.SetName(rec.Name)
	if b.cache == nil {
		b.cache = map[builtKey]*datatype.Type{}
	}
	b.cache[key] = t
	if b.users == nil {
		b.users = map[uint64][]uint64{}
	}
	for _, h := range rec.Types {
		b.users[h] = append(b.users[h], handle)
	}
	return t, nil
}

// Forget drops the cached models of the datatype with this handle, and
// of every cached type built on it, so that the next Build reads the
// registry again: for a change the record's serial does not show, such
// as a name MPI_Type_set_name gave after the first build.
func (b *Builder) Forget(handle uint64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.forget(handle, 0)
}

func (b *Builder) forget(handle uint64, depth int) {
	if depth > maxDepth {
		return
	}
	for k := range b.cache {
		if k.handle == handle {
			delete(b.cache, k)
		}
	}
	users := b.users[handle]
	delete(b.users, handle)
	for _, u := range users {
		b.forget(u, depth+1)
	}
}
