package launch

import (
	"bufio"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/mpidbg/mpidbg/wire"
)

// TestListenerToken: only connections that send the job's token first,
// and only as many as the job has ranks, are read; the others (a wrong
// token, none, a stranger who says nothing, one too many) are closed
// unread, told why, and counted. A silent stranger holds neither the
// ranks nor the drain.
func TestListenerToken(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) { testListenerToken(t, network) })
	}
}

func testListenerToken(t *testing.T, network string) {
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
	defer ln.Close()
	if len(ln.Token()) != wire.TokenLen || strings.Trim(ln.Token(), "0123456789abcdef") != "" {
		t.Fatalf("Token() = %q, want %d hexadecimal digits", ln.Token(), wire.TokenLen)
	}
	if other, err := ListenTCP("127.0.0.1:0"); err == nil {
		if other.Token() == ln.Token() {
			t.Errorf("two listeners have the same token %s", ln.Token())
		}
		other.Close()
	}
	const wait = 300 * time.Millisecond
	ln.tokenWait = wait
	ln.Expect(2)
	col := report.NewCollector()
	ln.Serve(col)
	netw, addr, _ := strings.Cut(ln.Report(), ":")
	dial := func() net.Conn {
		c, err := net.Dial(netw, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// rank sends first (a token line, or nothing), then a Hello and a
	// finding with message msg.
	rank := func(first []byte, rank int, msg string) net.Conn {
		c := dial()
		c.Write(first)
		w := wire.NewWriter(c)
		w.Write(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: rank, Size: 2, PID: 1000 + rank}})
		w.Write(wire.Message{Kind: wire.KindFinding, Finding: &checks.Finding{ID: "invalid-tag", Severity: checks.SevError, Message: msg, Call: "MPI_Send"}})
		return c
	}
	// refused reads what the listener says to c before it closes it: a
	// Refused, and then the end.
	refused := func(c net.Conn, want string) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(wait + 5*time.Second))
		r := bufio.NewReader(c)
		m, err := wire.NewReader(r).Read()
		if err != nil || m.Kind != wire.KindRefused || !strings.Contains(m.Refused.Why, want) {
			t.Errorf("got %+v, %v; want Refused saying %q", m, err, want)
		}
	}

	silent := dial() // says nothing until the listener gives it up
	wrong := strings.Repeat("0", wire.TokenLen)
	if wrong == ln.Token() {
		wrong = strings.Repeat("1", wire.TokenLen)
	}
	forged := rank(wire.TokenLine(wrong), 0, "forged with a wrong token")
	bare := rank(nil, 1, "forged without a token")
	short := dial() // half a token, then silence
	short.Write([]byte(ln.Token()[:wire.TokenLen/2]))
	r0 := rank(wire.TokenLine(ln.Token()), 0, "tag -1")
	r1 := rank(wire.TokenLine(ln.Token()), 1, "tag -1")
	refused(forged, "no valid job token")
	refused(bare, "no valid job token")
	refused(silent, "no valid job token")
	refused(short, "no valid job token")
	// the ranks are read while strangers wait, and a third with the
	// token is one too many
	deadline := time.Now().Add(10 * time.Second)
	for ln.Connected() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d ranks connected, want 2", ln.Connected())
		}
		time.Sleep(10 * time.Millisecond)
	}
	extra := rank(wire.TokenLine(ln.Token()), 1, "one rank too many")
	refused(extra, "all 2 ranks of the job are connected")

	// a stranger silent at the end does not hold the drain
	late := dial()
	time.Sleep(50 * time.Millisecond) // accepted before the drain
	wire.NewWriter(r0).Write(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: 0, Findings: 1}})
	wire.NewWriter(r1).Write(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: 1, Findings: 1}})
	r0.Close()
	r1.Close()
	start := time.Now()
	ln.Drain(100*time.Millisecond, 5*time.Second)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Drain took %v with a silent stranger connected", d)
	}
	_ = late

	got := ln.Refused()
	if want := (report.Refused{NoToken: 5, Surplus: 1}); got != want {
		t.Errorf("Refused() = %+v, want %+v", got, want)
	}
	rep := report.Build(col, report.Job{Size: 2}, nil)
	if len(rep.Findings) != 1 || rep.Findings[0].Message != "tag -1" || !slices.Equal(rep.Findings[0].Ranks, []int{0, 1}) {
		t.Errorf("got findings %+v, want only the ranks' (tag -1, ranks 0-1)", rep.Findings)
	}
	if len(rep.Died) != 0 || len(rep.Silent) != 0 {
		t.Errorf("died %+v, silent %v: want none", rep.Died, rep.Silent)
	}
}

// TestArgsSecret: a Secret variable's value is never on mpiexec's command
// line, for either flavor, whatever the user's environment options;
// SecretEnv puts it in mpiexec's environment.
func TestArgsSecret(t *testing.T) {
	const value = "0123456789abcdef"
	env := []Var{{Name: envvar.Report, Value: "tcp:h:1"}, {Name: envvar.Token, Value: value, Secret: true}}
	tests := []struct {
		flavor Flavor
		extra  []string
		want   string
	}{
		{Hydra, nil, "-genv MPIDBG_REPORT tcp:h:1 -n 2 ./app"},
		{Hydra, []string{"-genvnone"}, "-genvlist MPIDBG_TOKEN -genv MPIDBG_REPORT tcp:h:1 -n 2 ./app"},
		{Hydra, []string{"-hosts", "a,b", "-genvlist", "PATH,HOME"}, "-hosts a,b -genvlist PATH,HOME,MPIDBG_TOKEN -genv MPIDBG_REPORT tcp:h:1 -n 2 ./app"},
		{OpenMPI, nil, "-x MPIDBG_REPORT=tcp:h:1 -x MPIDBG_TOKEN -n 2 ./app"},
	}
	for _, tt := range tests {
		extra := slices.Clone(tt.extra)
		got := strings.Join(Args(tt.flavor, 2, extra, env, "./app", nil), " ")
		if got != tt.want {
			t.Errorf("%v %q:\ngot  %s\nwant %s", tt.flavor, tt.extra, got, tt.want)
		}
		if strings.Contains(got, value) {
			t.Errorf("%v: the secret is on the command line: %s", tt.flavor, got)
		}
		if !slices.Equal(extra, tt.extra) {
			t.Errorf("%v: Args changed the caller's launcher arguments to %q", tt.flavor, extra)
		}
	}
	if e := SecretEnv(env); !slices.Contains(e, envvar.Token+"="+value) || slices.Contains(e, envvar.Report+"=tcp:h:1") {
		t.Errorf("SecretEnv: want MPIDBG_TOKEN set, MPIDBG_REPORT not, got ...%q", e[max(0, len(e)-3):])
	}
}

// TestListenerFlood: more silent strangers than may wait for their token
// at once delay a rank that connects after them, and never refuse it.
func TestListenerFlood(t *testing.T) {
	ln, err := ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ln.tokenWait = 300 * time.Millisecond
	ln.Expect(1)
	col := report.NewCollector()
	ln.Serve(col)
	_, addr, _ := strings.Cut(ln.Report(), ":")
	const strangers = maxPending + 44
	for range strangers {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(wire.TokenLine(ln.Token()))
	wire.NewWriter(c).Write(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: 0, Size: 1}})
	deadline := time.Now().Add(10 * time.Second)
	for ln.Connected() < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the rank was not read; refused %+v", ln.Refused())
		}
		time.Sleep(10 * time.Millisecond)
	}
	ln.Drain(100*time.Millisecond, time.Second)
	if got := ln.Refused(); got != (report.Refused{NoToken: strangers}) {
		t.Errorf("Refused() = %+v, want %d without a token", got, strangers)
	}
}

// TestDrainAllRanksIn: once every rank of the job has connected and no
// connection waits for its token, Drain does not wait its grace: the
// report follows the job's end at once, whatever the job's size.
func TestDrainAllRanksIn(t *testing.T) {
	ln, err := ListenUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const ranks = 3
	ln.Expect(ranks)
	col := report.NewCollector()
	ln.Serve(col)
	_, addr, _ := strings.Cut(ln.Report(), ":")
	for r := 0; r < ranks; r++ {
		c, err := net.Dial("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write(wire.TokenLine(ln.Token()))
		w := wire.NewWriter(c)
		w.Write(wire.Message{Kind: wire.KindHello, Hello: &wire.Hello{Version: wire.Version, Rank: r, Size: ranks, PID: 1000 + r}})
		w.Write(wire.Message{Kind: wire.KindBye, Bye: &wire.Bye{Rank: r}})
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	for ln.Connected() < ranks {
		if time.Now().After(deadline) {
			t.Fatalf("%d ranks connected, want %d", ln.Connected(), ranks)
		}
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	ln.Drain(5*time.Second, 5*time.Second)
	if d := time.Since(start); d > time.Second {
		t.Errorf("Drain took %v with every rank connected and gone, want no grace", d)
	}
	if got := ln.Refused(); got != (report.Refused{}) {
		t.Errorf("Refused() = %+v, want none", got)
	}
	rep := report.Build(col, report.Job{Size: ranks}, nil)
	if len(rep.Died) != 0 || len(rep.Silent) != 0 {
		t.Errorf("died %+v, silent %v: want none", rep.Died, rep.Silent)
	}
}
