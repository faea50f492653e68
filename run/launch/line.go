package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// A launcher line is the command a user starts the job with, written out
// in full after mpidbg's flags: mpidbg run -- srun -N 2 -n 8 ./app. mpidbg
// keeps it word for word and adds only what brings its environment to the
// ranks, in the form the launcher takes:
//
//	Hydra   LAUNCHER -genv NAME VALUE ... ARGS...
//	Open MPI LAUNCHER -x NAME=VALUE ... ARGS...
//	Slurm   srun --export=ALL,NAME=VALUE,... ARGS...   (or the user's --export list with these added)
//
// so that, as for mpidbg's own mpiexec line, the shim is preloaded into
// the ranks only, never into the launcher.

// launcherNames are the commands that mpidbg takes for a launcher when
// they come first after its flags.
var launcherNames = []string{"srun", "mpiexec", "mpirun", "mpiexec.hydra", "mpiexec.mpich", "mpirun.mpich",
	"mpiexec.openmpi", "mpirun.openmpi", "orterun", "prterun"}

// LauncherOf says whether word names a launcher, and which: srun is
// Slurm, the others as FlavorOf says. path is word resolved on PATH.
func LauncherOf(word string) (path string, f Flavor, ok bool) {
	if !slices.Contains(launcherNames, filepath.Base(word)) {
		return "", 0, false
	}
	p, err := exec.LookPath(word)
	if err != nil {
		p = word // run reports the launcher missing when it starts it
	}
	if filepath.Base(word) == "srun" {
		return p, Slurm, true
	}
	return p, FlavorOf(p), true
}

// LineArgs is the launcher's arguments with env added (args is the line
// after the launcher itself), and the variables the launcher's own
// process must have for that: srun exports a variable named without a
// value from its environment, which spares values srun's list syntax
// cannot hold (a comma). The preload goes with its value: set in srun's
// environment it would load the shim into srun.
func LineArgs(f Flavor, args []string, env []Var) (out []string, proc []Var) {
	switch f {
	case Slurm:
		var list []string
		for _, v := range env {
			if v.Name == envvar.Preload {
				list = append(list, v.Name+"="+v.Value)
			} else {
				list = append(list, v.Name)
				proc = append(proc, v)
			}
		}
		return slurmArgs(args, strings.Join(list, ",")), proc
	case OpenMPI:
		for _, v := range env {
			if v.Secret {
				out = append(out, "-x", v.Name) // the value from mpiexec's environment (SecretEnv)
			} else {
				out = append(out, "-x", v.Name+"="+v.Value)
			}
		}
	default:
		// Hydra passes its environment to the ranks unless the line's
		// -genvnone or -genvlist says otherwise: a secret's name joins
		// that list
		var secret []string
		for _, v := range env {
			if v.Secret {
				secret = append(secret, v.Name)
			} else {
				out = append(out, "-genv", v.Name, v.Value)
			}
		}
		args = hydraEnvList(slices.Clone(args), secret)
	}
	return append(out, args...), nil
}

// slurmArgs adds the list to srun's --export (srun(1): ALL, NONE, NIL or
// a list of NAME[=VALUE] that ALL may begin). Without --export srun
// exports ALL; to ALL or a list the variables are added; NONE and NIL
// become the list alone (a list exports only what it names, and SLURM_*),
// so that the user's choice holds for everything else.
func slurmArgs(args []string, list string) []string {
	out := slices.Clone(args)
	end := LineProgram(out) // the program's arguments are its own
	if end < 0 {
		end = len(out)
	}
	for i := 0; i < end; i++ {
		a := out[i]
		var val string
		switch {
		case strings.HasPrefix(a, "--export="):
			val = strings.TrimPrefix(a, "--export=")
		case a == "--export" && i+1 < end:
			val = out[i+1]
			out = slices.Delete(out, i+1, i+2)
		default:
			continue
		}
		if val == "NONE" || val == "NIL" {
			out[i] = "--export=" + list
		} else {
			out[i] = "--export=" + val + "," + list
		}
		return out
	}
	return append([]string{"--export=ALL," + list}, out...)
}

// WrapEnv is what a command that starts launchers itself (a batch
// script: mpidbg collect -- ./job.sh) runs with so that the ranks of
// every launch in it get env unchanged lines: the variables but the
// preload in its environment, which launchers pass on to the ranks, and
// the preload through the variables launchers read it from for the ranks
// only, srun's SRUN_EXPORT_ENV (as --export) and Open MPI's
// OMPI_MCA_mca_base_env_list (as -x, ';' between variables). Either
// keeps what the user's environment set it to, with the preload added. A
// Hydra line has no such variable: it needs -genv LD_PRELOAD
// "$MPIDBG_PRELOAD", which WrapEnv sets too.
func WrapEnv(env []Var) []Var {
	var out []Var
	var preload string
	for _, v := range env {
		if v.Name == envvar.Preload {
			preload = v.Value
			continue
		}
		out = append(out, v)
	}
	if preload == "" {
		return out
	}
	srun := "ALL," + envvar.Preload + "=" + preload
	if old := os.Getenv(envvar.SrunExportEnv); old != "" {
		if old == "NONE" || old == "NIL" {
			srun = envvar.Preload + "=" + preload
		} else {
			srun = old + "," + envvar.Preload + "=" + preload
		}
	}
	ompi := envvar.Preload + "=" + preload
	if old := os.Getenv(envvar.OMPIEnvList); old != "" {
		ompi = old + ";" + ompi
	}
	return append(out, Var{Name: envvar.SrunExportEnv, Value: srun}, Var{Name: envvar.OMPIEnvList, Value: ompi}, Var{Name: envvar.PreloadForRanks, Value: preload})
}

// LineProgram finds the program in a launcher line: the first word after
// the launcher's own options that names an executable file (a path, or a
// name on PATH), for choosing the MPI and reading suppressions beside it.
// It returns -1 when no word does.
func LineProgram(args []string) int {
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		p := a
		if !strings.Contains(a, "/") {
			var err error
			if p, err = exec.LookPath(a); err != nil {
				continue
			}
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return i
		}
	}
	return -1
}
