package launch

import (
	"os"
	"path/filepath"
	"slices"
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
	f, ok := KnownFlavor(path)
	if !ok && slices.Contains(namesOf(path), "prterun") {
		return OpenMPI // whatever it starts, its command line is Open MPI's
	}
	return f
}

// KnownFlavor is the flavor of the launcher at path when its name, or
// the name of the file it links to, says it starts one library's
// programs only: Open MPI's (orterun, mpiexec.openmpi) or MPICH's
// (mpiexec.hydra, mpiexec.mpich). ok is false, and the flavor Hydra, for
// any other name: a site's own mpiexec, or PRRTE's prterun, which starts
// any PMIx program.
func KnownFlavor(path string) (f Flavor, ok bool) {
	names := namesOf(path)
	for _, n := range names {
		if n == "orterun" || strings.Contains(n, "openmpi") {
			return OpenMPI, true
		}
	}
	for _, n := range names {
		if strings.Contains(n, "hydra") || strings.Contains(n, "mpich") {
			return Hydra, true
		}
	}
	return Hydra, false
}

// namesOf is path's name and the name of the file it links to
// (/usr/bin/mpiexec is an alternatives link on Debian).
func namesOf(path string) []string {
	names := []string{filepath.Base(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		names = append(names, filepath.Base(real))
	}
	return names
}

// Var is an environment variable for the ranks.
//
// A Secret one's value never goes on mpiexec's command line, which every
// user of the machine can read (ps, /proc/PID/cmdline): it goes in
// mpiexec's own environment (SecretEnv), which only its user can read,
// and from there to the ranks by name. Hydra passes its whole
// environment on to the ranks, on every host, by default: over its
// proxies' control connections, not their command lines; with the
// user's -genvnone or -genvlist it passes the name in -genvlist. Open
// MPI passes what -x NAME names, taking the value from its environment.
type Var struct {
	Name, Value string
	Secret      bool
}

// SecretEnv is the environment for mpiexec: this process's, with the
// Secret variables of env set.
func SecretEnv(env []Var) []string {
	out := os.Environ()
	for _, v := range env {
		if v.Secret {
			out = append(out, v.Name+"="+v.Value) // a later entry wins (os/exec)
		}
	}
	return out
}

// Args is mpiexec's command line (without mpiexec itself):
//
//	LAUNCHER-ARGS... -genv NAME VALUE... -n NP PROGRAM ARGS...
//
// Launcher arguments come first so that they can hold global options
// (-hosts, -ppn, -f HOSTFILE); the environment options are global too;
// -n and the program form the one executable section. A Secret variable
// is named, never valued (Var).
func Args(f Flavor, np int, launcherArgs []string, env []Var, program string, args []string) []string {
	out, env := ownPreload(f, launcherArgs, len(launcherArgs), env)
	if f == OpenMPI {
		xs, _ := openMPIVars(env)
		out = append(out, xs...)
	} else {
		genv, secret := hydraVars(env)
		if len(secret) > 0 {
			out = hydraEnvList(out, secret)
		}
		out = append(out, genv...)
	}
	out = append(out, "-n", strconv.Itoa(np), program)
	return append(out, args...)
}

// hydraEnvList adds names to the line's -genvlist (or a section's
// -envlist), or turns -genvnone (-envnone) into such a list with names:
// Hydra then passes only the variables listed (and those of -genv) to the
// ranks, and takes one of the two options at most. Without either it
// passes everything. Only the launcher's options are looked at, before
// the program (LineProgram), whose arguments are its own.
func hydraEnvList(args, names []string) []string {
	list := strings.Join(names, ",")
	end := LineProgram(Hydra, args)
	if end < 0 {
		end = len(args)
	}
	for i := 0; i < end; i++ {
		switch a := args[i]; {
		case a == "-genvnone" || a == "-envnone":
			args[i] = strings.TrimSuffix(a, "none") + "list"
			args = slices.Insert(args, i+1, list)
			end++
			i++
		case (a == "-genvlist" || a == "-envlist") && i+1 < end:
			args[i+1] += "," + list
			i++
		}
	}
	return args
}
