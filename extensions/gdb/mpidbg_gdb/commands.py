"""The gdb commands: info mpi-types, info mpi-requests, info mpi-call, and
the mpi prefix (mpi type, mpi buffer, mpi path, mpi errors, mpi
break-on-error), with MI twins when gdb has gdb.MICommand. Each job has
its module: args (the commands' arguments), cli (the commands that show
the registry), callframe and call (info mpi-call), breakonerror, mi."""

from .breakonerror import MPIBreakOnError
from .call import InfoMPICall
from .cli import InfoMPIRequests, InfoMPITypes, MPIBuffer, MPIErrors, MPIPath, MPIPrefix, MPIType
from .mi import MI_COMMANDS


def register():
    InfoMPITypes()
    InfoMPIRequests()
    InfoMPICall()
    MPIPrefix()
    MPIType()
    MPIBuffer()
    MPIPath()
    MPIErrors()
    MPIBreakOnError()
    for c in MI_COMMANDS:
        c()
