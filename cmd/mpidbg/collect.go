package main

import "github.com/spf13/pflag"

var collectCommand = &command{
	name:    "collect",
	args:    "-- COMMAND [ARGS...]",
	summary: "run a batch script (or any command that starts MPI jobs) with every rank of its jobs checked",
	about: `Runs COMMAND, typically a batch script whose launcher lines cannot
change (srun ./app), and collects the findings of every rank that the
jobs it starts run, into one report when it ends: the report, the exit
status, --json, --sarif, deadlock detection and ending work as for
'mpidbg run'.

COMMAND gets mpidbg's variables in its environment (the launchers pass
them on to the ranks) and the shim through the variables launchers take
for their ranks only, so that neither the script nor the launcher loads
it:
  srun        SRUN_EXPORT_ENV=ALL,LD_PRELOAD=SHIM (srun's --export when the
              line has none; a value the environment had keeps it, with
              the shim added)
  Open MPI    OMPI_MCA_mca_base_env_list=LD_PRELOAD=SHIM (as -x)
  MPICH       has no such variable: write -genv LD_PRELOAD "$MPIDBG_PRELOAD"
              in its mpiexec line, or use 'mpidbg run -- mpiexec ...'
A line with its own list keeps it and must name mpidbg's variables:
srun --export=LIST needs LD_PRELOAD=$MPIDBG_PRELOAD and the MPIDBG_*
names; Open MPI 4 refuses -x beside the variable above, so an mpirun line
passes its variables in OMPI_MCA_mca_base_env_list instead (set before
collect, which extends it). The jobs must run one after another.

The shim is for one MPI: --mpi (or a program COMMAND's line names),
else MPICH. A COMMAND that is itself a launcher line is run as
'mpidbg run -- LAUNCHER ...' runs it.

Examples:
  mpidbg collect --mpi openmpi --json report.json -- ./job.sh
  sbatch -N 2 --wrap 'mpidbg collect --listen $(hostname):0 -- ./job.sh'`,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error { return registerRun(fs, true) },
}
