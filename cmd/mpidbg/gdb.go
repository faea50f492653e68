package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/spf13/pflag"
)

// gdbScript is the script gdb sources, in the extension's directory.
const gdbScript = "mpidbg-gdb.py"

var gdbCommand = &command{
	name:    "gdb",
	args:    "[GDB-ARGS...]",
	summary: "run gdb with mpidbg's MPI printers and commands (one process)",
	about: `Runs gdb with mpidbg's extension loaded (extensions/gdb/mpidbg-gdb.py):
pretty printers for MPI_Datatype, MPI_Comm, MPI_Request, MPI_Win and
MPI_Op, and the commands 'info mpi-types', 'info mpi-requests',
'info mpi-call' and 'mpi type|buffer|path|errors|break-on-error' (see
'help mpi' in gdb). They read the process's memory only, so they work on
core files as well.

With a program, the program runs (gdb's 'run') with the shim preloaded
(LD_PRELOAD=libmpidbg.so) as a singleton MPI process: one rank, no
mpiexec. The shim's race tracker uses SIGSEGV and SIGTRAP internally,
which would stop gdb at every tracked access, so mpidbg gdb also sets
MPIDBG_RACE=off in the program's environment unless MPIDBG_RACE is set
already (then gdb stops on those signals: 'handle SIGSEGV nostop noprint
pass' lets the program go on). With a program and a core file, or with
-p PID (attach to a process, for instance a rank that 'mpidbg run
--on-error stop' stopped), nothing is preloaded: the process must have
been started with the shim for the MPI commands to work.

Every argument but mpidbg's own flags (--gdb, --shim, below) goes to gdb
as it is; after "--" all of them do. mpidbg looks in them for the program
(the first argument that is not an option, or the one after --args), for
a core file (-c or a second argument) and for -p.

The extension is $MPIDBG_GDB_EXT (its directory or its script), else
../extensions/gdb beside the mpidbg executable (bin/mpidbg in a source
tree built with 'make build'); the shim as for 'mpidbg run' (--shim,
$MPIDBG_SHIM, the program's MPI's in ../lib). The extension finds this mpidbg
through $MPIDBG_BIN, which mpidbg gdb sets when it is not set already:
it starts 'mpidbg gdb-helper', which decodes the MPI state.

Examples:
  mpidbg gdb ./app
  mpidbg gdb -p 12345
  mpidbg gdb ./app core.12345
  mpidbg gdb -batch -ex 'break app.c:42' -ex run -ex 'info mpi-requests' ./app`,
	raw: true,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error {
		g := &gdbFlags{}
		// declared for the help; gdbOwnFlags reads them
		fs.StringVar(&g.gdb, "gdb", "", "the gdb to run: a `PATH` or a name on PATH (default: gdb)")
		fs.StringVar(&g.shim, "shim", "", "the shim library `PATH` (default: $MPIDBG_SHIM, else the program's MPI's in ../lib beside mpidbg)")
		return func(o *output, args []string) error {
			g, rest, err := gdbOwnFlags(args)
			if err != nil {
				return err
			}
			return g.run(o, rest)
		}
	},
}

type gdbFlags struct {
	gdb, shim string
}

// gdbOwnFlags takes mpidbg's flags (--gdb, --shim, as --flag VALUE or
// --flag=VALUE) out of gdb's arguments, up to a "--", which it drops, or
// gdb's --args, after which every word is the program's (as scanGdbArgs
// reads them).
func gdbOwnFlags(args []string) (gdbFlags, []string, error) {
	var g gdbFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if a == "--args" || a == "-args" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, has := strings.Cut(a, "=")
		var dst *string
		switch name {
		case "--gdb":
			dst = &g.gdb
		case "--shim":
			dst = &g.shim
		default:
			rest = append(rest, a)
			continue
		}
		if !has {
			if i+1 >= len(args) {
				return g, nil, &usageError{cmd: "gdb", msg: fmt.Sprintf("flag needs an argument: %s", a), hint: true}
			}
			i++
			value = args[i]
		}
		*dst = value
	}
	return g, rest, nil
}

func (g *gdbFlags) run(o *output, args []string) error {
	gdb, err := findGdb(g.gdb)
	if err != nil {
		return err
	}
	script, err := findGdbExt()
	if err != nil {
		return err
	}
	inv := scanGdbArgs(args)
	if err := gdbProgramExists(inv.program); err != nil {
		return err
	}

	argv := []string{gdb, "-iex", "source " + script}
	env := os.Environ()
	if os.Getenv(envvar.Bin) == "" {
		if exe, err := os.Executable(); err == nil {
			env = append(env, envvar.Bin+"="+exe)
		}
	}
	if inv.program != "" && !inv.attach && !inv.core {
		m, err := chooseMPI(inv.program, "", g.shim)
		if err != nil {
			return badInput("gdb", "%v", err)
		}
		shim, err := findShim(g.shim, m)
		if err != nil {
			return retag(err, "gdb")
		}
		preload := shim
		if old := os.Getenv(envvar.Preload); old != "" {
			preload += ":" + old
		}
		argv = append(argv, "-iex", "set environment "+envvar.Preload+"="+preload)
		if os.Getenv(envvar.Race) == "" {
			argv = append(argv, "-iex", "set environment "+envvar.Race+"=off")
		}
	}
	argv = append(argv, args...)
	if err := syscall.Exec(gdb, argv, env); err != nil { // replaces mpidbg
		return fmt.Errorf("gdb: cannot run %s: %v", gdb, err)
	}
	return nil
}

// gdbProgramExists refuses a program gdb would not find, as mpidbg run
// does, before gdb starts: gdb would open with no program ("No such file
// or directory."), run nothing, and leave the user at its prompt. gdb
// looks for a name without a slash in the working directory first, then
// on PATH.
func gdbProgramExists(program string) error {
	if program == "" {
		return nil
	}
	fi, err := os.Stat(program)
	if err != nil && !strings.Contains(program, "/") {
		if p, lerr := exec.LookPath(program); lerr == nil {
			fi, err = os.Stat(p)
		}
	}
	switch {
	case err != nil:
		return &usageError{cmd: "gdb", msg: fmt.Sprintf("program %s: no such file", program)}
	case fi.IsDir():
		return &usageError{cmd: "gdb", msg: fmt.Sprintf("program %s: a directory, not a program", program)}
	}
	return nil
}

// gdbInvocation is what mpidbg needs to know of gdb's command line.
type gdbInvocation struct {
	program string // the program to debug, "" if none
	attach  bool   // -p PID, or a PID as the second argument
	core    bool   // -c CORE, or a second argument that is not a PID
}

// gdbValued lists gdb's options that take the next argument as their
// value (when not written -opt=VALUE). gdb accepts one dash or two.
var gdbValued = map[string]bool{
	"ex": true, "eval-command": true, "iex": true, "init-eval-command": true,
	"eix": true, "early-init-command": true, "eiex": true, "early-init-eval-command": true,
	"x": true, "command": true, "ix": true, "init-command": true,
	"p": true, "pid": true, "c": true, "core": true, "cd": true,
	"d": true, "directory": true, "s": true, "symbols": true, "e": true, "exec": true, "se": true,
	"tty": true, "t": true, "i": true, "interpreter": true, "b": true, "l": true,
	"data-directory": true, "D": true,
}

// scanGdbArgs finds the program, a core file and -p in gdb's arguments.
func scanGdbArgs(args []string) gdbInvocation {
	var inv gdbInvocation
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case name == "args":
			if i+1 < len(args) {
				inv.program = args[i+1]
			}
			return inv // the rest is the program's
		case name == "p" || name == "pid":
			inv.attach = true
		case name == "c" || name == "core":
			inv.core = true
		}
		if gdbValued[name] && !hasValue {
			i++ // its value
		}
	}
	if len(positional) > 0 {
		inv.program = positional[0]
	}
	if len(positional) > 1 {
		if isPID(positional[1]) {
			inv.attach = true
		} else {
			inv.core = true
		}
	}
	return inv
}

func isPID(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// findGdb resolves --gdb, else gdb on PATH.
func findGdb(flag string) (string, error) {
	name := "gdb"
	if flag != "" {
		name = flag
	}
	p, err := exec.LookPath(name)
	if err != nil {
		if flag != "" {
			return "", &usageError{cmd: "gdb", msg: fmt.Sprintf("--gdb %s: not found or not executable", flag)}
		}
		return "", &usageError{cmd: "gdb", msg: "gdb not found on PATH: install gdb 13 or later (apt-get install gdb; mpidbg dap and the MI commands need 13) or give --gdb PATH"}
	}
	return p, nil
}

// findGdbExt returns the absolute path of the script gdb sources:
// $MPIDBG_GDB_EXT (a directory or the script), else
// ../extensions/gdb/mpidbg-gdb.py beside the executable.
func findGdbExt() (string, error) {
	var p, from string
	if env := os.Getenv(envvar.GdbExt); env != "" {
		p, from = env, "$"+envvar.GdbExt
	} else {
		exe, err := os.Executable()
		if err != nil {
			return "", fmt.Errorf("gdb: cannot find the mpidbg executable to locate the gdb extension: %v; set %s", err, envvar.GdbExt)
		}
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p, from = filepath.Join(filepath.Dir(exe), "..", "extensions", "gdb"), "beside mpidbg"
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		abs = filepath.Join(abs, gdbScript)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		return "", &usageError{cmd: "gdb", msg: fmt.Sprintf("the gdb extension is missing: no file %s (%s); set %s to the extensions/gdb directory of the mpidbg source tree", abs, from, envvar.GdbExt)}
	}
	return abs, nil
}
