package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/golden"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/mpidbg/mpidbg/wire"
)

// The launcher is tested without MPI: the test binary plays mpiexec when
// MPIDBG_FAKE_MPIEXEC is set. It reads its command line the way Hydra
// would (-genv NAME VALUE, -n N, the program), then plays every rank
// itself according to the program's name (a scenario), connecting to
// MPIDBG_REPORT and speaking the wire protocol; what it was given goes to
// the file MPIDBG_FAKE_RECORD names.

func TestMain(m *testing.M) {
	if os.Getenv(envvar.FakeMPIExec) == "1" {
		os.Exit(fakeMPIExec(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeRecord is what the fake mpiexec saw.
type fakeRecord struct {
	Args       []string          // its command line
	Genv       map[string]string // the -genv variables
	Launcher   []string          // arguments before the first -genv
	NP         int
	Program    string
	ProgArgs   []string
	OwnPreload string // LD_PRELOAD in its own environment
	OwnToken   string // MPIDBG_TOKEN in its own environment
	SocketMode string // permissions of the Unix socket's directory
}

func fakeMPIExec(args []string) int {
	rec := fakeRecord{Args: args, Genv: map[string]string{}, OwnPreload: os.Getenv(envvar.Preload), OwnToken: os.Getenv(envvar.Token)}
	i := 0
	for ; i < len(args) && args[i] != "-genv" && args[i] != "-n"; i++ {
		rec.Launcher = append(rec.Launcher, args[i])
	}
	for i < len(args) {
		switch args[i] {
		case "-genv":
			rec.Genv[args[i+1]] = args[i+2]
			i += 3
			continue
		case "-n":
			rec.NP, _ = strconv.Atoi(args[i+1])
			i += 2
			continue
		}
		break
	}
	rec.Program, rec.ProgArgs = args[i], args[i+1:]
	addr := rec.Genv[envvar.Report]
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		if fi, err := os.Stat(filepath.Dir(p)); err == nil {
			rec.SocketMode = fi.Mode().Perm().String()
		}
	}
	if f := os.Getenv(envvar.FakeRecord); f != "" {
		b, _ := json.Marshal(rec)
		os.WriteFile(f, b, 0o644)
	}

	network, address, _ := strings.Cut(addr, ":")
	const host = "node1" // golden files hold it
	pid := func(rank int) int { return 4000000 + rank }
	connect := func(rank int) *wire.Writer {
		c, err := net.Dial(network, address)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fake rank %d: %v\n", rank, err)
			os.Exit(99)
		}
		c.Write(wire.TokenLine(rec.OwnToken)) // Hydra passes its environment on
		w := wire.NewWriter(c)
		w.Write(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: rec.NP, PID: pid(rank), Host: host, Exe: "/src/app", MPI: "mpich"}})
		fakeConnsMu.Lock()
		fakeConns[w] = c
		fakeConnsMu.Unlock()
		return w
	}
	finding := func(rank int, id string, loc checks.Location, msg string) wire.Message {
		e, _ := checks.Lookup(id)
		return wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: id, Category: e.Category, Severity: e.Severity,
			Message: msg, Ranks: []int{rank}, Call: "MPI_Send", Location: loc}}
	}
	bye := func(rank, n int) wire.Message {
		return wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: rank, Findings: n}}
	}
	eachRank := func(f func(rank int)) {
		var wg sync.WaitGroup
		for r := range rec.NP {
			wg.Add(1)
			go func() { defer wg.Done(); f(r) }()
		}
		wg.Wait()
	}
	send := loc("/src/app.c", 42, "exchange")

	switch rec.Program {
	case "clean": // echo standard input, write to both streams
		in, _ := io.ReadAll(os.Stdin)
		fmt.Printf("stdin: %sprogram output\n", in)
		fmt.Fprintln(os.Stderr, "program stderr")
		eachRank(func(r int) { w := connect(r); w.Write(bye(r, 0)) })
		return 0
	case "findings": // every rank: an uncommitted type; rank 0 also leaks
		eachRank(func(r int) {
			w := connect(r)
			w.Write(finding(r, "type-not-committed", send, fmt.Sprintf("rank %d sends with datatype 0x8c000001, which is not committed", r)))
			n := 1
			if r == 0 {
				w.Write(finding(r, "leak-type", loc("/src/app.c", 80, "main"), "datatype 0x8c000001 was never freed"))
				n++
			}
			w.Write(bye(r, n))
		})
		return 0
	case "warnings": // a warning only
		eachRank(func(r int) {
			w := connect(r)
			w.Write(finding(r, "commit-twice", loc("/src/app.c", 7, "setup"), "datatype 0x8c000001 is committed already"))
			w.Write(bye(r, 1))
		})
		return 0
	case "crash": // rank 1 dies after its finding; Hydra says so, on standard output
		eachRank(func(r int) {
			w := connect(r)
			if r == 1 {
				w.Write(finding(r, "null-buffer", send, "MPI_Send: buf is NULL and count is 4"))
				return // no bye
			}
			w.Write(bye(r, 0))
		})
		fmt.Print(hydraCrash)
		return 11
	case "fail": // a clean run whose program fails
		eachRank(func(r int) { w := connect(r); w.Write(bye(r, 0)) })
		return 3
	case "silent": // no rank connects (the shim was not loaded)
		return 0
	case "interrupt": // ranks report, then hang until SIGINT
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT)
		eachRank(func(r int) {
			w := connect(r)
			w.Write(finding(r, "invalid-tag", send, "MPI_Send: tag -1 is negative"))
		})
		fmt.Println("ready")
		return untilInterrupt(sigs)
	case "deadlock", "deadlock_stop", "deadlock_stubborn", "ring_zero":
		return fakeDeadlock(rec, connect, bye)
	case "deadlock_banner", "deadlock_ompi_banner": // ended by mpidbg, the launcher says so
		terms := make(chan os.Signal, 1)
		signal.Notify(terms, syscall.SIGTERM)
		fmt.Print("step 1\npartial")
		go fakeDeadlock(rec, connect, bye)
		<-terms
		if rec.Program == "deadlock_banner" {
			fmt.Print(" line end\n" + hydraTerm + "after banner\n")
		} else {
			fmt.Print(" line end\nafter banner\n")
			fmt.Fprint(os.Stderr, ompiFrame+"mpiexec noticed that process rank 0 with PID 0 on node node1 exited on signal 15 (Terminated).\n"+ompiFrame+
				ompiFrame+"a message of the program's own\n"+ompiFrame)
		}
		return 15
	case "interrupt_2": // ranks report, then hang until SIGINT or SIGTERM, and exit 2 as Hydra may
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		eachRank(func(r int) { connect(r) })
		fmt.Println("ready")
		select {
		case <-sigs:
			return 2
		case <-time.After(time.Minute):
			return 98
		}
	case "execfail": // Hydra cannot start the program
		for range rec.NP {
			fmt.Fprintf(os.Stderr, "[proxy:0:0@node1] HYDU_create_process (utils/launch/launch.c:73): execvp error on file %s (No such file or directory)\n", rec.Program)
		}
		return 255
	case "slots": // Open MPI refuses to oversubscribe
		fmt.Fprint(os.Stderr, ompiFrame+"There are not enough slots available in the system to satisfy the 5\nslots that were requested by the application:\n\n  slots\n\n"+
			"Either request fewer slots for your application, or make more slots\navailable for use.\n"+ompiFrame)
		return 1
	case "abort_banner": // --on-error=abort: rank 0's error ends the job, Open MPI says so
		eachRank(func(r int) {
			w := connect(r)
			if r == 0 {
				w.Write(finding(r, "type-not-committed", send, "rank 0 sends with datatype 0x8c000001, which is not committed"))
			}
		})
		time.Sleep(100 * time.Millisecond) // mpiexec's banner comes after the finding
		fmt.Fprint(os.Stderr, "program stderr\n"+ompiFrame+"MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD\nwith errorcode 1.\n\n"+
			"NOTE: invoking MPI_ABORT causes Open MPI to kill all MPI processes.\n"+ompiFrame+
			"[node1:09237] 1 more process has sent help message help-mpi-api.txt / mpi-abort\n"+
			"[node1:09237] Set MCA parameter \"orte_base_help_aggregate\" to 0 to see all help / error messages\n")
		return 1
	case "fail_silent": // no rank connects, mpiexec fails without a word
		return 6
	}
	fmt.Fprintf(os.Stderr, "fake mpiexec: unknown scenario %q\n", rec.Program)
	return 97
}

// fakeDeadlock plays a job that stops: ranks 0 and 1 receive from each
// other, rank 2 finishes (deadlock, deadlock_stop, deadlock_stubborn), or
// every rank sends to the next with sends made synchronous by
// --buffering=zero (ring_zero). Then it waits to be ended: by SIGTERM,
// which deadlock_stubborn ignores (mpidbg must SIGKILL it), or, for
// deadlock_stop, by SIGINT once every blocked rank has been told to stop.
// Asked whether they are still blocked, the blocked ranks say they are.
func fakeDeadlock(rec fakeRecord, connect func(rank int) *wire.Writer, bye func(rank, n int) wire.Message) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT)
	if rec.Program == "deadlock_stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	site := func(off uint64) checks.Site { return checks.Site{Module: "/src/app", Offset: off} }
	blocked := func(rank int) *wire.Blocked {
		b := &wire.Blocked{Rank: rank, Seq: 8, Site: site(0x1200 + uint64(rank)), Mode: wire.And, ForMS: 100,
			Stack: []checks.Site{site(0x1200 + uint64(rank)), site(0x1300)}}
		if rec.Program == "ring_zero" {
			to := (rank + 1) % rec.NP
			b.Call, b.Args, b.ZeroBuffered = "MPI_Send", fmt.Sprintf("dest=%d, tag=0, comm=MPI_COMM_WORLD", to), rec.Genv[envvar.Buffering] == "zero"
			b.Waits = []wire.Wait{{Kind: wire.WaitSend, Ranks: []int{to}, Comm: 1, CommName: "MPI_COMM_WORLD"}}
			return b
		}
		b.Call, b.Args = "MPI_Recv", fmt.Sprintf("source=%d, tag=0, comm=MPI_COMM_WORLD", 1-rank)
		b.Waits = []wire.Wait{{Kind: wire.WaitRecv, Ranks: []int{1 - rank}, Comm: 1, CommName: "MPI_COMM_WORLD"}}
		return b
	}
	stopped := make(chan int, rec.NP)
	var conns []net.Conn
	for r := range rec.NP {
		w := connect(r)
		if rec.Program != "ring_zero" && r >= 2 {
			w.Write(bye(r, 0))
			continue
		}
		w.Write(wire.Message{Kind: wire.KindBlocked, Blocked: blocked(r)})
		fakeConnsMu.Lock()
		c := fakeConns[w]
		fakeConnsMu.Unlock()
		conns = append(conns, c)
		go func() { // the rank's command reader: it stays blocked
			rd := wire.NewReader(c)
			for {
				m, err := rd.Read()
				if err != nil {
					return
				}
				switch m.Kind {
				case wire.KindConfirm:
					w.Write(wire.Message{Kind: wire.KindConfirmed, Confirmed: &wire.Confirmed{Rank: r, Seq: m.Confirm.Seq, Probe: m.Confirm.Probe, Still: true}})
				case wire.KindStop:
					stopped <- r
					return
				}
			}
		}()
	}
	if rec.Program == "deadlock_stop" {
		for range conns {
			fmt.Printf("rank %d stops\n", <-stopped)
		}
		fmt.Println("ready")
	}
	return untilInterrupt(sigs)
}

// untilInterrupt is how a fake mpiexec ends a scenario that hangs: 130
// when mpidbg sends it SIGINT, 98 when nothing comes within a minute.
func untilInterrupt(sigs <-chan os.Signal) int {
	select {
	case <-sigs:
		fmt.Println("got SIGINT")
		return 130
	case <-time.After(time.Minute):
		return 98
	}
}

// fakeConns is each fake rank's connection, by its writer: the
// deadlock scenarios read the launcher's commands from it.
var (
	fakeConnsMu sync.Mutex
	fakeConns   = map[*wire.Writer]net.Conn{}
)

// hydraCrash is what the fake mpiexec prints when rank 1 "crashes".
const hydraCrash = "\n===================================================================================\n" +
	"=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 4000001 RUNNING AT node1\n=   EXIT CODE: 11\n" +
	"=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n" +
	"===================================================================================\n" +
	"YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)\n"

// hydraTerm is Hydra's banner when mpidbg's SIGTERM ended a rank.
const hydraTerm = "\n===================================================================================\n" +
	"=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 4000000 RUNNING AT node1\n=   EXIT CODE: 15\n" +
	"=   CLEANING UP REMAINING PROCESSES\n=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES\n" +
	"===================================================================================\n" +
	"YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Terminated (signal 15)\n" +
	"This typically refers to a problem with your application.\nPlease see the FAQ page for debugging suggestions\n"

// ompiFrame opens and closes Open MPI's messages.
const ompiFrame = "--------------------------------------------------------------------------\n"

func loc(file string, line int, fn string) checks.Location {
	return checks.Location{File: file, Line: line, Function: fn}
}

// fakeShim builds in dir a shared library that passes for the shim
// (notShim) and checks nothing: the fake mpiexec never loads it.
func fakeShim(t *testing.T, dir string) string {
	t.Helper()
	return buildSO(t, dir, "libmpidbg.so", "void "+shimSymbol+"(void) {}\n")
}

// buildSO compiles the C source src into the shared library dir/name.
func buildSO(t *testing.T, dir, name, src string) string {
	t.Helper()
	cc := testenv.NeedTool(t, testenv.RequireMPI, "cc", "a C compiler for a stand-in library")
	so := filepath.Join(dir, name)
	cmd := exec.Command(cc, "-shared", "-fPIC", "-o", so, "-x", "c", "-")
	cmd.Stdin = strings.NewReader(src)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	return so
}

// fakeEnv makes the test binary the mpiexec and gives a shim file.
func fakeEnv(t *testing.T) (shim, record string) {
	t.Helper()
	dir := t.TempDir()
	shim = fakeShim(t, dir)
	record = filepath.Join(dir, "record.json")
	t.Setenv(envvar.FakeMPIExec, "1")
	t.Setenv(envvar.FakeRecord, record)
	t.Setenv(envvar.NoColor, "1")
	// the scenarios are bare names, not on PATH
	resolve := runResolve
	runResolve = func(f launch.Flavor, program, dir string) (string, error) {
		if !strings.Contains(program, "/") {
			return program, nil
		}
		return resolve(f, program, dir)
	}
	t.Cleanup(func() { runResolve = resolve })
	return shim, record
}

func readRecord(t *testing.T, path string) fakeRecord {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the fake mpiexec left no record: %v", err)
	}
	var rec fakeRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func runWith(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	old := runStdin
	runStdin = strings.NewReader(stdin)
	defer func() { runStdin = old }()
	return runArgs(args...)
}

func TestRunFake(t *testing.T) {
	shim, record := fakeEnv(t)
	self, _ := os.Executable()
	dir := t.TempDir()
	jsonOut, sarifOut := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.sarif")
	jsonDeadlock := filepath.Join(dir, "deadlock.json")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
	}{
		{"clean", []string{"-n", "2", "clean", "-n", "3", "--json", "x"}, 0, "stdin: input line\nprogram output\n"},
		{"findings", []string{"-n", "4", "--json", jsonOut, "--sarif", sarifOut, "findings"}, 1, ""},
		{"warnings", []string{"-n", "2", "warnings"}, 0, ""},
		{"crash", []string{"-n", "3", "crash"}, 11, hydraCrash},
		{"fail", []string{"-n", "2", "fail"}, 3, ""},
		{"silent", []string{"-n", "2", "silent"}, 1, ""},
		{"quiet_clean", []string{"-n", "2", "--quiet", "--", "clean"}, 0, "stdin: input line\nprogram output\n"},
		{"quiet_findings", []string{"-n", "2", "-q", "findings"}, 1, ""},
		{"deadlock", []string{"-n", "3", "--deadlock-timeout", "100ms", "deadlock"}, 1, ""},
		{"deadlock_stubborn", []string{"-n", "3", "--deadlock-timeout", "100ms", "deadlock_stubborn"}, 1, ""},
		{"ring_zero", []string{"-n", "3", "--buffering", "zero", "--deadlock-timeout", "100ms", "--json", jsonDeadlock, "ring_zero"}, 1, ""},
		{"ring_eager", []string{"-n", "3", "--deadlock-timeout", "100ms", "ring_zero"}, 1, ""},
		{"deadlock_banner", []string{"-n", "3", "--deadlock-timeout", "100ms", "deadlock_banner"}, 1, "step 1\npartial line end\nafter banner\n"},
		{"deadlock_ompi_banner", []string{"-n", "3", "--deadlock-timeout", "100ms", "deadlock_ompi_banner"}, 1, "step 1\npartial line end\nafter banner\n"},
		{"execfail", []string{"-n", "2", "execfail"}, 255, ""},
		{"slots", []string{"-n", "2", "slots"}, 1, ""},
		{"fail_silent", []string{"-n", "2", "fail_silent"}, 6, ""},
		{"abort_banner", []string{"-n", "2", "--on-error", "abort", "abort_banner"}, 1, ""},
	}
	oldGrace := runKillGrace
	runKillGrace = 100 * time.Millisecond // deadlock_stubborn ignores SIGTERM
	defer func() { runKillGrace = oldGrace }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(record)
			args := append([]string{"run", "--mpiexec", self, "--shim", shim}, tt.args...)
			stdout, stderr, code := runWith(t, "input line\n", args...)
			if code != tt.wantCode {
				t.Errorf("got exit %d, want %d; stderr:\n%s", code, tt.wantCode, stderr)
			}
			if stdout != tt.wantStdout {
				t.Errorf("got stdout %q, want %q", stdout, tt.wantStdout)
			}
			golden.Check(t, stderr)
		})
	}
	t.Run("files", func(t *testing.T) {
		for _, f := range []string{jsonOut, sarifOut} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(b) {
				t.Errorf("%s is not JSON", f)
			}
			if strings.HasSuffix(f, ".json") {
				golden.Check(t, string(b))
			}
		}
	})
	t.Run("deadlock_json", func(t *testing.T) {
		b, err := os.ReadFile(jsonDeadlock)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, string(b))
	})
}

// TestRunCommandLine: what mpiexec is given, and what it is not.
func TestRunCommandLine(t *testing.T) {
	shim, record := fakeEnv(t)
	self, _ := os.Executable()
	t.Setenv(envvar.Preload, "")
	tests := []struct {
		name         string
		args         []string
		wantLauncher []string
		wantProgArgs []string
		wantNet      string
		wantChecks   string
		wantOnError  string
	}{
		{"plain", []string{"-n", "2", "clean"}, nil, []string{}, "unix", "", "continue"},
		{"program_flags", []string{"-n", "2", "clean", "-n", "3", "--shim", "x", "--"}, nil, []string{"-n", "3", "--shim", "x", "--"}, "unix", "", "continue"},
		{"dash_dash", []string{"-n", "2", "--", "clean", "a"}, nil, []string{"a"}, "unix", "", "continue"},
		{"launcher_args", []string{"--launcher-arg=-ppn", "--launcher-arg", "1", "-n", "2", "clean"}, []string{"-ppn", "1"}, []string{}, "unix", "", "continue"},
		{"options", []string{"-n", "2", "--checks", "-leak,-overlap", "--on-error", "stop", "clean"}, nil, []string{}, "unix", "-leak,-overlap", "stop"},
		{"tcp", []string{"-n", "2", "--listen", "127.0.0.1:0", "clean"}, nil, []string{}, "tcp", "", "continue"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(record)
			args := append([]string{"run", "--mpiexec", self, "--shim", shim}, tt.args...)
			_, stderr, code := runWith(t, "", args...)
			if code != 0 {
				t.Fatalf("got exit %d; stderr:\n%s", code, stderr)
			}
			if !strings.HasSuffix(stderr, "mpidbg: no findings (2 ranks)\n") {
				t.Errorf("stderr does not end with the clean summary:\n%s", stderr)
			}
			rec := readRecord(t, record)
			if rec.OwnPreload != "" {
				t.Errorf("mpiexec's own environment has LD_PRELOAD=%q", rec.OwnPreload)
			}
			// the token is in mpiexec's environment, never its arguments
			if len(rec.OwnToken) != wire.TokenLen || strings.Contains(strings.Join(rec.Args, " "), rec.OwnToken) {
				t.Errorf("token %q in mpiexec's environment, want %d digits not in its arguments %q", rec.OwnToken, wire.TokenLen, rec.Args)
			}
			if _, ok := rec.Genv[envvar.Token]; ok {
				t.Errorf("-genv %s on mpiexec's command line", envvar.Token)
			}
			if rec.Genv[envvar.Preload] != shim {
				t.Errorf("-genv LD_PRELOAD: got %q, want %q", rec.Genv[envvar.Preload], shim)
			}
			if !slices.Equal(rec.Launcher, tt.wantLauncher) || rec.NP != 2 || rec.Program != "clean" || !slices.Equal(rec.ProgArgs, tt.wantProgArgs) {
				t.Errorf("got launcher args %q, -n %d, program %q %q; want %q, 2, clean %q", rec.Launcher, rec.NP, rec.Program, rec.ProgArgs, tt.wantLauncher, tt.wantProgArgs)
			}
			if net, _, _ := strings.Cut(rec.Genv[envvar.Report], ":"); net != tt.wantNet {
				t.Errorf("MPIDBG_REPORT %q: want %s:...", rec.Genv[envvar.Report], tt.wantNet)
			}
			if tt.wantNet == "unix" && rec.SocketMode != "-rwx------" {
				t.Errorf("socket directory mode %s, want -rwx------", rec.SocketMode)
			}
			if rec.Genv[envvar.Checks] != tt.wantChecks || rec.Genv[envvar.OnError] != tt.wantOnError {
				t.Errorf("checks %q on-error %q; want %q %q", rec.Genv[envvar.Checks], rec.Genv[envvar.OnError], tt.wantChecks, tt.wantOnError)
			}
			if p, ok := strings.CutPrefix(rec.Genv[envvar.Report], "unix:"); ok {
				if _, err := os.Stat(filepath.Dir(p)); !os.IsNotExist(err) {
					t.Errorf("the socket directory %s is left behind", filepath.Dir(p))
				}
			}
		})
	}
	t.Run("user_preload_kept", func(t *testing.T) {
		t.Setenv(envvar.Preload, "/opt/libother.so")
		os.Remove(record)
		runWith(t, "", "run", "--mpiexec", self, "--shim", shim, "-n", "1", "clean")
		rec := readRecord(t, record)
		if want := shim + ":/opt/libother.so"; rec.Genv[envvar.Preload] != want || rec.OwnPreload != "/opt/libother.so" {
			t.Errorf("ranks get LD_PRELOAD %q, mpiexec %q; want %q and its own unchanged", rec.Genv[envvar.Preload], rec.OwnPreload, want)
		}
	})
	t.Run("shim_from_env", func(t *testing.T) {
		t.Setenv(envvar.Shim, shim)
		os.Remove(record)
		if _, stderr, code := runWith(t, "", "run", "--mpiexec", self, "-n", "1", "clean"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if rec := readRecord(t, record); rec.Genv[envvar.Preload] != shim {
			t.Errorf("LD_PRELOAD %q, want %q", rec.Genv[envvar.Preload], shim)
		}
	})
}

// signalWriter collects output and closes ready when it has seen "ready".
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{}
	once  sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "ready\n") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

// TestRunInterrupt: SIGINT reaches mpiexec, and the findings that came
// before it are reported.
func TestRunInterrupt(t *testing.T) {
	shim, _ := fakeEnv(t)
	self, _ := os.Executable()
	sigs := make(chan os.Signal, 1)
	oldSignals := runSignals
	runSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	oldStdin := runStdin
	runStdin = strings.NewReader("") // not a terminal, whatever go test got
	defer func() { runSignals, runStdin = oldSignals, oldStdin }()
	out := &signalWriter{ready: make(chan struct{})}
	var errOut bytes.Buffer
	done := make(chan int)
	go func() {
		done <- run([]string{"run", "--mpiexec", self, "--shim", shim, "-n", "2", "interrupt"}, out, &errOut)
	}()
	select {
	case <-out.ready:
	case code := <-done:
		t.Fatalf("run ended early with %d: %s", code, errOut.String())
	}
	sigs <- syscall.SIGINT
	code := <-done
	if code != 130 {
		t.Errorf("got exit %d, want 130 (mpiexec's)", code)
	}
	if got := out.buf.String(); got != "ready\ngot SIGINT\n" {
		t.Errorf("stdout: got %q", got)
	}
	golden.Check(t, errOut.String())
}

// TestRunDeadlockStop: with --on-error stop the blocked ranks are told to
// stop and mpidbg says how to attach; the job runs on until it is ended.
func TestRunDeadlockStop(t *testing.T) {
	shim, _ := fakeEnv(t)
	self, _ := os.Executable()
	sigs := make(chan os.Signal, 1)
	oldSignals, oldStdin := runSignals, runStdin
	runSignals = func() (<-chan os.Signal, func()) { return sigs, func() {} }
	runStdin = strings.NewReader("")
	defer func() { runSignals, runStdin = oldSignals, oldStdin }()
	out := &signalWriter{ready: make(chan struct{})}
	errOut := &signalWriter{ready: make(chan struct{})}
	done := make(chan int)
	go func() {
		done <- run([]string{"run", "--mpiexec", self, "--shim", shim, "--on-error", "stop", "--deadlock-timeout", "100ms", "-n", "3", "deadlock_stop"}, out, errOut)
	}()
	select {
	case <-out.ready:
	case code := <-done:
		t.Fatalf("run ended early with %d: %s", code, errOut.buf.String())
	case <-time.After(time.Minute):
		t.Fatal("the ranks were never told to stop")
	}
	sigs <- syscall.SIGINT
	if code := <-done; code != 1 {
		t.Errorf("got exit %d, want 1 (a deadlock)", code)
	}
	if got := out.buf.String(); got != "rank 0 stops\nrank 1 stops\nready\ngot SIGINT\n" && got != "rank 1 stops\nrank 0 stops\nready\ngot SIGINT\n" {
		t.Errorf("stdout: got %q", got)
	}
	golden.Check(t, errOut.buf.String())
}

func TestRunUsageErrors(t *testing.T) {
	shim, _ := fakeEnv(t)
	self, _ := os.Executable()
	base := []string{"run", "--mpiexec", self, "--shim", shim}
	text := filepath.Join(t.TempDir(), "libmpidbg.so")
	if err := os.WriteFile(text, []byte("not a library\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := buildSO(t, t.TempDir(), "libother.so", "int other(void) { return 1; }\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no_program", append(base, "-n", "2"), "mpidbg run: missing the program to run\nRun 'mpidbg run --help' for usage.\n"},
		{"no_np", append(base, "clean"), "mpidbg run: missing -n N, the number of ranks\nRun 'mpidbg run --help' for usage.\n"},
		{"negative_np", append(base, "-n", "-1", "clean"), "mpidbg run: -n -1: want at least 1\nRun 'mpidbg run --help' for usage.\n"},
		{"zero_np", append(base, "--np=0", "clean"), "mpidbg run: -n 0: want at least 1\nRun 'mpidbg run --help' for usage.\n"},
		{"huge_np", append(base, "-n", "2000000000", "clean"), "mpidbg run: -n 2000000000: mpidbg takes at most 4194304 ranks\nRun 'mpidbg run --help' for usage.\n"},
		{"bad_np", append(base, "-n", "two", "clean"), "mpidbg run: --np \"two\": want an integer\nRun 'mpidbg run --help' for usage.\n"},
		{"unknown_flag", append(base, "--bogus", "clean"), "mpidbg run: unknown flag: --bogus\nRun 'mpidbg run --help' for usage.\n"},
		{"on_error", append(base, "-n", "2", "--on-error", "explode", "clean"), "mpidbg run: --on-error \"explode\": want continue, abort or stop\nRun 'mpidbg run --help' for usage.\n"},
		{"buffering", append(base, "-n", "2", "--buffering", "none", "clean"), "mpidbg run: --buffering \"none\": want eager or zero\nRun 'mpidbg run --help' for usage.\n"},
		{"deadlock_timeout", append(base, "-n", "2", "--deadlock-timeout", "-1s", "clean"), "mpidbg run: --deadlock-timeout -1s: want 0 (off) or more\nRun 'mpidbg run --help' for usage.\n"},
		{"checks_sign", append(base, "-n", "2", "--checks", "leak", "clean"), "mpidbg run: --checks \"leak\": \"leak\": want -CATEGORY, a category to turn off\nRun 'mpidbg run --help' for usage.\n"},
		{"checks_unknown", append(base, "-n", "2", "--checks", "-leaks", "clean"),
			"mpidbg run: --checks \"-leaks\": unknown category \"leaks\" (categories: argument, datatype-lifecycle, request-lifecycle, leak, type-mismatch, collective-mismatch, overlap, buffer-race, rma-race, epoch-lifecycle, deadlock, message-race, lost-message, process-lifecycle)\nRun 'mpidbg run --help' for usage.\n"},
		{"program_missing", append(base, "-n", "2", "./no-such-program"), "mpidbg run: program ./no-such-program: no such file\n"},
		{"mpmd_without_line", append(base, "-n", "1", "clean", ":", "-n", "3", "clean"),
			"mpidbg run: a ':' among clean's arguments starts another program for mpiexec; for several programs give the launcher line: mpidbg run [flags] -- mpiexec -n 1 clean : -n 3 ./other\nRun 'mpidbg run --help' for usage.\n"},
		{"mpiexec_missing", []string{"run", "--mpiexec", "/nonexistent/mpiexec", "--shim", shim, "-n", "2", "clean"}, "mpidbg run: --mpiexec /nonexistent/mpiexec: not found or not executable\n"},
		{"shim_missing", []string{"run", "--mpiexec", self, "--shim", "/nonexistent/libmpidbg.so", "-n", "2", "clean"},
			"mpidbg run: the shim libmpidbg.so (for mpich) is missing: no file /nonexistent/libmpidbg.so (--shim); build it with 'make build' in the mpidbg source tree (with mpich installed), or give --shim PATH or MPIDBG_SHIM\n"},
		{"shim_not_elf", []string{"run", "--mpiexec", self, "--shim", text, "-n", "2", "clean"},
			"mpidbg run: --shim " + text + ": not a shared library (not an ELF file); give mpidbg's libmpidbg.so (make build writes it to lib/)\n"},
		{"shim_not_ours", []string{"run", "--mpiexec", self, "--shim", other, "-n", "2", "clean"},
			"mpidbg run: --shim " + other + ": a shared library, but not mpidbg's shim (it does not define mpidbg_go_init); give mpidbg's libmpidbg.so (make build writes it to lib/)\n"},
		{"json_unwritable", append(base, "-n", "2", "--json", "/nonexistent/dir/r.json", "clean"), "mpidbg run: open /nonexistent/dir/r.json: no such file or directory\n"},
		{"listen_bad", append(base, "-n", "2", "--listen", "nohostport", "clean"), "mpidbg run: --listen \"nohostport\": want HOST:PORT\n"},
		{"listen_port", append(base, "-n", "2", "--listen", "localhost:99999", "clean"), "mpidbg run: --listen \"localhost:99999\": the port must be a number from 0 to 65535 (0: any free port)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runWith(t, "", tt.args...)
			if code != 2 || stdout != "" {
				t.Errorf("got exit %d, stdout %q; want 2 and none", code, stdout)
			}
			if stderr != tt.want {
				t.Errorf("got stderr\n%s\nwant\n%s", stderr, tt.want)
			}
		})
	}
}

// TestRunChecksFromEnvironment: a MPIDBG_CHECKS the ranks would inherit
// is checked like --checks, which takes its place when given.
func TestRunChecksFromEnvironment(t *testing.T) {
	shim, _ := fakeEnv(t)
	self, _ := os.Executable()
	t.Setenv(envvar.Checks, "-leak,-overlaps")
	_, stderr, code := runWith(t, "", "run", "--mpiexec", self, "--shim", shim, "-n", "2", "clean")
	want := "mpidbg run: MPIDBG_CHECKS=\"-leak,-overlaps\": unknown category \"overlaps\""
	if code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("got exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	if _, stderr, code := runWith(t, "", "run", "--mpiexec", self, "--shim", shim, "-n", "2", "--checks", "-leak", "clean"); code == 2 {
		t.Errorf("--checks given: got exit 2, %q", stderr)
	}
}

func TestFindMPIExecDefault(t *testing.T) {
	for _, tt := range []struct {
		mpi  mpilib.MPI
		pkg  string
		name string // the library's own mpiexec
	}{{mpilib.MPICH, "apt-get install mpich", "mpiexec.mpich"}, {mpilib.OpenMPI, "apt-get install openmpi-bin", "mpiexec.openmpi"}} {
		dir := t.TempDir()
		t.Setenv("PATH", dir)
		if _, err := findMPIExec("", tt.mpi, tt.mpi); err == nil || !strings.Contains(err.Error(), tt.pkg) {
			t.Errorf("%s, no mpiexec on PATH: got %v, want a message naming the package", tt.mpi, err)
		}
		// the plain mpiexec, then the library's own, which wins
		for _, name := range []string{"mpiexec", tt.name} {
			os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755)
			got, err := findMPIExec("", tt.mpi, tt.mpi)
			if err != nil || filepath.Base(got) != name {
				t.Errorf("%s with %s on PATH: got %q, %v", tt.mpi, name, got, err)
			}
		}
	}
}

func TestExplain(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"list", []string{"explain"}},
		{"entry", []string{"explain", "type-not-committed"}},
		{"category", []string{"explain", "leak"}},
		{"category_rma", []string{"explain", "rma-race"}},
		{"entry_fortran", []string{"explain", "--lang", "fortran", "type-mismatch"}},
		{"entry_python", []string{"explain", "--lang=py", "type-free-predefined"}},
		{"help", []string{"explain", "--help"}},
		{"run_help", []string{"run", "--help"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runArgs(tt.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("got exit %d, stderr %q", code, stderr)
			}
			golden.Check(t, stdout)
		})
	}
	for _, tt := range []struct{ arg, want string }{
		{"type-not-comitted", "mpidbg explain: unknown finding id \"type-not-comitted\"; did you mean type-not-committed?\nRun 'mpidbg explain' for the list.\n"},
		{"leak-types", "mpidbg explain: unknown finding id \"leak-types\"; did you mean leak-type, leak?\nRun 'mpidbg explain' for the list.\n"},
		{"frobnicate", "mpidbg explain: unknown finding id \"frobnicate\"\nRun 'mpidbg explain' for the list.\n"},
	} {
		stdout, stderr, code := runArgs("explain", tt.arg)
		if code != 2 || stdout != "" || stderr != tt.want {
			t.Errorf("explain %s: got exit %d, %q, %q; want 2 and\n%s", tt.arg, code, stdout, stderr, tt.want)
		}
	}
	if _, stderr, code := runArgs("explain", "a", "b"); code != 2 || !strings.Contains(stderr, "want at most one id") {
		t.Errorf("two arguments: got %d, %q", code, stderr)
	}
	if _, stderr, code := runArgs("explain", "--lang", "cobol", "leak"); code != 2 || !strings.Contains(stderr, `unknown language "cobol"`) {
		t.Errorf("--lang cobol: got %d, %q", code, stderr)
	}
}

func TestClosest(t *testing.T) {
	ids := []string{"type-not-committed", "type-freed", "type-null", "leak-type", "leak-comm", "commit-twice"}
	tests := []struct {
		in   string
		want []string
	}{
		{"type-nul", []string{"type-null"}},
		{"commit", []string{"commit-twice", "type-not-committed"}},
		{"leak", []string{"leak-type", "leak-comm"}},
		{"zzz", nil},
	}
	for _, tt := range tests {
		if got := closest(tt.in, ids); !slices.Equal(got, tt.want) {
			t.Errorf("closest(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
