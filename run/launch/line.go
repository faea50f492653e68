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
	end := LineProgram(f, args)
	if end < 0 {
		end = len(args)
	}
	full := env
	args, env = ownPreload(f, args, end, env) // a copy of args, which the cases below may change
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
		out, list := openMPIVars(env)
		if old := os.Getenv(envvar.OMPIEnvList); old != "" {
			// Open MPI 4 refuses -x beside mca_base_env_list
			// (orterun:conflict-env-set): the variables join the list
			return args, []Var{{Name: envvar.OMPIEnvList, Value: old + ";" + strings.Join(list, ";")}}
		}
		// -x applies to its own app context only: each program of an
		// MPMD line (after a ':') gets the variables again, the shim's
		// preload too (the line's own was the first context's)
		later, _ := openMPIVars(full)
		return append(out, everyContext(args, later)...), nil
	default:
		// Hydra passes its environment to the ranks unless the line's
		// -genvnone or -genvlist says otherwise: a secret's name joins
		// that list
		var secret []string
		out, secret = hydraVars(env)
		args = hydraEnvList(args, secret)
	}
	return append(out, args...), nil
}

// openMPIVars is env as Open MPI's -x options, and as the items of
// mca_base_env_list; a secret by name, its value from mpiexec's
// environment (SecretEnv).
func openMPIVars(env []Var) (xs, list []string) {
	for _, v := range env {
		item := v.Name + "=" + v.Value
		if v.Secret {
			item = v.Name
		}
		xs = append(xs, "-x", item)
		list = append(list, item)
	}
	return xs, list
}

// hydraVars is env as Hydra's -genv options, and the names of its
// secrets, which go in a -genvlist (hydraEnvList).
func hydraVars(env []Var) (genv, secret []string) {
	for _, v := range env {
		if v.Secret {
			secret = append(secret, v.Name)
		} else {
			genv = append(genv, "-genv", v.Name, v.Value)
		}
	}
	return genv, secret
}

// everyContext is args with xs again after each ':' that separates
// Open MPI's app contexts.
func everyContext(args, xs []string) []string {
	var out []string
	for _, a := range args {
		out = append(out, a)
		if a == ":" {
			out = append(out, xs...)
		}
	}
	return out
}

// slurmArgs adds the list to srun's --export (srun(1): ALL, NONE, NIL or
// a list of NAME[=VALUE] that ALL may begin). Without --export srun
// exports ALL; to ALL or a list the variables are added; NONE and NIL
// become the list alone (a list exports only what it names, and SLURM_*),
// so that the user's choice holds for everything else.
func slurmArgs(args []string, list string) []string {
	out := slices.Clone(args)
	end := LineProgram(Slurm, out) // the program's arguments are its own
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
		out[i] = "--export=" + exportWith(val, list)
		return out
	}
	return append([]string{"--export=" + exportWith(slurmExportEnv(), list)}, out...)
}

// exportWith is srun's export value val with list added; "" is srun's
// default, ALL.
func exportWith(val, list string) string {
	switch val {
	case "":
		return "ALL," + list
	case "NONE", "NIL":
		return list
	}
	return val + "," + list
}

// slurmExportEnv is the export value srun takes from its environment when
// its line gives none: SRUN_EXPORT_ENV, else SLURM_EXPORT_ENV (what
// sbatch --export=NONE leaves in the job's environment).
func slurmExportEnv() string {
	if v := os.Getenv(envvar.SrunExportEnv); v != "" {
		return v
	}
	return os.Getenv(envvar.SlurmExportEnv)
}

// WrapEnv is what a command that starts launchers itself (a batch
// script: mpidbg collect -- ./job.sh) runs with so that the ranks of
// every launch in it get env with unchanged lines: the variables but the
// preload in its environment, and the preload with the names of the
// others through the variables launchers read for their ranks only:
// srun's SRUN_EXPORT_ENV (as --export; the export value the environment
// had keeps its choice, with these added) and Open MPI's
// OMPI_MCA_mca_base_env_list (as -x, ';' between variables; a bare name
// is passed on from mpirun's environment, which reaches the ranks on
// other hosts only so). A Hydra line has no such variable: it needs
// -genv LD_PRELOAD "$MPIDBG_PRELOAD", which WrapEnv sets too.
func WrapEnv(env []Var) []Var {
	var out []Var
	var preload string
	var names []string
	for _, v := range env {
		if v.Name == envvar.Preload {
			preload = v.Value
			continue
		}
		out = append(out, v)
		names = append(names, v.Name)
	}
	if preload == "" {
		return out
	}
	pre := envvar.Preload + "=" + preload
	srun := exportWith(slurmExportEnv(), strings.Join(append([]string{pre}, names...), ","))
	ompi := strings.Join(append([]string{pre}, names...), ";")
	if old := os.Getenv(envvar.OMPIEnvList); old != "" {
		ompi = old + ";" + ompi
	}
	return append(out, Var{Name: envvar.SrunExportEnv, Value: srun}, Var{Name: envvar.OMPIEnvList, Value: ompi},
		Var{Name: envvar.PreloadForRanks, Value: preload})
}

// LineProgram finds the program in the line args of a launcher of
// flavor f: the first word, past the launcher's options and the values of
// those that take one as a word of their own (valued), that names an
// executable file (a path, or a name on PATH), for choosing the MPI and
// reading suppressions beside it. It returns -1 when no word does.
func LineProgram(f Flavor, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") {
				i += valued[f][a]
			}
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

// valued is, per launcher, the options followed by values as words of
// their own, and how many (srun(1), Hydra's mpiexec -h, Open MPI's
// mpirun(1)): a value such as the job name "test" or the remote shell
// "ssh" is not the program, though a file of that name is on PATH.
var valued = map[Flavor]map[string]int{
	Slurm: words(1, "-A", "-b", "-c", "-D", "-d", "-e", "-G", "-i", "-J", "-L", "-M", "-m", "-N", "-n", "-o", "-p",
		"-q", "-r", "-S", "-T", "-t", "-W", "-w", "-x", "-C", "--account", "--begin", "--chdir", "--cluster",
		"--clusters", "--comment", "--constraint", "--cpu-bind", "--cpus-per-task", "--deadline", "--dependency",
		"--distribution", "--error", "--exclude", "--export", "--gpus", "--gres", "--input", "--job-name",
		"--licenses", "--mail-type", "--mail-user", "--mem", "--mem-per-cpu", "--mpi", "--network", "--nodelist",
		"--nodes", "--ntasks", "--ntasks-per-node", "--output", "--partition", "--qos", "--reservation",
		"--signal", "--threads-per-core", "--time"),
	Hydra: merge(words(1, "-f", "-hosts", "-host", "-hostfile", "-machinefile", "-launcher", "-launcher-exec",
		"-bootstrap", "-bootstrap-exec", "-genvlist", "-envlist", "-wdir", "-dir", "-ppn", "-bind-to", "-binding",
		"-map-by", "-rmk", "-demux", "-iface", "-n", "-np", "-errfile-pattern", "-outfile-pattern",
		"-prepend-pattern", "-configfile", "-port-range", "-nameserver", "-tmpdir", "-usize"),
		words(2, "-genv", "-env")),
	OpenMPI: merge(words(1, "-n", "-np", "-c", "--n", "--np", "-H", "--host", "-host", "--hostfile", "-hostfile",
		"--machinefile", "-machinefile", "-x", "--map-by", "-map-by", "--rank-by", "--bind-to", "-bind-to",
		"--prefix", "-wdir", "--wdir", "-wd", "--wd", "--path", "-npernode", "--npernode", "--npersocket",
		"-ppr", "--ppr", "--output-filename", "--cpus-per-proc", "--cpus-per-rank", "--app", "--preload-files",
		"--personality", "--timeout", "-am", "--am", "--tune", "--default-hostfile", "--rankfile", "-rf"),
		words(2, "--mca", "-mca", "--gmca", "-gmca")),
}

func words(n int, names ...string) map[string]int {
	m := map[string]int{}
	for _, w := range names {
		m[w] = n
	}
	return m
}

func merge(a, b map[string]int) map[string]int {
	for k, v := range b {
		a[k] = v
	}
	return a
}
