// Command mpidbg is a debugging companion for MPI programs. See usage for
// what it does today; each subcommand lives in its own file.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/spf13/pflag"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const about = `mpidbg is a debugging companion for MPI programs. 'mpidbg run' runs a
program with every rank's MPI calls checked and reports the errors it
finds, with ranks and source lines; 'mpidbg explain' documents each kind
of finding. 'mpidbg inspect' explains MPI derived datatypes the way the
MPI standard (and MPICH) defines them: size, bounds and extent, the
constructor tree, the type map with an element path for every basic
element (such as s_type(STRUCT)[2][5](CHAR)), the type signature, and
whether a sender's type matches a receiver's. Types are written as
constructor expressions, for example
  s_type=struct([1,5,7,2,1],[-4,0,47,76,100],[LB,INT,CHAR,DOUBLE,UB])`

// command is one subcommand. flags declares its flags on fs and returns
// the function that runs it on the remaining arguments once they are
// parsed.
type command struct {
	name    string
	args    string // what follows the flags in the usage line
	summary string // one line for the command list
	about   string // its help text
	flags   func(fs *pflag.FlagSet) func(o *output, args []string) error
	// raw: the arguments go to the command unparsed (it hands most of them
	// to another program, as mpidbg gdb does to gdb); its flags are
	// declared for the help only, and the command reads its own.
	raw bool
	// hidden: not in the command list (started by other tools).
	hidden bool
}

// commands lists the subcommands in the order help shows them.
var commands = []*command{runCommand, collectCommand, explainCommand, inspectCommand, gdbCommand, dapCommand, versionCommand, gdbHelperCommand}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// output is where a command writes, and how.
type output struct {
	stdout, stderr io.Writer
	color          bool
	text           *textWriter // standard output for what mpidbg itself prints
}

// textWriter is standard output for mpidbg's own text (help, explain,
// inspect): it keeps the first error a write failed with, other than a
// reader that went away (mpidbg explain | head), so that a full disk or a
// closed descriptor ends the command with an error rather than a success
// with its output cut. What a job prints goes to standard output as it is.
type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil && t.err == nil && !errors.Is(err, syscall.EPIPE) {
		t.err = err
	}
	return n, err
}

// out is standard output for mpidbg's own text.
func (o *output) out() io.Writer {
	if o.text == nil {
		o.text = &textWriter{w: o.stdout}
	}
	return o.text
}

// usageError is bad input: the command line, an expression, a path. run
// prints it and exits with status 2.
type usageError struct {
	cmd    string // the subcommand, "" for mpidbg itself
	msg    string
	detail string // more lines (an expression with a caret), or ""
	hint   bool   // point to --help
}

func (e *usageError) Error() string { return e.msg }

func badInput(cmd, format string, args ...any) *usageError {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// run is mpidbg with arguments args (without the program name); it
// returns the exit status: 0 success, 1 failure, 2 bad input.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "mpidbg: internal error: %v\nThis is a bug in mpidbg; please report it with the command line.\n", p)
			code = 1
		}
	}()
	o := &output{stdout: stdout, stderr: stderr, color: wantColor(stdout)}
	defer func() {
		if o.text != nil && o.text.err != nil && code == 0 {
			fmt.Fprintf(stderr, "mpidbg: cannot write standard output: %v\n", o.text.err)
			code = 1
		}
	}()
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage())
		return 2
	}
	switch name := args[0]; {
	case name == "-h" || name == "--help" || name == "help" && (len(args) == 1 || args[1] == "-h" || args[1] == "--help"):
		fmt.Fprintln(o.out(), usage())
		return 0
	case name == "help" && args[1] == "help":
		fmt.Fprintln(o.out(), usage())
		return 0
	case name == "help":
		c := lookup(args[1])
		if c == nil {
			return o.fail(&usageError{msg: fmt.Sprintf("help: unknown command %q", args[1]), hint: true})
		}
		if len(args) > 2 {
			return o.fail(&usageError{msg: fmt.Sprintf("help: one command at a time, not %q", strings.Join(args[1:], " ")), hint: true})
		}
		fmt.Fprintln(o.out(), c.help())
		return 0
	case name == "--version":
		return o.runCommand(versionCommand, args[1:])
	case strings.HasPrefix(name, "-"):
		return o.fail(&usageError{msg: fmt.Sprintf("unknown flag %s (flags go after the command)", name), hint: true})
	}
	c := lookup(args[0])
	if c == nil {
		return o.fail(&usageError{msg: fmt.Sprintf("unknown command %q", args[0]), hint: true})
	}
	return o.runCommand(c, args[1:])
}

func (o *output) runCommand(c *command, args []string) int {
	fs := pflag.NewFlagSet("mpidbg "+c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	body := c.flags(fs)
	help := fs.BoolP("help", "h", false, "show this help")
	if c.raw {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(o.out(), c.help())
			return 0
		}
		return o.finish(body(o, args))
	}
	err := fs.Parse(args)
	if errors.Is(err, pflag.ErrHelp) || err == nil && *help {
		fmt.Fprintln(o.out(), c.help())
		return 0
	}
	if err != nil {
		return o.fail(&usageError{cmd: c.name, msg: flagError(err), hint: true})
	}
	return o.finish(body(o, fs.Args()))
}

// finish turns what a command returned into the exit status.
func (o *output) finish(err error) int {
	if err == nil {
		return 0
	}
	var st exitStatus
	if errors.As(err, &st) {
		return int(st)
	}
	return o.fail(err)
}

// flagError words a pflag parse error.
func flagError(err error) string {
	var inv *pflag.InvalidValueError
	if errors.As(err, &inv) {
		want := "a " + inv.GetFlag().Value.Type()
		if strings.HasPrefix(inv.GetFlag().Value.Type(), "int") {
			want = "an integer"
		}
		return fmt.Sprintf("--%s %q: want %s", inv.GetFlag().Name, inv.GetValue(), want)
	}
	return err.Error()
}

// fail prints err on stderr and returns the exit status for it.
func (o *output) fail(err error) int {
	var u *usageError
	if !errors.As(err, &u) {
		fmt.Fprintf(o.stderr, "mpidbg: %v\n", err)
		return 1
	}
	prog := "mpidbg"
	if u.cmd != "" {
		prog += " " + u.cmd
	}
	fmt.Fprintf(o.stderr, "%s: %s\n", prog, u.msg)
	if u.detail != "" {
		fmt.Fprintln(o.stderr, u.detail)
	}
	if u.hint {
		fmt.Fprintf(o.stderr, "Run '%s --help' for usage.\n", prog)
	}
	return 2
}

func usage() string {
	var b strings.Builder
	b.WriteString(about + "\n\nUsage:\n  mpidbg COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands {
		if !c.hidden {
			fmt.Fprintf(&b, "  %-9s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintf(&b, "  %-9s %s\n", "help", "show the help of a command")
	b.WriteString("\nRun 'mpidbg help COMMAND' or 'mpidbg COMMAND --help' for a command's flags.")
	return b.String()
}

func (c *command) help() string {
	fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
	fs.SortFlags = false
	c.flags(fs)
	fs.BoolP("help", "h", false, "show this help")
	line := "mpidbg " + c.name
	if fs.HasFlags() {
		line += " [flags]"
	}
	if c.args != "" {
		line += " " + c.args
	}
	return fmt.Sprintf("Usage: %s\n\n%s\n\nFlags:\n%s", line, c.about, strings.TrimRight(fs.FlagUsages(), "\n"))
}
