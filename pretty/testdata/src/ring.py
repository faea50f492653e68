from mpi4py import MPI

comm = MPI.COMM_WORLD
buf = bytearray(8)
if comm.Get_rank() == 0:
    comm.Recv([buf, MPI.INT], source=MPI.ANY_SOURCE, tag=0)
else:
    comm.Send([buf, MPI.INT], dest=0, tag=0)
