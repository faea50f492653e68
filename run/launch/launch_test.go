package launch

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

func TestArgs(t *testing.T) {
	env := []Var{{Name: envvar.Preload, Value: "/lib/libmpidbg.so"}, {Name: envvar.Report, Value: "unix:/tmp/x/report.sock"}}
	tests := []struct {
		flavor Flavor
		extra  []string
		want   string
	}{
		{Hydra, nil, "-genv LD_PRELOAD /lib/libmpidbg.so -genv MPIDBG_REPORT unix:/tmp/x/report.sock -n 4 ./app -n 5 x"},
		{Hydra, []string{"-ppn", "2"}, "-ppn 2 -genv LD_PRELOAD /lib/libmpidbg.so -genv MPIDBG_REPORT unix:/tmp/x/report.sock -n 4 ./app -n 5 x"},
		{OpenMPI, []string{"--oversubscribe"}, "--oversubscribe -x LD_PRELOAD=/lib/libmpidbg.so -x MPIDBG_REPORT=unix:/tmp/x/report.sock -n 4 ./app -n 5 x"},
	}
	for _, tt := range tests {
		got := strings.Join(Args(tt.flavor, 4, tt.extra, env, "./app", []string{"-n", "5", "x"}), " ")
		if got != tt.want {
			t.Errorf("%v %q:\ngot  %s\nwant %s", tt.flavor, tt.extra, got, tt.want)
		}
	}
}

func TestFlavorOf(t *testing.T) {
	dir := t.TempDir()
	orterun := filepath.Join(dir, "orterun")
	os.WriteFile(orterun, nil, 0o755)
	link := filepath.Join(dir, "mpiexec")
	if err := os.Symlink(orterun, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want Flavor
	}{
		{"/usr/bin/mpiexec.mpich", Hydra},
		{"/usr/bin/mpiexec.hydra", Hydra},
		{"/usr/bin/mpirun.openmpi", OpenMPI},
		{link, OpenMPI},
		{"/nonexistent/mpiexec", Hydra},
	}
	for _, tt := range tests {
		if got := FlavorOf(tt.path); got != tt.want {
			t.Errorf("FlavorOf(%s): got %v, want %v", tt.path, got, tt.want)
		}
	}
	// only a name that says whose the launcher is is known
	known := []struct {
		path string
		want Flavor
		ok   bool
	}{
		{"/usr/bin/mpiexec.mpich", Hydra, true},
		{"/usr/bin/mpiexec.hydra", Hydra, true},
		{link, OpenMPI, true},
		{"/usr/bin/prterun", Hydra, false}, // PRRTE starts any PMIx program
		{"/nonexistent/mpiexec", Hydra, false},
		{"/opt/site/bin/mpirun", Hydra, false},
	}
	for _, tt := range known {
		if got, ok := KnownFlavor(tt.path); got != tt.want || ok != tt.ok {
			t.Errorf("KnownFlavor(%s): got %v, %v, want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

// hydraSegv is what MPICH 4.0.2's mpiexec printed for a rank killed by
// SIGSEGV (captured on Debian 12).
const hydraSegv = `[vm:31032:0:31032] Caught signal 11 (Segmentation fault: tkill(2) or tgkill(2) at address 0x7938)

===================================================================================
=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES
=   PID 31032 RUNNING AT vm
=   EXIT CODE: 11
=   CLEANING UP REMAINING PROCESSES
=   YOU CAN IGNORE THE BELOW CLEANUP MESSAGES
===================================================================================
YOUR APPLICATION TERMINATED WITH THE EXIT STRING: Segmentation fault (signal 11)
This typically refers to a problem with your application.
Please see the FAQ page for debugging suggestions
`

func TestStatusScanner(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"segv", hydraSegv, []string{"31032 vm signal 11"}},
		{"kill", strings.NewReplacer("EXIT CODE: 11", "EXIT CODE: 9", "Segmentation fault (signal 11)", "Killed (signal 9)").Replace(hydraSegv), []string{"31032 vm signal 9"}},
		{"exit_code", strings.NewReplacer("EXIT CODE: 11", "EXIT CODE: 3", "Segmentation fault (signal 11)", "Terminated (signal 15)").Replace(hydraSegv), []string{"31032 vm exit code 3"}},
		{"old_hydra", "=   PID 7 RUNNING AT n1\n=   KILLED BY SIGNAL: 9 (Killed)\n", []string{"7 n1 signal 9"}},
		{"cut_off", "=   PID 7 RUNNING AT n1\n=   EXIT CODE: 2\n", []string{"7 n1 exit code 2"}},
		{"two", "=   PID 7 RUNNING AT n1\n=   EXIT CODE: 6\n=   PID 8 RUNNING AT n2\n=   EXIT CODE: 6\nYOUR APPLICATION TERMINATED WITH THE EXIT STRING: Aborted (signal 6)\n",
			[]string{"7 n1 signal 6", "8 n2 signal 6"}},
		{"program_output", "=   EXIT CODE: 3\nrank 0 says hi\n", nil},
		{"openmpi_killed", "-----\nmpiexec.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 9 (Killed).\n-----\n",
			[]string{"rank 1 vm signal 9"}},
		{"openmpi_pid", "prterun noticed that process rank 3 with PID 4242 on node n2 exited on signal 15 (Terminated).\n",
			[]string{"4242 n2 signal 15"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, chunk := range []int{1, 7, len(tt.in)} { // writes split anywhere
				var got []string
				s := &statusScanner{report: func(pid int, host, status string) {
					got = append(got, fmt.Sprintf("%d %s %s", pid, host, status))
				}, reportRank: func(rank int, host, status string) {
					got = append(got, fmt.Sprintf("rank %d %s %s", rank, host, status))
				}}
				for i := 0; i < len(tt.in); i += chunk {
					n, err := s.Write([]byte(tt.in[i:min(i+chunk, len(tt.in))]))
					if err != nil || n != min(chunk, len(tt.in)-i) {
						t.Fatalf("Write: %d, %v", n, err)
					}
				}
				s.flush()
				if !slices.Equal(got, tt.want) {
					t.Errorf("chunks of %d: got %q, want %q", chunk, got, tt.want)
				}
			}
		})
	}
}

// TestListener: ranks connect over a Unix socket in a private directory
// and over TCP; one says goodbye, one does not, one stays open past the
// drain timeout.
func TestListener(t *testing.T) {
	for _, network := range []string{"unix", "tcp"} {
		t.Run(network, func(t *testing.T) {
			var ln *Listener
			var err error
			if network == "unix" {
				ln, err = ListenUnix()
			} else {
				ln, err = ListenTCP("127.0.0.1:0")
			}
			if err != nil {
				t.Fatal(err)
			}
			if network == "unix" {
				fi, err := os.Stat(ln.dir)
				if err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("socket directory: %v, mode %v; want 0700", err, fi.Mode().Perm())
				}
			}
			col := report.NewCollector()
			ln.Serve(col)
			netw, addr, _ := strings.Cut(ln.Report(), ":")
			if netw != network {
				t.Fatalf("Report() = %q, want %s:...", ln.Report(), network)
			}
			dial := func(rank int, bye bool) net.Conn {
				c, err := net.Dial(netw, addr)
				if err != nil {
					t.Fatal(err)
				}
				c.Write(wire.TokenLine(ln.Token()))
				w := wire.NewWriter(c)
				w.Write(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: 3, PID: 1000 + rank}})
				w.Write(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: "invalid-tag", Severity: checks.SevError, Message: "tag -1", Call: "MPI_Send"}})
				if bye {
					w.Write(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: rank, Findings: 1}})
				}
				return c
			}
			dial(0, true).Close()
			dial(1, false).Close()
			open := dial(2, true)
			defer open.Close()
			// Generous grace and drain times: they bound the wait, they are
			// not asserted on.
			ln.Drain(300*time.Millisecond, 500*time.Millisecond)
			if err := ln.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if ln.dir != "" {
				if _, err := os.Stat(ln.dir); !os.IsNotExist(err) {
					t.Errorf("socket directory left behind: %v", err)
				}
			}
			r := report.Build(col, report.Job{Size: 3}, nil)
			if len(r.Findings) != 1 || !slices.Equal(r.Findings[0].Ranks, []int{0, 1, 2}) {
				t.Fatalf("got findings %+v, want one from ranks 0-2", r.Findings)
			}
			if len(r.Died) != 1 || !slices.Equal(r.Died[0].Ranks, []int{1}) {
				t.Errorf("died: got %+v, want rank 1", r.Died)
			}
		})
	}
}

func TestListenTCPErrors(t *testing.T) {
	for _, addr := range []string{"nonsense", "256.1.1.1:0"} {
		if ln, err := ListenTCP(addr); err == nil {
			ln.Close()
			t.Errorf("ListenTCP(%q): got no error", addr)
		}
	}
	ln, err := ListenTCP(":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	host, _ := os.Hostname()
	if !strings.HasPrefix(ln.Report(), "tcp:"+host+":") {
		t.Errorf("Report() = %q, want tcp:%s:PORT", ln.Report(), host)
	}
}
