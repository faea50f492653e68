package testenv

import (
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// Slurm starts a one-node Slurm cluster for t and returns its slurm.conf,
// for SLURM_CONF: Debian's slurm-wlm daemons (slurmctld, slurmd) and a
// munged of its own, with a key, a socket, ports and state of their own
// under t's temporary directory, so that it neither needs nor disturbs
// a cluster the machine may have. The node claims 16 CPUs whatever the
// machine has (config_overrides), so that jobs of a few ranks fit on two
// cores. Everything is stopped when t ends. It needs root (slurmd runs
// each job as its user) and ends t with Missing(RequireMPI) without it or
// without the daemons.
func Slurm(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, RequireMPI, "a test Slurm cluster needs root (slurmd runs jobs as their user)")
	}
	tools := map[string]string{}
	for _, name := range []string{"slurmctld", "slurmd", "munged", "srun", "sinfo"} {
		p, err := exec.LookPath(name)
		if err != nil {
			p = filepath.Join("/usr/sbin", name)
			if _, err := os.Stat(p); err != nil {
				Missing(t, RequireMPI, "%s is missing (apt-get install slurm-wlm munge)", name)
			}
		}
		tools[name] = p
	}
	dir, err := os.MkdirTemp("", "mpidbg-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"state", "spool", "munge"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	keyFile := filepath.Join(dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "munge", "munge.socket")
	start(t, tools["munged"], nil, "--foreground", "--force", "--key-file="+keyFile, "--socket="+socket,
		"--pid-file="+filepath.Join(dir, "munge", "munged.pid"), "--seed-file="+filepath.Join(dir, "munge", "seed"),
		"--log-file="+filepath.Join(dir, "munge", "munged.log"))
	if !waitFor(10*time.Second, func() bool { _, err := os.Stat(socket); return err == nil }) {
		t.Fatalf("munged made no socket %s: %s", socket, readLog(filepath.Join(dir, "munge", "munged.log")))
	}

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	ctld, slurmd := freePort(t), freePort(t)
	conf := filepath.Join(dir, "slurm.conf")
	text := fmt.Sprintf(`ClusterName=mpidbgtest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[2]s
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
StateSaveLocation=%[3]s/state
SlurmdSpoolDir=%[3]s/spool
SlurmctldPidFile=%[3]s/slurmctld.pid
SlurmdPidFile=%[3]s/slurmd.pid
SlurmctldLogFile=%[3]s/slurmctld.log
SlurmdLogFile=%[3]s/slurmd.log
SlurmctldPort=%[4]d
SlurmdPort=%[5]d
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=16 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:16
`, host, socket, dir, ctld, slurmd)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{envvar.SlurmConf + "=" + conf}
	start(t, tools["slurmctld"], env, "-D", "-i", "-f", conf)
	start(t, tools["slurmd"], env, "-D", "-N", host, "-f", conf) // the node by name, whatever the machine resolves its name to
	idle := waitFor(30*time.Second, func() bool {
		cmd := exec.Command(tools["sinfo"], "-h", "-o", "%T")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
	if !idle {
		t.Fatalf("the test Slurm cluster's node did not become idle in 30 s:\nslurmctld: %s\nslurmd: %s",
			readLog(filepath.Join(dir, "slurmctld.log")), readLog(filepath.Join(dir, "slurmd.log")))
	}
	return conf
}

// start runs a daemon in the foreground of a process of its own until t
// ends. Should the test binary die first (a -timeout panic, a SIGKILL),
// the daemon gets SIGKILL from the kernel (the parent-death signal, tied
// to the thread that started it, which stays locked to that goroutine for
// the daemon's life).
func start(t testing.TB, path string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	started, done := make(chan error, 1), make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		cmd.Wait()
		close(done)
	}()
	if err := <-started; err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

func waitFor(d time.Duration, ok func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if ok() {
			return true
		}
	}
	return false
}

// freePort is a TCP port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// readLog is the end of a daemon's log, for a failure message.
func readLog(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
