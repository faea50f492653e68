package launch

import (
	"os/exec"
	"runtime"
	"syscall"
)

// startOwned starts cmd (mpiexec) so that it cannot outlive mpidbg: the
// kernel sends it SIGTERM (Pdeathsig) when mpidbg dies, whatever kills
// mpidbg, SIGKILL included; mpiexec then ends the ranks as it does on a
// Ctrl-C. SIGTERM rather than SIGKILL: a killed mpiexec could not pass
// the end on to its proxies and the ranks. The ranks also watch their
// connection to mpidbg (the shim's peer.go) for a launcher that cannot.
//
// The parent-death signal is tied to the thread that forked, not to the
// process: Go may end an idle thread (one a goroutine locked and left),
// which would end mpiexec with it. So the fork is made on a thread locked
// to a goroutine that stays until mpiexec has been waited for. done
// receives cmd.Wait's error.
func startOwned(cmd *exec.Cmd) (done <-chan error, err error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		waited <- cmd.Wait()
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}
