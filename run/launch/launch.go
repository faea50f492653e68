package launch

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/report"
)

// Config is one job.
type Config struct {
	MPIExec      string   // path of mpiexec
	LauncherArgs []string // passed to mpiexec before everything else
	NP           int      // number of ranks
	Env          []Var    // for the ranks; Run adds MPIDBG_REPORT and MPIDBG_TOKEN
	Program      string
	Args         []string
	// Line, when not nil, is the user's own launcher line after the
	// launcher (MPIExec): it replaces LauncherArgs, NP, Program and Args,
	// and gets only Env added (line.go). With Wrap, MPIExec is not a
	// launcher but a command that runs launchers (a batch script), and
	// gets Env in its environment (WrapEnv).
	Line []string
	Wrap bool
	Dir  string // mpiexec's working directory ("": this process's)

	Listen string // "" for a Unix socket, else HOST:PORT for TCP

	Stdin          io.Reader // nil: no input
	Stdout, Stderr io.Writer

	// Signals are forwarded to mpiexec while it runs. A SIGINT is not
	// forwarded when standard input is the terminal and mpidbg runs in its
	// foreground: the terminal sent it to mpiexec too (they share the
	// process group), and Hydra takes a second SIGINT for SIGKILL.
	Signals <-chan os.Signal

	// Grace is how long queued connections may wait to be accepted once
	// mpiexec has exited, Drain how long open connections may take to end.
	// Zero values mean 200 ms and 3 s.
	Grace, Drain time.Duration

	// DeadlockTimeout turns the deadlock detector on: when every rank that
	// has not finished has been blocked this long with nothing changing,
	// and the wait-for graph says some can never continue, a deadlock
	// finding goes into the Collector and the job ends (SIGTERM to
	// mpiexec, SIGKILL to what is left after KillGrace, 3 s when zero).
	// So it does, with a note rather than a finding, when the graph sees
	// no deadlock but ranks wait in the calls where they reported errors
	// (report.StuckAtErrors).
	// With StopOnDeadlock the blocked ranks stop themselves for a
	// debugger instead, and the job runs on until it is ended. With
	// ZeroBuffering (the ranks run with MPIDBG_BUFFERING=zero) a deadlock
	// through a send only zero buffering blocked is a potential one.
	DeadlockTimeout time.Duration
	ZeroBuffering   bool
	StopOnDeadlock  bool
	KillGrace       time.Duration
	// AbortOnError: the ranks run with MPIDBG_ON_ERROR=abort, so the
	// first error finding ends the job (the rank calls MPI_Abort): from
	// then on the launcher's abort banner is left out, as when mpidbg
	// ends the job itself.
	AbortOnError bool
	// OnDeadlock, when set, is told of the deadlock instead: the job runs
	// on (mpidbg dap stops the ranks in the debugger).
	OnDeadlock func(checks.Finding)
}

// Result is how the job ended.
type Result struct {
	ExitCode    int    // mpiexec's exit status; 128+N when a signal N killed it
	Status      string // "" for status 0, else "exit status 3" or "signal 9"
	Interrupted string // the first signal that came ("SIGINT"), or ""
	Signal      int    // its number, or 0
	Report      string // the MPIDBG_REPORT address the ranks were given
	// Deadlock: the detector found one (and mpidbg ended the job, unless
	// StopOnDeadlock); then mpiexec's status says only how it took that.
	Deadlock bool
	// Stuck: the job stopped, without a deadlock, with ranks waiting in
	// the calls where they reported errors; mpidbg ended it (or stopped
	// the ranks) as for a deadlock.
	Stuck bool
	// Connected counts the ranks that said hello (called MPI_Init with
	// the shim loaded).
	Connected int
	// Refused counts the report connections turned away: without the
	// job's token, or beyond its ranks (Listener).
	Refused report.Refused
	// LaunchError is mpiexec's own message (the last lines of its
	// standard error, made short) when no rank connected and mpiexec
	// failed, or said that it could not start the program: "execvp error
	// on file ring", Open MPI's "not enough slots"; "" when it said
	// nothing (a program that is not an MPI program may have failed).
	LaunchError string
	// OutputLost is why the program's standard output stopped reaching
	// Stdout (a reader that went away: EPIPE), or nil; the rest was
	// dropped and the job ran on.
	OutputLost error
}

// Run runs the job and returns when mpiexec has exited and the ranks'
// connections are drained; everything the ranks sent is in col. An error
// means the job could not be started.
func Run(cfg Config, col *report.Collector) (Result, error) {
	var ln *Listener
	var err error
	if cfg.Listen != "" {
		ln, err = ListenTCP(cfg.Listen)
	} else {
		ln, err = ListenUnix()
	}
	if err != nil {
		return Result{}, err
	}
	defer ln.Close()
	ln.Expect(cfg.NP)
	ln.Serve(col)

	env := append(append([]Var(nil), cfg.Env...), Var{Name: envvar.Report, Value: ln.Report()},
		Var{Name: envvar.Token, Value: ln.Token(), Secret: true})
	var cmd *exec.Cmd
	if cfg.Line != nil {
		var argv []string
		var proc []Var
		if cfg.Wrap {
			argv, proc = cfg.Line, WrapEnv(env)
		} else {
			_, f, _ := LauncherOf(cfg.MPIExec)
			argv, proc = LineArgs(f, cfg.Line, env)
		}
		cmd = exec.Command(cfg.MPIExec, argv...)
		cmd.Env = SecretEnv(env)
		for _, v := range proc {
			cmd.Env = append(cmd.Env, v.Name+"="+v.Value)
		}
	} else {
		cmd = exec.Command(cfg.MPIExec, Args(FlavorOf(cfg.MPIExec), cfg.NP, cfg.LauncherArgs, env, cfg.Program, cfg.Args)...)
		cmd.Env = SecretEnv(env)
	}
	cmd.Dir = cfg.Dir
	// Both streams pass through unchanged (but for the launcher's banner
	// once mpidbg ends the job: bannerFilter); a copy of each is scanned
	// for the launcher's account of processes that died (Hydra prints it
	// on standard output, Open MPI on standard error), and the end of standard error is kept for
	// mpiexec's own message should no rank start.
	scanOut := &statusScanner{report: col.ProcessStatus, reportRank: col.RankStatus}
	scanErr := &statusScanner{report: col.ProcessStatus, reportRank: col.RankStatus}
	tail := &tailWriter{}
	// mpidbg writes to standard error too while the job runs (how to
	// attach to stopped ranks): one writer at a time.
	stderr := &lockedWriter{w: orDiscard(cfg.Stderr)}
	stdout := &lossyWriter{w: orDiscard(cfg.Stdout)}
	outFilter, errFilter := newBannerFilter(stdout), newBannerFilter(&lossyWriter{w: stderr})
	cmd.Stdin = cfg.Stdin
	cmd.Stdout = io.MultiWriter(outFilter, scanOut)
	cmd.Stderr = io.MultiWriter(errFilter, scanErr, tail)
	// Should a process that outlives mpiexec hold its standard streams,
	// stop copying them this long after mpiexec exits rather than hang.
	cmd.WaitDelay = 2 * time.Second
	done, err := startOwned(cmd)
	if err != nil {
		ln.Drain(0, 0)
		return Result{}, fmt.Errorf("start %s: %w", cfg.MPIExec, err)
	}
	ending := func() { outFilter.End(); errFilter.End() }
	if cfg.AbortOnError {
		// The rank that found it calls MPI_Abort itself, and the launcher
		// ends the others: the report says mpidbg ended the job, and why,
		// rather than that the ranks ended without a word.
		var first sync.Once
		ln.mu.Lock() // the listener already serves
		ln.onError = func(f checks.Finding) {
			first.Do(func() {
				who := "a rank's"
				if len(f.Ranks) == 1 {
					who = fmt.Sprintf("rank %d's", f.Ranks[0])
				}
				why := fmt.Sprintf("%s %s at %s (--on-error abort)", who, f.ID, f.Call)
				col.EndedJob(why)
				col.Notef("mpidbg ended the job: %s; the rank called MPI_Abort", why)
			})
			ending()
		}
		ln.mu.Unlock()
	}
	res := Result{Report: ln.Report()}
	deadlocked := make(chan found, 1)
	stopDetector := make(chan struct{})
	defer close(stopDetector)
	if cfg.DeadlockTimeout > 0 {
		d := &detector{col: col, size: cfg.NP, timeout: cfg.DeadlockTimeout, zero: cfg.ZeroBuffering, send: ln.Send}
		go d.watch(deadlocked, stopDetector)
	}
	killGrace := cfg.KillGrace
	if killGrace == 0 {
		killGrace = 3 * time.Second
	}
	var kill <-chan time.Time // armed once the job is being ended
	var endedBy string        // the signal that began it, for the note
	var why string            // the deadlock finding's id
	var werr error
wait:
	for {
		select {
		case werr = <-done:
			break wait
		case f := <-deadlocked:
			why = f.why()
			if len(f.unsure) > 0 {
				col.Notef("reported unconfirmed: %s never said it was still blocked, only that a thread of it that could run got no CPU time (%d answers so)", ranklist.Phrase(f.unsure), maxUnsure+1)
			}
			if len(f.stuck.Ranks) > 0 {
				res.Stuck = true
				if cfg.OnDeadlock != nil {
					// the debugger stopped the ranks at the errors already
					col.Notef("nothing moved for %v: %s", cfg.DeadlockTimeout, f.text())
					continue
				}
			} else {
				res.Deadlock = true
				col.AddJobFinding(f.finding)
				if cfg.OnDeadlock != nil {
					cfg.OnDeadlock(f.finding)
					continue
				}
			}
			if cfg.StopOnDeadlock {
				stopRanks(ln, f, stderr)
				continue
			}
			col.EndedJob(why)
			ending()
			to := filepath.Base(cfg.MPIExec)
			if cfg.Wrap {
				signalTree(cmd.Process.Pid, syscall.SIGTERM)
				to += " and the processes below it"
			} else {
				cmd.Process.Signal(syscall.SIGTERM)
				if here, err := os.Hostname(); err == nil {
					if n := signalRanks(cmd.Process.Pid, syscall.SIGTERM, f.state.PIDs(here)); n == 1 {
						to += " and its rank on this host"
					} else if n > 1 {
						to += fmt.Sprintf(" and its %d ranks on this host", n)
					}
				}
			}
			if res.Stuck {
				col.Notef("mpidbg ended the job: nothing moved for %v, and %s (SIGTERM to %s)", cfg.DeadlockTimeout, f.text(), to)
			} else {
				col.Notef("mpidbg ended the job: %s (SIGTERM to %s)", f.text(), to)
			}
			kill, endedBy = time.After(killGrace), "SIGTERM"
		case <-kill:
			col.EndedJob(why) // already so unless the ranks were stopped
			col.Notef("%s did not end within %v of %s: SIGKILL to it and the processes below it", filepath.Base(cfg.MPIExec), killGrace, endedBy)
			ending()
			killTree(cmd.Process.Pid)
		case sig := <-cfg.Signals:
			if (res.Deadlock || res.Stuck) && kill == nil {
				// The ranks are stopped for a debugger and take no
				// signal: the user ends the job, mpidbg makes sure.
				kill, endedBy = time.After(killGrace), signalName(sig)
			}
			if res.Interrupted == "" {
				res.Interrupted = signalName(sig)
				if ss, ok := sig.(syscall.Signal); ok {
					res.Signal = int(ss)
				}
			}
			if sig == syscall.SIGINT && terminalSentIt(cfg.Stdin) {
				continue
			}
			cmd.Process.Signal(sig)
		}
	}
	scanOut.flush()
	scanErr.flush()
	outFilter.Flush()
	errFilter.Flush()
	res.OutputLost = stdout.Lost()

	res.ExitCode = cmd.ProcessState.ExitCode()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		res.ExitCode = 128 + int(ws.Signal())
		res.Status = "signal " + fmt.Sprint(int(ws.Signal()))
	} else if res.ExitCode != 0 {
		res.Status = fmt.Sprintf("exit status %d", res.ExitCode)
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		col.Notef("waiting for %s: %v", cfg.MPIExec, werr) // standard stream copy failed
	}

	grace, drain := cfg.Grace, cfg.Drain
	if grace == 0 {
		grace = 200 * time.Millisecond
	}
	if drain == 0 {
		drain = 3 * time.Second
	}
	ln.Drain(grace, drain)
	res.Connected = ln.Connected()
	res.Refused = ln.Refused()
	if res.Connected == 0 && res.Interrupted == "" && !res.Deadlock && !res.Stuck {
		if res.ExitCode != 0 || tail.launcherSaid() {
			res.LaunchError = tail.message()
		}
	}
	return res, nil
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// signalName is "SIGINT" for syscall.SIGINT.
func signalName(s os.Signal) string {
	if ss, ok := s.(syscall.Signal); ok {
		switch ss {
		case syscall.SIGINT:
			return "SIGINT"
		case syscall.SIGTERM:
			return "SIGTERM"
		case syscall.SIGHUP:
			return "SIGHUP"
		case syscall.SIGQUIT:
			return "SIGQUIT"
		}
		return fmt.Sprintf("signal %d", int(ss))
	}
	return s.String()
}

// terminalSentIt reports whether in is a terminal whose foreground
// process group is ours: then a SIGINT came from the keyboard and reached
// mpiexec, which shares our process group, as well.
func terminalSentIt(in io.Reader) bool {
	f, ok := in.(*os.File)
	if !ok {
		return false
	}
	var pgrp int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGPGRP, uintptr(unsafe.Pointer(&pgrp)))
	return errno == 0 && int(pgrp) == syscall.Getpgrp()
}
