package nshosts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gone fails t when the namespace ns or its hosts folder is still there.
func gone(t *testing.T, ns string) {
	t.Helper()
	for _, p := range []string{filepath.Join("/run/netns", ns), filepath.Join("/etc/netns", ns)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
}

// TestNet: the hosts have their names and addresses, resolve each
// other's names and reach each other over the bridge; the remote shell
// runs a command on the host named, as ssh would; and everything is gone
// when the test ends, a process left running inside included.
func TestNet(t *testing.T) {
	var made []string
	t.Run("hosts", func(t *testing.T) {
		nt := New(t, 2)
		for _, h := range nt.all() {
			made = append(made, h.NS)
		}
		for _, h := range nt.all() {
			out, err := nt.Command(h, "sh", "-c", "hostname; ip -4 -o addr show scope global").CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", h.Name, err, out)
			}
			name, addrs, _ := strings.Cut(string(out), "\n")
			if name != h.Name || !strings.Contains(addrs, " "+h.Addr+"/24 ") || strings.Count(addrs, "\n") != 1 {
				t.Errorf("%s: hostname and addresses:\n%s", h.Name, out)
			}
		}
		// the root namespace's host name is untouched
		if here, _ := os.Hostname(); here == "head" || here == "node1" {
			t.Errorf("the root namespace's host name is %q", here)
		}
		// from node1, node2 by name: a refused connection has crossed the
		// bridge (nothing listens on port 9)
		node1, node2 := nt.Nodes[0], nt.Nodes[1]
		out, _ := nt.Command(node1, "bash", "-c", "getent hosts node2; echo > /dev/tcp/node2/9").CombinedOutput()
		if !strings.Contains(string(out), node2.Addr) || !strings.Contains(string(out), "Connection refused") {
			t.Errorf("node1 to node2:\n%s", out)
		}
		// the head's remote shell, with ssh's options before the host
		rsh := nt.Command(nt.Head, nt.RemoteShell, "-x", "-o", "BatchMode=yes", node2.Addr, "hostname;", "echo", "$FROM_HEAD", "$HOME")
		rsh.Env = append(os.Environ(), "FROM_HEAD=leaks")
		out, err := rsh.CombinedOutput()
		if err != nil || strings.Fields(string(out))[0] != "node2" || strings.Contains(string(out), "leaks") {
			t.Errorf("remote shell to node2: %v\n%s", err, out)
		}
		if out, err := nt.Command(nt.Head, nt.RemoteShell, "node9", "true").CombinedOutput(); err == nil || !strings.Contains(string(out), "no such test host") {
			t.Errorf("remote shell to node9: %v\n%s", err, out)
		}
		// a process still running when the test ends
		if err := nt.Command(node1, "sleep", "600").Start(); err != nil {
			t.Fatal(err)
		}
	})
	if len(made) == 0 {
		return // skipped
	}
	for _, ns := range made {
		gone(t, ns)
	}
}

// TestLeftovers: the namespaces of a process that is gone are removed;
// those of a live one stay.
func TestLeftovers(t *testing.T) {
	New(t, 1) // root, ip: or skip
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	dead := fmt.Sprintf("%s-%d-1-head", Prefix, c.Process.Pid)
	live := fmt.Sprintf("%s-%d-1-head", Prefix, os.Getppid())
	for _, ns := range []string{dead, live} {
		if b, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
			t.Fatalf("ip netns add %s: %v: %s", ns, err, b)
		}
		os.MkdirAll(filepath.Join("/etc/netns", ns), 0o755)
	}
	t.Cleanup(func() { remove(live) })
	RemoveLeftovers()
	gone(t, dead)
	if _, err := os.Stat(filepath.Join("/run/netns", live)); err != nil {
		t.Errorf("the namespace of a live process was removed: %v", err)
	}
}
