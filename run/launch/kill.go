package launch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// How mpidbg ends a job it found deadlocked: SIGTERM to mpiexec, which
// Hydra passes to every rank, on every node, through its proxies, and
// then exits; and SIGTERM to the ranks on this machine at once, since
// Open MPI's mpiexec sends them SIGCONT first and SIGTERM only a second
// later (odls_base_sigkill_timeout), a second every such job spent
// waiting. Only processes below mpiexec whose pids the ranks gave in
// their Hello are signalled, not its proxies or daemons, which then see
// their ranks end as they do when mpiexec ends them. Should mpiexec still
// run after a grace period, SIGKILL goes to it and to every process below
// it on this machine (its proxies and the ranks they started). Not to a
// process group: mpiexec shares mpidbg's (that is how a Ctrl-C on the
// terminal reaches it), and Hydra puts each rank in a group of its own
// anyway. Remote proxies end when their connection to mpiexec closes.

// killTree sends SIGKILL to pid and every descendant of it, read from
// /proc; it returns how many processes it signalled.
func killTree(pid int) int { return signalTree(pid, syscall.SIGKILL) }

// signalTree sends sig to pid and every descendant of it. A batch script
// that mpidbg collect runs is ended so: a shell dies of SIGTERM without
// passing it on, which would leave its srun or mpiexec running.
func signalTree(pid int, sig syscall.Signal) int {
	return signalBelow(pid, sig, nil)
}

// signalRanks sends sig to the descendants of pid whose pids are in
// ranks: the ranks mpiexec started on this machine, as they said in
// their Hello (this host's, still connected). A pid in ranks that is not
// below mpiexec is left alone; one that is, in another pid namespace, is
// a process of this job all the same.
func signalRanks(pid int, sig syscall.Signal, ranks map[int]bool) int {
	if len(ranks) == 0 {
		return 0
	}
	return signalBelow(pid, sig, ranks)
}

// signalBelow sends sig to pid and its descendants, or, with only, to
// those of its descendants that only holds.
func signalBelow(pid int, sig syscall.Signal, only map[int]bool) int {
	children := map[int][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		if pp, ok := parentOf(d); ok {
			children[pp] = append(children[pp], p)
		}
	}
	n := 0
	// Parents first, so that none starts a replacement; a process that
	// exited meanwhile is simply not there.
	todo := []int{pid}
	seen := map[int]bool{}
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		if (only == nil || (only[p] && p != pid)) && syscall.Kill(p, sig) == nil {
			n++
		}
		todo = append(todo, children[p]...)
	}
	return n
}

// parentOf reads the parent pid from /proc/PID/stat: the field after the
// command name, which is in parentheses and may hold spaces or ')'.
func parentOf(procDir string) (int, bool) {
	b, err := os.ReadFile(filepath.Join(procDir, "stat"))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}
