package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/symbolize"
	"github.com/mpidbg/mpidbg/pretty"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
	"github.com/spf13/pflag"
)

var runCommand = &command{
	name:    "run",
	args:    "-n N PROGRAM [ARGS...]  |  [flags] -- LAUNCHER [LAUNCHER-ARGS...] PROGRAM [ARGS...]",
	summary: "run an MPI program with every rank checked; report on standard error",
	about: `Runs PROGRAM with N ranks under mpiexec, with the shim (libmpidbg.so)
preloaded into every rank. The shim checks each MPI call as it happens and
sends what it finds to mpidbg at once, so nothing is lost when a rank
crashes. When the job ends, mpidbg prints one report on standard error:
one entry per bug, however many ranks made it (their ranks folded into a
pattern such as "each rank r sends to r+1; ranks 0-63"), with file:line
from the program's debug information (build with -g) and the faulty
call's source line with the argument at fault marked, then how each rank
ended (a signal at the program's line, MPI_Abort, an exit without
MPI_Finalize). The program's standard input, output and error pass
through unchanged.

mpidbg's flags come before PROGRAM; everything after PROGRAM is the
program's ("--" ends mpidbg's flags, for a program whose name starts with
"-"). Options for mpiexec itself go in --launcher-arg, one word each; they
come before the rest of mpiexec's command line:
  mpiexec LAUNCHER-ARGS... -genv LD_PRELOAD SHIM -genv MPIDBG_REPORT ADDR ... -n N PROGRAM ARGS...
(Open MPI's mpiexec gets -x NAME=VALUE instead of -genv NAME VALUE.)
The shim goes into the ranks' environment only, never into mpiexec's.
The job's token, MPIDBG_TOKEN, is the exception: its value is in
mpiexec's environment, never on its command line (Open MPI gets -x NAME).

Your own launcher line: when the first word after mpidbg's flags is a
launcher (srun, mpiexec, mpirun, mpiexec.hydra, mpiexec.mpich,
mpiexec.openmpi, orterun, prterun), mpidbg runs that line as written and
adds only its environment for the ranks, in the launcher's form:
  mpidbg run -- srun -N 2 -n 8 --mpi=pmix ./app      (srun --export=ALL,LD_PRELOAD=SHIM,MPIDBG_REPORT,...)
  mpidbg run -- mpiexec -f hosts -n 16 ./app       (-genv NAME VALUE, or -x for Open MPI)
srun gets the shim's path in --export and mpidbg's other variables by
name, from its own environment; a --export of the line keeps its list
and gets these added (NONE and NIL become these alone). The program is
the first word after the launcher's options that names an executable
file; it decides the MPI as above. -n, --mpiexec and --launcher-arg do
not go with a launcher line: its own options say that. MPICH under srun
needs --mpi=pmi2, Open MPI --mpi=pmix (Slurm's PMI).

The ranks reach mpidbg through a Unix socket in a private directory. For a
job that spans machines, --listen HOST:PORT listens on TCP instead; HOST
must be reachable from every node (":0" picks a port and this host's
name). Every job has a random token that only its ranks receive; a
connection that does not send it first, and any beyond the job's ranks,
is closed unread and counted in the report.

MPICH and Open MPI each have their own shim. The MPI is --mpi, else the
one PROGRAM links (mpidbg reads its ELF dependencies; for a Python
interpreter, python3 app.py, the one its mpi4py links; a script falls
back to the shim's, then to MPICH); a --mpi or --shim that contradicts the
program is refused. The shim is --shim, else $MPIDBG_SHIM, else the MPI's
in ../lib next to the mpidbg executable: libmpidbg.so for MPICH,
libmpidbg-openmpi.so for Open MPI (bin/mpidbg in a source tree built with
'make build'). mpiexec is --mpiexec, else the MPI's own (mpiexec.mpich,
mpiexec.openmpi), else mpiexec. Open MPI's mpiexec refuses to run as root
unless OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 are
set, and more ranks than cores unless OMPI_MCA_rmaps_base_oversubscribe=1.

Suppressions: a finding reviewed and found harmless is left out of the
report by a rule in a --suppress FILE (repeatable) or in .mpidbg-suppress
beside the program, one per line, '#' for comments: a finding id or
category, then FILE:LINE, FILE, function=NAME or '*':
  message-race   src/master.c:40
  leak           *
The summary says how many were suppressed ("1 suppressed"); a bad line is
a usage error naming its file and line (docs/run.md, "Suppressions").
The rules apply to the report, after the job: --on-error abort or stop,
which the ranks act on at the finding's call, is refused beside a rule
that can cover an error.

Deadlocks: each rank tells mpidbg when an MPI call has been blocked for
100 ms. When every rank that has not finished has been blocked for
--deadlock-timeout (2s; 0 turns the detector off) with nothing changing,
and the wait-for graph shows ranks that can never continue, mpidbg reports
the deadlock (the cycle or knot, each blocked rank's call, arguments and
stack) and ends the job: SIGTERM to mpiexec and to its ranks on this
machine, SIGKILL to what is left 3 s later. It ends the job the same way,
with a note, when the ranks stop without a deadlock but wait in the calls
where they reported errors (a collective called with different roots or
counts, which MPI never completes). With --on-error stop, the blocked ranks stop themselves (SIGSTOP)
instead, and mpidbg prints a gdb command for each. --buffering zero makes
every standard-mode send synchronous, as an MPI without buffer space may:
a program that then deadlocks only works thanks to eager buffering
(reported as potential-deadlock).

One-sided communication: --nasty (the forcing mode, docs/nasty.md) holds
every MPI_Put, MPI_Get and accumulate back until a synchronisation call
requires it (fence, complete, unlock, flush...), issues multi-element
operations element by element, and in an order the standard allows
(--nasty-order: random, reverse, puts-first, gets-first, program), as an
MPI library on another network may. A program that only works because
MPI completes operations early then breaks under mpidbg, where the race
checks see it; an operation held while the rank keeps polling is
reported as rma-unsynchronised after --nasty-hold-timeout. The random
order's seed is printed; --nasty-seed replays a run. Each --nasty flag
has an environment variable (MPIDBG_NASTY, MPIDBG_NASTY_SEED,
MPIDBG_NASTY_ORDER, ...) that is its default.

PROGRAM is found the way the MPI's mpiexec will look for it: a name with
a slash is a path; a bare name is looked up on PATH, and under Open MPI,
when it is not there, in the current directory (Open MPI's mpiexec runs
it from there); MPICH's mpiexec (Hydra) does not look there, so under
MPICH a program in the current directory needs ./app. mpidbg refuses a
program that is missing or not executable, and a script whose
interpreter (the #! line) is.
When no rank connects, nothing was checked, and mpidbg says so instead
of the report: with mpiexec's own message (the last lines of its
standard error) when mpiexec failed before any rank started, or, when
the program ran without ever calling MPI_Init with the shim loaded (not
an MPI program, or a statically linked one), that nothing was checked.
When mpidbg ends the job, the launcher's banner about the ranks it lost
(Hydra's "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES", Open
MPI's "mpiexec noticed that process rank ...") is left out: the report
says why the job ended. Everything else the program and mpiexec write
passes through unchanged. Should standard output close (mpidbg run ...
| head), the rest of the program's output is dropped and the job runs
on; the report still goes to standard error.

Ctrl-C or SIGTERM goes to mpiexec (which passes it to the ranks); the
report of what was collected is still printed. Should mpidbg itself die
(SIGKILL included), mpiexec gets SIGTERM, and each rank that called
MPI_Init ends itself when its connection to mpidbg closes before
MPI_Finalize: no part of the job outlives mpidbg.

Exit status: 1 when mpidbg found a deadlock or a job stuck at its
errors (so mpiexec's status says nothing about the program); otherwise
128+N after signal N interrupted the job (130 for SIGINT, 143 for
SIGTERM); otherwise the program's (mpiexec's) when it failed, a launch
that failed included; 1 when no rank connected although mpiexec
succeeded (nothing was checked), when there is an error finding, or
when a --json or --sarif file could not be written; else 0. 2 only for
usage errors: a bad flag, no program or one that cannot run, mpiexec or
the shim missing, --json and --sarif naming the same file.

Examples:
  mpidbg run -n 4 ./app input.dat
  mpidbg run -n 2 --json report.json --sarif report.sarif ./app
  mpidbg run -n 8 --checks -leak,-overlap --on-error stop ./app
  mpidbg run -n 4 --checks +message-race-info --suppress reviewed.supp ./app
  mpidbg run -n 4 --buffering zero --deadlock-timeout 5s ./app
  mpidbg run -n 4 --nasty --nasty-seed=1234 ./app
  mpidbg run -n 16 --launcher-arg=-f --launcher-arg=hosts --listen node0:0 ./app
  mpidbg run --listen node0:0 -- srun -N 4 -n 64 --mpi=pmix ./app`,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error { return registerRun(fs, false) },
}

// registerRun declares the flags of run, or of collect, which has those
// that do not say how to start the job.
func registerRun(fs *pflag.FlagSet, collect bool) func(o *output, args []string) error {
	r := &runFlags{collect: collect, fs: fs}
	fs.SetInterspersed(false) // the program's arguments are its own
	if !collect {
		fs.IntVarP(&r.np, "np", "n", 0, "start `N` ranks")
		fs.StringVar(&r.mpiexec, "mpiexec", "", "the mpiexec to run: a `PATH` or a name on PATH (default: the MPI's own, mpiexec.mpich or mpiexec.openmpi, else mpiexec)")
		fs.StringArrayVar(&r.launcherArgs, "launcher-arg", nil, "pass `ARG` to mpiexec before its other arguments (repeat for each word)")
	}
	mpiHelp := "the MPI library, `NAME`: mpich or openmpi (default: the one PROGRAM links)"
	if collect {
		mpiHelp = "the MPI library of the jobs, `NAME`: mpich or openmpi (default: the one a launcher line's program links, else mpich)"
	}
	fs.StringVar(&r.mpi, "mpi", "", mpiHelp)
	fs.StringVar(&r.shim, "shim", "", "the shim library `PATH` (default: $MPIDBG_SHIM, else the MPI's in ../lib beside mpidbg)")
	fs.StringVar(&r.onError, "on-error", "continue", "what a rank does after an error finding, `MODE`: continue, abort (MPI_Abort) or stop (wait for a debugger)")
	fs.StringVar(&r.checks, "checks", "", "categories to turn off (-CATEGORY) and findings that are off by default to turn on (+ID), a `LIST` such as -leak,-overlap,+message-race-info (see 'mpidbg explain')")
	fs.StringVar(&r.json, "json", "", "also write the findings as JSON to `FILE`")
	fs.StringVar(&r.sarif, "sarif", "", "also write the findings as SARIF 2.1.0 to `FILE`")
	fs.StringVar(&r.listen, "listen", "", "listen for the ranks on TCP `HOST:PORT` instead of a Unix socket (multi-node jobs)")
	fs.DurationVar(&r.deadlockTimeout, "deadlock-timeout", 2*time.Second, "report a deadlock once every rank has been blocked this `DURATION` (0: never)")
	fs.StringVar(&r.buffering, "buffering", "eager", "standard-mode sends, `MODE`: eager (as MPI does) or zero (synchronous: finds programs that rely on buffering)")
	fs.BoolVarP(&r.quiet, "quiet", "q", false, "print only the summary line, and nothing for a clean run")
	fs.StringArrayVar(&r.suppress, "suppress", nil, "leave out the findings the rules of suppression `FILE` cover (repeatable; ./"+report.SuppressFile+" beside the program is read too)")
	r.nasty.register(fs)
	return r.run
}

type runFlags struct {
	fs                                               *pflag.FlagSet
	collect                                          bool // mpidbg collect: the command runs launchers itself
	np                                               int
	mpi, mpiexec, shim, onError, checks, json, sarif string
	listen, buffering                                string
	launcherArgs                                     []string
	quiet                                            bool
	deadlockTimeout                                  time.Duration
	nasty                                            nastyFlags // run_nasty.go
	suppress                                         []string   // suppression files (run/report/suppress.go)
}

// exitStatus is an error that only carries run's exit status: the
// command has said what it had to.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// Hooks for tests: the program's standard input, the signals to
// forward, the time between SIGTERM and SIGKILL when mpidbg ends a
// deadlocked job (0: launch's default), and how the program is found
// (the fake mpiexec's scenarios are not on PATH).
var (
	runKillGrace time.Duration
	runStdin     io.Reader = os.Stdin
	runSignals             = func() (<-chan os.Signal, func()) {
		ch := make(chan os.Signal, 4)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		return ch, func() { signal.Stop(ch) }
	}
	runResolve = launch.ResolveFor
)

// errorRule is the first rule that can cover an error finding (one of
// severity error: the only ones --on-error acts on).
func errorRule(rules []report.Rule) (report.Rule, bool) {
	for _, r := range rules {
		if r.What == "*" {
			return r, true
		}
		for _, e := range checks.All() {
			if e.Severity == checks.SevError && (e.ID == r.What || string(e.Category) == r.What) {
				return r, true
			}
		}
	}
	return report.Rule{}, false
}

func (rf *runFlags) name() string {
	if rf.collect {
		return "collect"
	}
	return "run"
}

func (rf *runFlags) run(o *output, args []string) error {
	bad := func(format string, a ...any) error {
		return &usageError{cmd: rf.name(), msg: fmt.Sprintf(format, a...), hint: true}
	}
	// the user's own launcher line: args is LAUNCHER ARGS... PROGRAM
	// ARGS..., or for collect a command that runs launchers
	var launcher string
	if len(args) > 0 {
		if p, _, ok := launch.LauncherOf(args[0]); ok {
			launcher = p
		} else if rf.collect {
			launcher = args[0]
		}
	}
	switch {
	case len(args) == 0 && rf.collect:
		return bad("missing the command to run")
	case len(args) == 0:
		return bad("missing the program to run")
	case launcher != "" && rf.np != 0:
		return bad("-n %d with a launcher line: the line's own options (%s -n, srun -n) give the number of ranks", rf.np, filepath.Base(args[0]))
	case launcher != "" && (rf.mpiexec != "" || len(rf.launcherArgs) > 0):
		return bad("--mpiexec and --launcher-arg with a launcher line: write the launcher's options in the line")
	case launcher != "":
	case rf.np == 0 && !rf.fs.Changed("np"):
		return bad("missing -n N, the number of ranks")
	case rf.np < 1:
		return bad("-n %d: want at least 1", rf.np)
	case rf.np > wire.MaxRanks:
		return bad("-n %d: mpidbg takes at most %d ranks", rf.np, wire.MaxRanks)
	case !slices.Contains([]string{"continue", "abort", "stop"}, rf.onError):
		return bad("--on-error %q: want continue, abort or stop", rf.onError)
	case rf.buffering != "eager" && rf.buffering != "zero":
		return bad("--buffering %q: want eager or zero", rf.buffering)
	case rf.deadlockTimeout < 0:
		return bad("--deadlock-timeout %v: want 0 (off) or more", rf.deadlockTimeout)
	}
	if err := checks.ValidateDisabled(rf.checks); err != nil {
		return bad("--checks %q: %v", rf.checks, err)
	}
	if v := os.Getenv(envvar.Checks); rf.checks == "" && v != "" {
		// the ranks inherit it: each would refuse it alone
		if err := checks.ValidateDisabled(v); err != nil {
			return bad("%s=%q: %v", envvar.Checks, v, err)
		}
	}
	if v := os.Getenv(envvar.Buffering); v != "" {
		// the ranks inherit it (the shim would take anything else for
		// eager), and the deadlock detector must know it: the flag's
		// default
		if v != "eager" && v != "zero" {
			return bad("%s=%q: want eager or zero", envvar.Buffering, v)
		}
		if !rf.fs.Changed("buffering") {
			rf.buffering = v
		}
	}
	if err := rf.nasty.fromEnv(); err != nil {
		return bad("%v", err)
	}
	if err := rf.nasty.check(); err != nil {
		return bad("%v", err)
	}
	program, progArgs := args[0], args[1:]
	var found string
	if launcher != "" {
		i := -1
		if _, f, ok := launch.LauncherOf(args[0]); ok {
			i = launch.LineProgram(f, args[1:])
		}
		switch {
		case i >= 0:
			program, found = args[1+i], args[1+i]
		case rf.collect:
			program, found = "", "" // the MPI is --mpi's, or MPICH
		default:
			return bad("no program in the launcher line %q: no word after %s names an executable file", strings.Join(args, " "), filepath.Base(args[0]))
		}
		p, err := exec.LookPath(launcher)
		if err != nil {
			return &usageError{cmd: rf.name(), msg: fmt.Sprintf("%s: not found or not executable", args[0])}
		}
		launcher = p
	} else {
		if slices.Contains(progArgs, ":") {
			// mpiexec would start another program there (MPMD) with ranks
			// mpidbg does not count
			return bad("a ':' among %s's arguments starts another program for mpiexec; for several programs give the launcher line: mpidbg %s [flags] -- mpiexec -n 1 %s : -n 3 ./other", program, rf.name(), program)
		}
		// as mpiexec will run it: refused now rather than by every rank.
		// Which mpiexec decides whether a bare name is looked for in the
		// current directory; when there is none, findTools says so below.
		flavor := launch.Hydra
		linked := linkedMPI(program)
		if m, err := chooseLinked(program, linked, rf.mpi, rf.shim); err == nil {
			if p, err := findMPIExec(rf.mpiexec, m, linked); err == nil {
				flavor = launch.FlavorOf(p)
			}
		}
		var err error
		if found, err = runResolve(flavor, program, ""); err != nil {
			return &usageError{cmd: rf.name(), msg: "program " + err.Error()}
		}
	}
	// .mpidbg-suppress beside the program mpiexec will run; a bad rule is
	// refused before the job runs
	rules, err := report.LoadRules(rf.suppress, found)
	if err != nil {
		return &usageError{cmd: rf.name(), msg: err.Error()}
	}
	if r, ok := errorRule(rules); ok && rf.onError != "continue" {
		// the ranks act on an error themselves, at the call (MPI_Abort,
		// SIGSTOP), and the rules apply to the report only, after the
		// job: a suppressed error would still end or stop it
		verb := map[string]string{"abort": "ending", "stop": "stopping"}[rf.onError]
		return &usageError{cmd: rf.name(), msg: fmt.Sprintf("--on-error %s with suppression rules: the ranks %s at an error "+
			"finding, before the rules apply, so the rule %q (%s) would not keep a suppressed error from %s the job; "+
			"drop --on-error or the rule", rf.onError, rf.onError, r.String(), r.Source, verb)}
	}
	if rf.json != "" && rf.sarif != "" && samePath(rf.json, rf.sarif) {
		return bad("--json and --sarif name the same file %s", rf.sarif)
	}
	var mpiexec, shim string
	if launcher != "" {
		linked := linkedMPI(program)
		m, err := chooseLinked(program, linked, rf.mpi, rf.shim)
		if err != nil {
			return &usageError{cmd: rf.name(), msg: err.Error()}
		}
		if why := launcherMismatch(launcher, linked); why != "" {
			return &usageError{cmd: rf.name(), msg: why}
		}
		if shim, err = findShim(rf.shim, m); err != nil {
			return retag(err, rf.name())
		}
		mpiexec = launcher
	} else {
		tools, err := findTools(program, rf.mpi, rf.shim, rf.mpiexec)
		if err != nil {
			return retag(err, rf.name())
		}
		mpiexec, shim = tools.mpiexec, tools.shim
	}

	// Open the output files first: a typo in a path should not cost a run.
	var jsonFile, sarifFile *os.File
	for _, f := range []struct {
		name string
		out  **os.File
	}{{rf.json, &jsonFile}, {rf.sarif, &sarifFile}} {
		if f.name == "" {
			continue
		}
		if *f.out, err = os.Create(f.name); err != nil {
			return &usageError{cmd: rf.name(), msg: err.Error()}
		}
		defer (*f.out).Close()
	}

	preload := shim
	if old := os.Getenv(envvar.Preload); old != "" {
		preload += ":" + old // the user's own preloads still reach the ranks
	}
	env := []launch.Var{{Name: envvar.Preload, Value: preload}, {Name: envvar.OnError, Value: rf.onError}}
	if rf.checks != "" {
		env = append(env, launch.Var{Name: envvar.Checks, Value: rf.checks})
	}
	if rf.buffering == "zero" || os.Getenv(envvar.Buffering) != "" {
		// also over an inherited value the flag overrides
		env = append(env, launch.Var{Name: envvar.Buffering, Value: rf.buffering})
	}
	nasty, err := rf.nasty.vars()
	if err != nil {
		return &usageError{cmd: rf.name(), msg: err.Error()}
	}
	env = append(env, nasty...)
	if rf.nasty.on && !rf.quiet {
		fmt.Fprintln(o.stderr, rf.nasty.seedLine())
	}
	sigs, stop := runSignals()
	defer stop()
	// A reader of standard output that goes away (mpidbg run ... | head)
	// must not take the report on standard error with it: with SIGPIPE
	// caught, a write to a closed pipe fails with EPIPE instead of ending
	// mpidbg, and launch drops the rest of the program's output. Caught,
	// not ignored: an ignored signal would stay ignored in mpiexec and
	// the ranks.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	col := report.NewCollector()
	var line []string
	if launcher != "" {
		line = args[1:]
	}
	res, err := launch.Run(launch.Config{
		MPIExec: mpiexec, LauncherArgs: rf.launcherArgs, NP: rf.np, Env: env,
		Program: program, Args: progArgs, Line: line, Wrap: rf.collect && !isLauncher(args[0]), Listen: rf.listen,
		Stdin: runStdin, Stdout: o.stdout, Stderr: o.stderr, Signals: sigs,
		DeadlockTimeout: rf.deadlockTimeout, ZeroBuffering: rf.buffering == "zero", StopOnDeadlock: rf.onError == "stop",
		KillGrace: runKillGrace, AbortOnError: rf.onError == "abort",
	}, col)
	if err != nil {
		for _, f := range []*os.File{jsonFile, sarifFile} {
			if f != nil {
				os.Remove(f.Name())
			}
		}
		return &usageError{cmd: rf.name(), msg: err.Error()}
	}

	rep := report.Build(col, report.Job{Size: rf.np, Exit: res.Status, Interrupted: res.Interrupted, LaunchError: res.LaunchError,
		Refused: res.Refused}, symbolize.New())
	report.Suppress(rep, rules)
	dir, _ := os.Getwd()
	failed := false
	if jsonFile != nil {
		failed = writeReport(o, jsonFile, func() ([]byte, error) { return pretty.ReportJSON(rep) }) || failed
	}
	if sarifFile != nil {
		failed = writeReport(o, sarifFile, func() ([]byte, error) { return pretty.SARIF(rep, checks.All(), dir, versionString()) }) || failed
	}
	r := pretty.New(o.stderr, wantColor(o.stderr))
	if res.Connected == 0 && res.Interrupted == "" && !res.Deadlock && !res.Stuck {
		// Nothing was checked: no findings would read as a pass.
		notStarted(o, res, cmp.Or(program, args[0]), filepath.Base(mpiexec))
		for _, s := range rep.Refused.Phrases() {
			fmt.Fprintf(o.stderr, "mpidbg: %s\n", s)
		}
		if res.ExitCode != 0 {
			return exitStatus(res.ExitCode)
		}
		return exitStatus(1)
	}
	switch {
	case !rf.quiet:
		fmt.Fprintln(o.stderr, r.Report(rep, dir))
	case len(rep.Findings) > 0 || len(rep.Died) > 0 || len(rep.Silent) > 0 || rep.Refused != (report.Refused{}):
		fmt.Fprintln(o.stderr, r.ReportSummary(rep))
		if rf.nasty.on {
			fmt.Fprintln(o.stderr, rf.nasty.seedLine())
		}
	}
	return exitStatus(runStatus(res, rep.HasErrors(), failed))
}

func isLauncher(word string) bool {
	_, _, ok := launch.LauncherOf(word)
	return ok
}

// runStatus is run's exit status for a job that ran: 1 when mpidbg found
// a deadlock or a job stuck at its errors (mpiexec's status is about how
// it was ended, by mpidbg or, with the ranks stopped for a debugger, by
// the user's Ctrl-C); 128+N when signal N interrupted it (mpiexec's own
// status then says how it took the signal: Hydra exits 0 after passing
// SIGINT on, or 2); the program's (mpiexec's) when it failed; 1 when
// there is an error finding or a report file could not be written; else
// 0.
func runStatus(res launch.Result, errors, failed bool) int {
	switch {
	case res.Deadlock, res.Stuck:
		return 1
	case res.Signal != 0:
		return 128 + res.Signal
	case res.ExitCode != 0:
		return res.ExitCode
	case errors, failed:
		return 1
	}
	return 0
}

// notStarted says, instead of the report, that no rank connected: either
// mpiexec could not start the program (its own message), or the program
// ran without ever calling MPI_Init with the shim loaded, so that
// nothing was checked.
func notStarted(o *output, res launch.Result, program, mpiexec string) {
	if h := pythonHint(program); h != "" {
		defer fmt.Fprintf(o.stderr, "mpidbg: note: %s\n", h)
	}
	if res.LaunchError != "" {
		fmt.Fprintf(o.stderr, "mpidbg: error: no rank reached MPI_Init under mpidbg, so nothing was checked: %s ended with %s, saying:\n", mpiexec, cmp.Or(res.Status, "exit status 0"))
		for _, l := range strings.Split(res.LaunchError, "\n") {
			fmt.Fprintf(o.stderr, "  %s\n", l)
		}
		return
	}
	if res.Status != "" {
		// a launcher that failed saying nothing, or a program that failed
		// before MPI_Init: the status alone cannot tell which
		fmt.Fprintf(o.stderr, "mpidbg: error: no rank connected to mpidbg, so nothing was checked: %s ended with %s and said nothing: it could not start %s, or %s failed before MPI_Init or ran without the shim (a statically linked program, or a launcher that does not pass LD_PRELOAD on)\n", mpiexec, res.Status, program, program)
		return
	}
	fmt.Fprintf(o.stderr, "mpidbg: error: no rank connected to mpidbg, so nothing was checked: %s never called MPI_Init (not an MPI program), or the shim was not loaded into it (a statically linked program, or a launcher that does not pass LD_PRELOAD on)\n", program)
}

// systemPython is the interpreter Debian's python3-mpi4py is installed
// for.
const systemPython = "/usr/bin/python3"

// pythonHint explains a Python job whose ranks never reached MPI_Init
// when its interpreter has no mpi4py, as a python3 of pyenv or of a
// virtual environment found on PATH before the system's: it names the
// interpreter that was run and, when the system's has mpi4py, that one.
// A virtual environment's python3 is a link to the system's and still
// has its own packages, so the paths are compared as written. "" for any
// other program.
func pythonHint(program string) string {
	p, err := exec.LookPath(program)
	if err != nil {
		return ""
	}
	if _, err := mpilib.DetectPython(p); !errors.Is(err, mpilib.ErrNoMPI4Py) {
		return ""
	}
	msg := fmt.Sprintf("%s is %s, which has no mpi4py", program, p)
	if abs, err := filepath.Abs(p); err == nil && abs != systemPython {
		if m, err := mpilib.DetectPython(systemPython); err == nil {
			return msg + fmt.Sprintf("; %s has mpi4py (built for %s): give its path, mpidbg run -n N %s SCRIPT", systemPython, m, systemPython)
		}
	}
	return msg + fmt.Sprintf(": pip install mpi4py for %s, or apt-get install python3-mpi4py and run %s", p, systemPython)
}

// samePath reports whether a and b name one file (it need not exist).
func samePath(a, b string) bool {
	fa, ea := os.Stat(a)
	fb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return os.SameFile(fa, fb)
	}
	return resolved(a) == resolved(b)
}

// resolved is where a file that may not exist yet would be made: its
// absolute path with the symbolic links on the way followed, the last
// one too (a link to a file still to be written).
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	for i := 0; i < 40; i++ { // as many links as the kernel follows
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		t, err := os.Readlink(abs)
		if err != nil {
			break
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(abs), t)
		}
		abs = filepath.Clean(t)
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

// writeReport writes what render makes to f; it says what went wrong and
// returns true on failure.
func writeReport(o *output, f *os.File, render func() ([]byte, error)) bool {
	b, err := render()
	if err == nil {
		_, err = f.Write(b)
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && pe.Path == f.Name() {
			err = pe.Err // the path is said once
		}
		fmt.Fprintf(o.stderr, "mpidbg run: write %s: %v\n", f.Name(), err)
		return true
	}
	return false
}
