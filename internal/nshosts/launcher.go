package nshosts

import (
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/internal/mpilib"
)

// LauncherArgs are the options for m's mpiexec, run on the head, that
// start perNode ranks on each node, filled in node order (ranks 0 to
// perNode-1 on node1, and so on), through RemoteShell:
//
//   - MPICH (Hydra): -launcher ssh -launcher-exec RSH -hosts node1:K,node2:K.
//     Each node runs a hydra_pmi_proxy, which connects back to mpiexec
//     by the head's host name.
//   - Open MPI 4.1: --mca plm_rsh_agent RSH --host node1:K,node2:K, and
//     the daemons' (oob) and the ranks' (btl tcp) traffic kept on the
//     hosts' subnet. Each node runs an orted, which connects back to
//     mpiexec at the address mpiexec gives it.
func (nt *Net) LauncherArgs(m mpilib.MPI, perNode int) []string {
	var hosts []string
	for _, h := range nt.Nodes {
		hosts = append(hosts, h.Name+":"+strconv.Itoa(perNode))
	}
	list := strings.Join(hosts, ",")
	if m == mpilib.OpenMPI {
		return []string{
			"--mca", "plm_rsh_agent", nt.RemoteShell,
			"--mca", "oob_tcp_if_include", Subnet,
			"--mca", "btl_tcp_if_include", Subnet,
			"--host", list,
		}
	}
	return []string{"-launcher", "ssh", "-launcher-exec", nt.RemoteShell, "-hosts", list}
}
