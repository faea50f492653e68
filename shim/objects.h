/*
 * What the objects_*.c files share (objects.c): each kind of MPI object
 * fills its registry record with these. Only those files include it;
 * shim.h is the shim's interface.
 */
#ifndef MPIDBG_OBJECTS_H
#define MPIDBG_OBJECTS_H

#include "shim.h"

/* A slot is an object's shadow (in a handle map) and its registry record,
 * found or made for one handle under the writer lock. */
struct mpidbg_slot {
    void *obj, *rec;
    int fresh; /* made here: mpidbg_slot_publish once the record is filled */
};

MPIDBG_HIDDEN void mpidbg_copy_name(char *dst, const char *src);
MPIDBG_HIDDEN struct mpidbg_slot mpidbg_slot_for(void *obj, void *rec, struct mpidbg_table *tab, size_t objsize, size_t recsize);
MPIDBG_HIDDEN void mpidbg_slot_publish(struct mpidbg_slot s, struct mpidbg_table *tab, struct mpidbg_hmap *map, uint64_t h);
MPIDBG_HIDDEN int32_t *mpidbg_world_ranks_of_group(MPI_Group g, int n);

#endif
