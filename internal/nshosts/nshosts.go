// Package nshosts makes test hosts on this machine: each host is a
// network namespace with its own address, and each command run on it a
// UTS namespace with the host's name, so that an MPI job started across
// them is a job across machines as mpiexec, its remote daemons, the ranks
// and mpidbg see it.
//
// New(t, n) makes n hosts, node1 ... nodeN, and a head host, head,
// where mpiexec and mpidbg run:
//
//	head (10.213.0.254 on br0) ── br0 ── eth0 of node1 (10.213.0.1)
//	                                  └── eth0 of node2 (10.213.0.2) ...
//
// The bridge is in the head's namespace, each host's veth pair is made
// with its ends already in their namespaces, and every address and route
// is inside the namespaces: nothing of the root namespace changes. Each
// namespace has loopback up and an /etc/netns/NS/hosts naming every host
// (ip netns exec mounts it over /etc/hosts), so host names resolve in
// each. The launcher's remote shell is RemoteShell, a script that runs
// its command on the host named, as ssh would (LauncherArgs).
//
// It needs root and ip(8) with netns support. Without them the test
// skips, or fails when it must run: in CI (CI=true) or under make test
// (MPIDBG_REQUIRE_MPI=1). Namespaces are named PREFIX-PID-N-HOST with this
// process's id, so that parallel test processes do not collide; New
// removes those of processes that are gone (a run that was killed), and
// t.Cleanup those it made, with every process still inside, whether the
// test passed or not.
package nshosts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// Prefix starts the name of every namespace the package makes.
const Prefix = "mpidbgns"

// Subnet is the hosts' network; the head is .254, nodeI is .I.
const (
	Subnet = "10.213.0.0/24"
	net24  = "10.213.0."
)

// Host is one test host.
type Host struct {
	Name string // its host name: head, node1, node2...
	NS   string // its network namespace (ip netns)
	Addr string // its address on the bridge
}

// Net is a set of test hosts on one bridge.
type Net struct {
	Head  Host
	Nodes []Host
	// RemoteShell is the path of a script that takes ssh's arguments
	// (options, HOST, COMMAND...) and runs the command with sh on the host
	// named (by name or address), in a fresh environment (PATH and HOME
	// only) as ssh gives a remote command.
	RemoteShell string
}

// seq numbers the nets this process makes.
var seq atomic.Int64

// Required reports whether a missing namespace is a failure: in CI
// (CI=true) or under make test (MPIDBG_REQUIRE_MPI), where the tests run
// as root.
func Required() bool {
	return os.Getenv(envvar.CI) == "true" || testenv.Required(testenv.RequireMPI)
}

// missing ends t: a failure when Required, else a skip.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("cannot make test hosts (CI=true or %s=1 say it must): %s", testenv.RequireMPI, msg)
	}
	t.Skipf("cannot make test hosts: %s; set CI=true or %s=1 to fail instead", msg, testenv.RequireMPI)
}

// New makes n nodes and the head, removed when t ends.
func New(t testing.TB, n int) *Net {
	t.Helper()
	if n < 1 || n > 253 {
		t.Fatalf("nshosts.New: %d hosts", n)
	}
	if os.Geteuid() != 0 {
		missing(t, "not root (network namespaces need CAP_SYS_ADMIN and CAP_NET_ADMIN)")
	}
	for _, tool := range []string{"ip", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, "%s is missing (apt-get install iproute2 util-linux)", tool)
		}
	}
	RemoveLeftovers()
	base := fmt.Sprintf("%s-%d-%d", Prefix, os.Getpid(), seq.Add(1))
	nt := &Net{Head: Host{Name: "head", NS: base + "-head", Addr: net24 + "254"}}
	for i := 1; i <= n; i++ {
		name := "node" + strconv.Itoa(i)
		nt.Nodes = append(nt.Nodes, Host{Name: name, NS: base + "-" + name, Addr: net24 + strconv.Itoa(i)})
	}
	t.Cleanup(func() {
		for _, h := range nt.all() {
			if err := remove(h.NS); err != nil {
				t.Errorf("remove test host %s: %v", h.Name, err)
			}
		}
	})
	if err := nt.make(); err != nil {
		missing(t, "%v", err)
	}
	script := filepath.Join(t.TempDir(), "rsh")
	if err := os.WriteFile(script, []byte(nt.script()), 0o755); err != nil {
		t.Fatal(err)
	}
	nt.RemoteShell = script
	return nt
}

// all is the head, then the nodes.
func (nt *Net) all() []Host { return append([]Host{nt.Head}, nt.Nodes...) }

// Host returns the host named name (head, node1, ...).
func (nt *Net) Host(name string) (Host, bool) {
	for _, h := range nt.all() {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

// make builds the namespaces, the bridge, the links and the hosts files.
func (nt *Net) make() error {
	h := nt.Head.NS
	var hosts strings.Builder
	hosts.WriteString("127.0.0.1\tlocalhost\n::1\tlocalhost\n")
	for _, x := range nt.all() {
		fmt.Fprintf(&hosts, "%s\t%s\n", x.Addr, x.Name)
	}
	steps := [][]string{
		{"netns", "add", h},
		{"-n", h, "link", "set", "lo", "up"},
		{"-n", h, "link", "add", "br0", "type", "bridge"},
		{"-n", h, "link", "set", "br0", "up"},
		{"-n", h, "addr", "add", nt.Head.Addr + "/24", "dev", "br0"},
	}
	for i, x := range nt.Nodes {
		port := "v" + strconv.Itoa(i+1)
		steps = append(steps,
			[]string{"netns", "add", x.NS},
			[]string{"-n", x.NS, "link", "set", "lo", "up"},
			// both ends made inside their namespaces: no name is ever
			// taken in the root namespace
			[]string{"link", "add", "eth0", "netns", x.NS, "type", "veth", "peer", "name", port, "netns", h},
			[]string{"-n", h, "link", "set", port, "master", "br0"},
			[]string{"-n", h, "link", "set", port, "up"},
			[]string{"-n", x.NS, "link", "set", "eth0", "up"},
			[]string{"-n", x.NS, "addr", "add", x.Addr + "/24", "dev", "eth0"},
		)
	}
	for _, s := range steps {
		if b, err := exec.Command("ip", s...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(s, " "), err, strings.TrimSpace(string(b)))
		}
	}
	for _, x := range nt.all() {
		dir := filepath.Join("/etc/netns", x.NS)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Command is name with args run on h: in its network namespace (where
// its hosts file is /etc/hosts) and a UTS namespace of its own with h's
// host name. The environment is the caller's (exec.Cmd's Env).
func (nt *Net) Command(h Host, name string, args ...string) *exec.Cmd {
	argv := append([]string{"netns", "exec", h.NS, "unshare", "--uts", "sh", "-c", `hostname "$0" && exec "$@"`, h.Name, name}, args...)
	return exec.Command("ip", argv...)
}

// remove ends every process in the namespace ns, deletes it (its links
// go with it) and its /etc/netns folder. A namespace already gone is no
// error.
func remove(ns string) error {
	if out, err := exec.Command("ip", "netns", "pids", ns).Output(); err == nil {
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	var errs []error
	if _, err := os.Stat(filepath.Join("/run/netns", ns)); err == nil {
		if b, err := exec.Command("ip", "netns", "del", ns).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("ip netns del %s: %v: %s", ns, err, strings.TrimSpace(string(b))))
		}
	}
	if err := os.RemoveAll(filepath.Join("/etc/netns", ns)); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// RemoveLeftovers removes the namespaces (and /etc/netns folders) of
// this package that a process now gone made: a test run that was killed
// before its cleanup.
func RemoveLeftovers() {
	seen := map[string]bool{}
	for _, dir := range []string{"/run/netns", "/etc/netns"} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			ns := e.Name()
			if seen[ns] || !strings.HasPrefix(ns, Prefix+"-") {
				continue
			}
			seen[ns] = true
			pid, err := strconv.Atoi(strings.Split(ns, "-")[1])
			if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
				continue // a name of another form, ours, or a live process's
			}
			remove(ns)
		}
	}
}
