package dap

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/ranklist"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

// launchArgs is the launch configuration (extensions/vscode/package.json
// has its schema).
type launchArgs struct {
	Program         string             `json:"program"`
	Args            []string           `json:"args"`
	Cwd             string             `json:"cwd"`
	Env             map[string]*string `json:"env"`
	NP              *int               `json:"np"` // nil: 2
	MPI             string             `json:"mpi"`
	MPIExec         string             `json:"mpiexec"`
	MPIExecArgs     []string           `json:"mpiexecArgs"`
	StopOnEntry     bool               `json:"stopOnEntry"`
	StopOnError     *bool              `json:"stopOnError"`
	Ranks           json.RawMessage    `json:"ranks"`
	Checks          string             `json:"checks"`
	NonStop         bool               `json:"nonStop"`
	DeadlockTimeout string             `json:"deadlockTimeout"`
	Gdb             string             `json:"gdb"`
	Shim            string             `json:"shim"`
	Buffering       string             `json:"buffering"`
	AttachTimeout   string             `json:"attachTimeout"`
	Suppress        []string           `json:"suppress"` // suppression files (run/report/suppress.go)
	Listen          string             `json:"listen"`   // HOST[:PORT] of this machine that ranks on other hosts reach (remote.go)
	Gdbserver       string             `json:"gdbserver"`
	Sysroot         string             `json:"sysroot"`
	rules           suppressRules      // read from Suppress and the program's .mpidbg-suppress by jobConfig
}

// job is a launched MPI job.
type job struct {
	dir      string         // the private directory the ranks publish their pids in
	signals  chan os.Signal // to mpiexec
	done     chan struct{}  // closed when mpiexec has exited
	result   launch.Result
	err      error
	selected []int        // the ranks under the debugger
	entry    bool         // stopOnEntry
	remote   *remoteRanks // ranks on other hosts connect here; nil without "listen"
}

func (s *Server) session() *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

// onLaunchRequest starts gdb and the job, and attaches every selected
// rank, which waits in the shim's constructor (shim/debugger.c) until
// configurationDone releases it.
func (s *Server) onLaunchRequest(req *dap.LaunchRequest) {
	if s.session() != nil {
		s.fail(req, errTwice, "a job is already being debugged")
		return
	}
	var a launchArgs
	if err := unmarshalArgs(req.Arguments, &a); err != nil {
		s.fail(req, errLaunchArgs, "launch: %s", argError(req.Arguments, err))
		return
	}
	cfg, selected, err := s.jobConfig(&a)
	if err != nil {
		s.fail(req, errLaunchArgs, "%v", err)
		return
	}
	attachTimeout, err := parseAttachTimeout(a.AttachTimeout)
	if err != nil {
		s.fail(req, errLaunchArgs, "%v", err)
		return
	}
	ss, err := s.startGdb(a.Gdb, a.NonStop)
	if err != nil {
		s.fail(req, errLaunchFailed, "cannot start gdb: %v", err)
		return
	}
	dir, err := os.MkdirTemp("", "mpidbg-dap-") // mode 0700: the user's alone
	if err != nil {
		ss.close()
		s.fail(req, errLaunchFailed, "%v", err)
		return
	}
	j := &job{dir: dir, signals: make(chan os.Signal, 4), done: make(chan struct{}), selected: selected,
		entry: a.StopOnEntry}
	cfg.Env = append(cfg.Env, launch.Var{Name: envvar.Debugger, Value: dir},
		launch.Var{Name: envvar.DebuggerTimeout, Value: strconv.Itoa(int(attachTimeout.Seconds()) + 5)})
	if len(selected) < cfg.NP {
		cfg.Env = append(cfg.Env, launch.Var{Name: envvar.DebuggerRanks, Value: rankList(selected)})
	}
	if host, err := os.Hostname(); err == nil {
		cfg.Env = append(cfg.Env, launch.Var{Name: envvar.DebuggerHost, Value: host})
	}
	if a.Sysroot != "" {
		if _, err := ss.mi("-gdb-set sysroot %s", a.Sysroot); err != nil {
			ss.close()
			os.RemoveAll(dir)
			s.fail(req, errLaunchArgs, "sysroot: %v", err)
			return
		}
	}
	if a.Listen != "" {
		var env []launch.Var
		if j.remote, env, err = ss.listenRemote(&a, dir, len(selected)); err != nil {
			ss.close()
			os.RemoveAll(dir)
			s.fail(req, errLaunchFailed, "%v", err)
			return
		}
		cfg.Env = append(cfg.Env, env...)
	}
	cfg.Signals = j.signals
	cfg.Stdout = outputWriter{s, "stdout"}
	cfg.Stderr = outputWriter{s, "stderr"}
	cfg.OnDeadlock = func(f checks.Finding) { ss.onDeadlock(f) }
	s.mu.Lock()
	s.sess = ss
	s.mu.Unlock()
	ss.job = j
	ss.noFindings = a.StopOnError != nil && !*a.StopOnError
	ss.suppress = a.rules

	col := report.NewCollector()
	go func() {
		defer close(j.done)
		j.result, j.err = launch.Run(cfg, col)
	}()
	go ss.watchJob()
	// The client may set breakpoints from now on: gdb keeps them pending
	// until the ranks' code is there.
	s.send(&dap.InitializedEvent{Event: event("initialized")})
	if err := ss.attachLaunched(j, attachTimeout); err != nil {
		ss.endJob()
		s.fail(req, errLaunchFailed, "%v", err)
		return
	}
	ss.mu.Lock()
	ss.attached = true
	ss.mu.Unlock()
	s.send(&dap.LaunchResponse{Response: response(req)})
	ss.maybeRelease()
}

// jobConfig checks a launch configuration and turns it into the job's.
func (s *Server) jobConfig(a *launchArgs) (launch.Config, []int, error) {
	var cfg launch.Config
	if a.Program == "" {
		return cfg, nil, fmt.Errorf("missing \"program\", the MPI program to debug")
	}
	np := 2
	if a.NP != nil {
		np = *a.NP
	}
	if np < 1 {
		return cfg, nil, fmt.Errorf("\"np\": %d: want at least 1", np)
	}
	if np > wire.MaxRanks {
		return cfg, nil, fmt.Errorf("\"np\": %d: mpidbg takes at most %d ranks", np, wire.MaxRanks)
	}
	// as mpiexec will find it, in the job's directory (run/launch)
	program, err := launch.Resolve(a.Program, a.Cwd)
	if err != nil {
		return cfg, nil, fmt.Errorf("program %v", err)
	}
	if abs, err := filepath.Abs(program); err == nil {
		program = abs
	}
	if err := notScript(a.Program, program); err != nil {
		return cfg, nil, err
	}
	if a.Cwd != "" {
		if fi, err := os.Stat(a.Cwd); err != nil || !fi.IsDir() {
			return cfg, nil, fmt.Errorf("cwd %s: no such directory", a.Cwd)
		}
	}
	selected, err := parseRanks(a.Ranks, np)
	if err != nil {
		return cfg, nil, err
	}
	if err := checks.ValidateDisabled(a.Checks); err != nil {
		return cfg, nil, fmt.Errorf("checks %q: %v", a.Checks, err)
	}
	if v := os.Getenv(envvar.Checks); a.Checks == "" && v != "" {
		// the ranks inherit the adapter's environment: each would refuse it alone
		if err := checks.ValidateDisabled(v); err != nil {
			return cfg, nil, fmt.Errorf("%s=%q in the adapter's environment: %v", envvar.Checks, v, err)
		}
	}
	rules, err := report.LoadRules(a.Suppress, program)
	if err != nil {
		return cfg, nil, err
	}
	a.rules = rules
	tools, err := s.cfg.Tools(program, a.MPI, a.Shim, a.MPIExec)
	if err != nil {
		return cfg, nil, err
	}
	mpiexec, shim := tools.MPIExec, tools.Shim
	deadlock := 2 * time.Second
	if a.DeadlockTimeout != "" {
		if a.DeadlockTimeout == "0" {
			deadlock = 0
		} else if deadlock, err = time.ParseDuration(a.DeadlockTimeout); err != nil || deadlock < 0 {
			return cfg, nil, fmt.Errorf("deadlockTimeout %q: want a duration such as 2s, or 0 (off)", a.DeadlockTimeout)
		}
	}
	if strings.ContainsAny(a.Sysroot, " \t\r\n\"'\\") {
		return cfg, nil, fmt.Errorf("sysroot %q: a directory without blanks, quotes or backslashes", a.Sysroot)
	}
	switch a.Buffering {
	case "", "eager", "zero":
	default:
		return cfg, nil, fmt.Errorf("buffering %q: want eager or zero", a.Buffering)
	}
	// One LD_PRELOAD, the shim's first: a second -genv (-x) of the user's
	// would win, and the ranks would run without the shim.
	preload := shim
	if v := a.Env[envvar.Preload]; v != nil && *v != "" {
		preload += ":" + *v // the user's own preloads still reach the ranks
	}
	env := []launch.Var{{Name: envvar.Preload, Value: preload},
		// The race tracker's SIGSEGV and SIGTRAP would stop gdb at every
		// watched access (docs/dap.md).
		{Name: envvar.Race, Value: "off"}}
	if a.Checks != "" {
		env = append(env, launch.Var{Name: envvar.Checks, Value: a.Checks})
	}
	if a.Buffering == "zero" {
		env = append(env, launch.Var{Name: envvar.Buffering, Value: "zero"})
	}
	names := make([]string, 0, len(a.Env))
	for k := range a.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if v := a.Env[k]; v != nil && k != envvar.Preload {
			env = append(env, launch.Var{Name: k, Value: *v})
		}
	}
	cfg = launch.Config{MPIExec: mpiexec, LauncherArgs: a.MPIExecArgs, NP: np, Env: env, Program: program,
		Args: a.Args, Dir: a.Cwd, DeadlockTimeout: deadlock, ZeroBuffering: a.Buffering == "zero", KillGrace: 3 * time.Second}
	if a.Listen != "" {
		// the ranks on other hosts report there too (mpidbg run --listen)
		cfg.Listen = a.Listen
		if _, _, err := net.SplitHostPort(a.Listen); err != nil {
			cfg.Listen = net.JoinHostPort(strings.Trim(a.Listen, "[]"), "0")
		}
	}
	return cfg, selected, nil
}

// notScript refuses a script as the program: the shim's handshake would
// stop its interpreter (or /usr/bin/env) rather than the MPI program, and
// the ranks would wait for a debugger until attachTimeout ran out. An
// interpreter given as the program, with the script in "args", is
// debugged as itself (mpi4py's findings name the script's lines).
func notScript(name, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // exec tells
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := f.Read(head)
	if n < 2 || string(head[:2]) != "#!" {
		return nil
	}
	line, _, _ := strings.Cut(string(head[:n]), "\n")
	line = strings.TrimSpace(line)
	interp := strings.Fields(strings.TrimPrefix(line, "#!"))
	example := ""
	if len(interp) > 0 {
		prog := interp[0]
		if filepath.Base(prog) == "env" && len(interp) > 1 {
			prog = interp[1]
		}
		example = fmt.Sprintf(` ("program": %q, "args": [%q, ...])`, prog, name)
	}
	return fmt.Errorf("program %s is a script (%s); give the interpreter as \"program\" and the script in \"args\"%s",
		name, line, example)
}

// parseAttachTimeout reads "attachTimeout": how long the ranks may take
// to start (60 s when absent).
func parseAttachTimeout(text string) (time.Duration, error) {
	if text == "" {
		return 60 * time.Second, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("attachTimeout %q: want a duration such as 30s", text)
	}
	return d, nil
}

// parseRanks reads "ranks": a list of numbers, or a string such as
// "0,2-3"; absent means every rank.
func parseRanks(raw json.RawMessage, np int) ([]int, error) {
	all := make([]int, np)
	for i := range all {
		all[i] = i
	}
	if len(raw) == 0 || string(raw) == "null" {
		return all, nil
	}
	var list []int
	var text string
	if err := json.Unmarshal(raw, &list); err != nil {
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, fmt.Errorf("\"ranks\": want a list of ranks or a string such as \"0,2-3\"")
		}
		if text == "" || text == "all" {
			return all, nil
		}
		runs, err := ranklist.Parse(text, ranklist.Launch)
		var bad *ranklist.ItemError
		if errors.As(err, &bad) {
			return nil, fmt.Errorf("\"ranks\": %q is not a rank or a range such as 2-3", bad.Item)
		}
		for _, run := range runs {
			for r := run.First; r <= run.Last; r += run.Step {
				list = append(list, r)
				if r >= np {
					break // the first rank not in the job: named below
				}
			}
		}
	}
	seen := map[int]bool{}
	var out []int
	for _, r := range list {
		if r < 0 || r >= np {
			return nil, fmt.Errorf("\"ranks\": rank %d is not in the job (np %d: ranks 0-%d)", r, np, np-1)
		}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	sort.Ints(out)
	if len(out) == 0 {
		return nil, fmt.Errorf("\"ranks\": no rank selected")
	}
	return out, nil
}

// rankList writes ranks as shim/debugger.c reads them: every rank
// written out, so that the shim's reader is never given a run.
func rankList(ranks []int) string { return ranklist.Format(ranks, ranklist.Expanded) }

// attachLaunched attaches each selected rank as it publishes its pid.
func (ss *session) attachLaunched(j *job, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	attached := map[string]bool{}
	for len(attached) < len(j.selected) {
		select {
		case <-j.done:
			if j.err != nil {
				return j.err
			}
			return fmt.Errorf("the job ended before all ranks started (%s)", describeResult(j.result))
		default:
		}
		if time.Now().After(deadline) {
			hint := ""
			if j.remote == nil {
				hint = "; ranks on other hosts need \"listen\", an address of this machine they can reach"
			}
			return fmt.Errorf("%d of %d ranks started within %v (attachTimeout)%s", len(attached), len(j.selected), timeout, hint)
		}
		progress := false
		if j.remote != nil {
			select {
			case r := <-j.remote.ranks:
				progress = true
				attached[fmt.Sprintf("%d.%d@%s", r.rank, r.pid, r.host)] = true
				if err := ss.attachRemote(j.remote, r); err != nil {
					return err
				}
			default:
			}
		}
		ents, _ := os.ReadDir(j.dir)
		for _, e := range ents {
			if attached[e.Name()] {
				continue
			}
			if strings.HasPrefix(e.Name(), "gdbserver.") {
				continue // a remote rank's socket (remote.go)
			}
			rs, ps, ok := strings.Cut(e.Name(), ".")
			r, err1 := strconv.Atoi(rs)
			pid, err2 := strconv.Atoi(ps)
			if !ok || err1 != nil || err2 != nil {
				continue
			}
			attached[e.Name()] = true
			progress = true
			if err := ss.attachRank(r, pid); err != nil {
				return err
			}
		}
		if !progress {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return nil
}

func describeResult(r launch.Result) string {
	if r.Status == "" {
		return "mpiexec exited with status 0"
	}
	return "mpiexec: " + r.Status
}

// outputWriter sends what the job writes as output events.
type outputWriter struct {
	s        *Server
	category string
}

func (w outputWriter) Write(p []byte) (int, error) {
	w.s.output(w.category, string(p))
	return len(p), nil
}

// endJob ends a launched job: the ranks are killed in gdb (a stopped
// rank takes no signal), then mpiexec is told to end.
func (ss *session) endJob() {
	j := ss.job
	if j == nil {
		return
	}
	ss.killRanks()
	if j.remote != nil {
		j.remote.Close()
	}
	select {
	case j.signals <- syscall.SIGTERM:
	default:
	}
	select {
	case <-j.done:
	case <-time.After(10 * time.Second):
	}
	os.RemoveAll(j.dir)
}

// onDeadlock is called by the launcher's detector.
func (ss *session) onDeadlock(f checks.Finding) {
	fi := deadlockInfo(f)
	ss.mu.Lock()
	ss.deadlock = fi
	ss.mu.Unlock()
	ss.srv.sendFinding(fi)
	ss.srv.output("console", "mpidbg: "+fi.details+"\n")
	if err := ss.interrupt("deadlock"); err != nil {
		ss.srv.output("console", fmt.Sprintf("mpidbg: cannot stop the ranks for the deadlock: %v\n", err))
	}
}
