/* Prints the offset of every field of reg.h and the size of every
 * structure as "struct.field offset" and "struct size" lines, for
 * shim/shimtest to compare with package registry. */
#include <stddef.h>
#include <stdio.h>

#include "reg.h"

#define F(s, f) printf("%s.%s %zu\n", #s, #f, offsetof(struct s, f))
#define S(s) printf("%s %zu\n", #s, sizeof(struct s))

int main(void)
{
    S(mpidbg_table);
    F(mpidbg_table, rec_size);
    F(mpidbg_table, count);
    F(mpidbg_table, first_chunk);
    F(mpidbg_table, pad);
    F(mpidbg_table, chunks);
    S(mpidbg_predef);
    F(mpidbg_predef, handle);
    F(mpidbg_predef, basic);
    F(mpidbg_predef, fhandle);
    S(mpidbg_type);
    F(mpidbg_type, handle);
    F(mpidbg_type, site);
    F(mpidbg_type, free_site);
    F(mpidbg_type, ints);
    F(mpidbg_type, addrs);
    F(mpidbg_type, types);
    F(mpidbg_type, nints);
    F(mpidbg_type, naddrs);
    F(mpidbg_type, ntypes);
    F(mpidbg_type, combiner);
    F(mpidbg_type, state);
    F(mpidbg_type, serial);
    F(mpidbg_type, size);
    F(mpidbg_type, lb);
    F(mpidbg_type, extent);
    F(mpidbg_type, true_lb);
    F(mpidbg_type, true_extent);
    F(mpidbg_type, overlap_count);
    F(mpidbg_type, name);
    F(mpidbg_type, fhandle);
    F(mpidbg_type, pad);
    S(mpidbg_request);
    F(mpidbg_request, handle);
    F(mpidbg_request, site);
    F(mpidbg_request, buf);
    F(mpidbg_request, datatype);
    F(mpidbg_request, comm);
    F(mpidbg_request, count);
    F(mpidbg_request, peer);
    F(mpidbg_request, tag);
    F(mpidbg_request, call);
    F(mpidbg_request, state);
    F(mpidbg_request, serial);
    F(mpidbg_request, kind);
    F(mpidbg_request, buf2);
    F(mpidbg_request, datatype2);
    F(mpidbg_request, count2);
    S(mpidbg_comm);
    F(mpidbg_comm, handle);
    F(mpidbg_comm, site);
    F(mpidbg_comm, world_ranks);
    F(mpidbg_comm, size);
    F(mpidbg_comm, rank);
    F(mpidbg_comm, remote_size);
    F(mpidbg_comm, state);
    F(mpidbg_comm, serial);
    F(mpidbg_comm, pad);
    F(mpidbg_comm, name);
    S(mpidbg_group);
    F(mpidbg_group, handle);
    F(mpidbg_group, site);
    F(mpidbg_group, world_ranks);
    F(mpidbg_group, size);
    F(mpidbg_group, rank);
    F(mpidbg_group, state);
    F(mpidbg_group, serial);
    S(mpidbg_op);
    F(mpidbg_op, handle);
    F(mpidbg_op, site);
    F(mpidbg_op, fn);
    F(mpidbg_op, commute);
    F(mpidbg_op, state);
    F(mpidbg_op, serial);
    F(mpidbg_op, pad);
    S(mpidbg_win);
    F(mpidbg_win, handle);
    F(mpidbg_win, site);
    F(mpidbg_win, base);
    F(mpidbg_win, size);
    F(mpidbg_win, comm);
    F(mpidbg_win, disp_unit);
    F(mpidbg_win, state);
    F(mpidbg_win, serial);
    F(mpidbg_win, pad);
    S(mpidbg_finding);
    F(mpidbg_finding, seq);
    F(mpidbg_finding, site);
    F(mpidbg_finding, related_site);
    F(mpidbg_finding, rank);
    F(mpidbg_finding, severity);
    F(mpidbg_finding, id);
    F(mpidbg_finding, category);
    F(mpidbg_finding, call);
    F(mpidbg_finding, path);
    F(mpidbg_finding, message);
    S(mpidbg_registry);
    F(mpidbg_registry, magic);
    F(mpidbg_registry, version);
    F(mpidbg_registry, header_size);
    F(mpidbg_registry, generation);
    F(mpidbg_registry, mpi);
    F(mpidbg_registry, handle_size);
    F(mpidbg_registry, world_rank);
    F(mpidbg_registry, world_size);
    F(mpidbg_registry, pid);
    F(mpidbg_registry, flags);
    F(mpidbg_registry, findings_total);
    F(mpidbg_registry, findings_cap);
    F(mpidbg_registry, pad);
    F(mpidbg_registry, findings);
    F(mpidbg_registry, predefined);
    F(mpidbg_registry, types);
    F(mpidbg_registry, requests);
    F(mpidbg_registry, comms);
    F(mpidbg_registry, groups);
    F(mpidbg_registry, ops);
    F(mpidbg_registry, wins);
    F(mpidbg_registry, pysites);
    S(mpidbg_pysite);
    F(mpidbg_pysite, file);
    F(mpidbg_pysite, function);
    F(mpidbg_pysite, native);
    F(mpidbg_pysite, code);
    F(mpidbg_pysite, line);
    F(mpidbg_pysite, offset);
    return 0;
}
