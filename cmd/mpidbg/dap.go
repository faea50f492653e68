package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/mpidbg/mpidbg/dap"
	"github.com/mpidbg/mpidbg/run/launch"
	"github.com/spf13/pflag"
)

var dapCommand = &command{
	name:    "dap",
	args:    "[--listen 127.0.0.1:PORT]",
	summary: "serve the Debug Adapter Protocol (VS Code): every rank under gdb",
	about: `Serves one debugging session over the Debug Adapter Protocol on standard
input and output, as VS Code and other editors start a debug adapter
(extensions/vscode does). A launch configuration starts an MPI job with
every rank (or those in "ranks") under one gdb, one inferior per rank;
threads are named "rank R". Breakpoints apply to every rank. When the
shim makes a finding, the faulty rank stops at the faulty MPI call with
the finding as the exception; a deadlock stops every rank at its blocked
call. Ranks on other hosts (hosts in "mpiexecArgs") need "listen", an
address of this machine they can reach: each connects there and starts
a gdbserver for this session's gdb (gdbserver must be installed on their
hosts). Attach configurations take a running job on this host: "pid"
(mpiexec's or 'mpidbg run''s process) or "pids" (the ranks').

--listen serves one client on TCP instead, on a loopback address only:
the protocol can run any command as you, so it is never offered to the
network. docs/dap.md has the configurations and how it works.

gdb is --gdb, else gdb on PATH (gdb 13 or later: the extension's MI
commands need gdb.MICommand). The shim and the gdb extension are found
as for 'mpidbg run' and 'mpidbg gdb', the MPI from the launch
configuration's "mpi" or the program.

Examples:
  mpidbg dap
  mpidbg dap --listen 127.0.0.1:4711
  mpidbg dap --log /tmp/dap.log`,
	flags: func(fs *pflag.FlagSet) func(o *output, args []string) error {
		d := &dapFlags{}
		fs.StringVar(&d.listen, "listen", "", "serve one client on TCP `ADDR` (a loopback address such as 127.0.0.1:4711) instead of stdio")
		fs.StringVar(&d.gdb, "gdb", "", "the gdb to run: a `PATH` or a name on PATH (default: gdb)")
		fs.StringVar(&d.shim, "shim", "", "the shim library `PATH` (default: $MPIDBG_SHIM, else the program's MPI's in ../lib beside mpidbg)")
		fs.StringVar(&d.log, "log", "", "append every DAP message and gdb/MI line to `FILE` (for bug reports)")
		return d.run
	},
}

type dapFlags struct{ listen, gdb, shim, log string }

func (d *dapFlags) run(o *output, args []string) error {
	if len(args) > 0 {
		return &usageError{cmd: "dap", msg: fmt.Sprintf("takes no arguments, got %q", args[0]), hint: true}
	}
	if d.listen != "" {
		host, port, err := net.SplitHostPort(d.listen)
		if err != nil {
			return &usageError{cmd: "dap", msg: fmt.Sprintf("--listen %s: want HOST:PORT", d.listen), hint: true}
		}
		if err := launch.CheckPort(port); err != nil {
			return &usageError{cmd: "dap", msg: fmt.Sprintf("--listen %s: %v", d.listen, err)}
		}
		if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return &usageError{cmd: "dap", msg: fmt.Sprintf("--listen %s: only a loopback address (127.0.0.1, ::1, localhost) is allowed: a debug adapter runs commands as you", d.listen)}
		}
	}
	gdb, err := findGdb(d.gdb)
	if err != nil {
		return retag(err, "dap")
	}
	script, err := findGdbExt()
	if err != nil {
		return retag(err, "dap")
	}
	exe, _ := os.Executable()
	cfg := dap.Config{Gdb: gdb, Script: script, Mpidbg: exe,
		Tools: func(program, mpi, shim, mpiexec string) (dap.Tools, error) {
			if shim == "" {
				shim = d.shim // a launch configuration's "shim" wins over --shim
			}
			t, err := findTools(program, mpi, shim, mpiexec)
			if err != nil {
				return dap.Tools{}, plainError(err)
			}
			return dap.Tools{Shim: t.shim, MPIExec: t.mpiexec}, nil
		}}
	if d.log != "" {
		f, err := os.OpenFile(d.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return &usageError{cmd: "dap", msg: err.Error()}
		}
		defer f.Close()
		cfg.Log = dap.NewLogger(f)
	}
	if d.listen == "" {
		return dap.NewServer(cfg, stdio{os.Stdin, o.stdout}).Serve()
	}
	ln, err := net.Listen("tcp", d.listen)
	if err != nil {
		return &usageError{cmd: "dap", msg: err.Error()}
	}
	defer ln.Close()
	fmt.Fprintf(o.stderr, "mpidbg dap: listening on %s\n", ln.Addr())
	conn, err := ln.Accept()
	if err != nil {
		return err
	}
	defer conn.Close()
	ln.Close() // one client
	return dap.NewServer(cfg, conn).Serve()
}

// stdio joins standard input and output into one connection.
type stdio struct {
	io.Reader
	io.Writer
}

// retag makes another command's usage error this command's.
func retag(err error, cmd string) error {
	var u *usageError
	if errors.As(err, &u) {
		u.cmd = cmd
	}
	return err
}
