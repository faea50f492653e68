package launch

import (
	"path/filepath"
	"strconv"
	"strings"
)

// Flavor is the family of an mpiexec or srun: how it takes environment
// variables for the ranks.
type Flavor int

const (
	Hydra   Flavor = iota // MPICH, Intel MPI, MVAPICH: -genv NAME VALUE
	OpenMPI               // Open MPI (orterun, prterun): -x NAME=VALUE
	Slurm                 // srun: --export=ALL,NAME=VALUE (line.go)
)

func (f Flavor) String() string {
	switch f {
	case OpenMPI:
		return "Open MPI"
	case Slurm:
		return "Slurm"
	}
	return "Hydra"
}

// FlavorOf guesses the flavor of the mpiexec at path from its name, after
// following symbolic links (/usr/bin/mpiexec is an alternatives link on
// Debian): Open MPI's names are orterun, prterun and *.openmpi; anything
// else is taken for Hydra.
func FlavorOf(path string) Flavor {
	names := []string{filepath.Base(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		names = append(names, filepath.Base(real))
	}
	for _, n := range names {
		if n == "orterun" || n == "prterun" || strings.Contains(n, "openmpi") {
			return OpenMPI
		}
	}
	return Hydra
}

// Var is an environment variable for the ranks.
type Var struct{ Name, Value string }

// Args is mpiexec's command line (without mpiexec itself):
//
//	LAUNCHER-ARGS... -genv NAME VALUE... -n NP PROGRAM ARGS...
//
// Launcher arguments come first so that they can hold global options
// (-hosts, -ppn, -f HOSTFILE); the environment options are global too;
// -n and the program form the one executable section.
func Args(f Flavor, np int, launcherArgs []string, env []Var, program string, args []string) []string {
	out := append([]string(nil), launcherArgs...)
	for _, v := range env {
		if f == OpenMPI {
			out = append(out, "-x", v.Name+"="+v.Value)
		} else {
			out = append(out, "-genv", v.Name, v.Value)
		}
	}
	out = append(out, "-n", strconv.Itoa(np), program)
	return append(out, args...)
}
