package launch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// ProgramError says why mpiexec could not start the program: mpidbg
// refuses it before the launch, rather than let every rank fail with
// the launcher's own execvp message.
type ProgramError struct {
	Program string
	Reason  string
}

func (e *ProgramError) Error() string { return e.Program + ": " + e.Reason }

// Resolve finds program as Hydra's mpiexec (MPICH's) will: see
// ResolveFor.
func Resolve(program, dir string) (string, error) {
	return ResolveFor(Hydra, program, dir)
}

// ResolveFor finds program the way the launcher of flavor f will, in
// the working directory dir ("": this process's): a name with a slash is
// a path; a bare name is looked up on PATH, and under Open MPI, when it
// is not there, in the working directory too (Open MPI's mpiexec runs an
// executable file of that name from there; Hydra's execvp does not, so
// under Hydra a bare name found only there is refused with a did-you-mean
// ./NAME). The file must be a regular, executable file; a script's
// interpreter (its #! line) must exist and be executable too, as must
// the command of "#!/usr/bin/env CMD". It returns the path found,
// absolute for a bare name; the caller still passes program on to
// mpiexec as the user wrote it.
func ResolveFor(f Flavor, program, dir string) (string, error) {
	bad := func(format string, a ...any) (string, error) {
		return "", &ProgramError{Program: program, Reason: fmt.Sprintf(format, a...)}
	}
	if program == "" {
		return bad("empty program name")
	}
	path := program
	if !strings.Contains(program, "/") {
		p, err := lookPath(program)
		if err != nil {
			local, err := filepath.Abs(filepath.Join(dir, program))
			if err != nil {
				return bad("not found on PATH")
			}
			fi, err := os.Stat(local)
			switch {
			case err != nil || !fi.Mode().IsRegular():
				return bad("not found on PATH")
			case f != OpenMPI:
				return bad("not found on PATH; did you mean ./%s?", program)
			case syscall.Access(local, 1 /* X_OK */) != nil:
				// Open MPI looks for an executable file only: this one
				// it would not find
				return bad("not found on PATH, and ./%s is not executable (its mode is %v; chmod +x it)", program,
					fi.Mode().Perm())
			}
			p = local
		}
		path = p
	} else if dir != "" && !filepath.IsAbs(program) {
		path = filepath.Join(dir, program)
	}
	if err := runnable(path); err != nil {
		return bad("%s", err)
	}
	if err := interpreter(path); err != nil {
		return bad("%s", err)
	}
	return path, nil
}

// lookPath is exec.LookPath, except that a name found through a
// relative PATH entry ("." or empty), which Go refuses (exec.ErrDot),
// is accepted, as execvp accepts it.
func lookPath(name string) (string, error) {
	p, err := exec.LookPath(name)
	if errors.Is(err, exec.ErrDot) {
		return filepath.Abs(p)
	}
	return p, err
}

// runnable says why path cannot be executed, or nil.
func runnable(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case err != nil:
		return errors.Unwrap(err) // "permission denied" on a directory on the way
	case fi.IsDir():
		return errors.New("is a directory")
	case !fi.Mode().IsRegular():
		return errors.New("not a regular file")
	}
	if err := syscall.Access(path, 1 /* X_OK */); err != nil {
		if fi.Mode().Perm()&0o111 == 0 {
			return fmt.Errorf("not executable (its mode is %v; chmod +x it)", fi.Mode().Perm())
		}
		return fmt.Errorf("not executable: %v", err)
	}
	return nil
}

// interpreter checks a script's #! line: the interpreter must be an
// executable file, and "/usr/bin/env CMD" must find CMD on PATH. A file
// without #! (an ELF program) is not looked into.
func interpreter(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // execute but not read: the kernel may still run it
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 256)).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 {
		return errors.New("a script whose #! line names no interpreter")
	}
	interp := fields[0]
	if err := runnable(interp); err != nil {
		return fmt.Errorf("its interpreter %s (the #! line): %v", interp, err)
	}
	if filepath.Base(interp) == "env" {
		// "#!/usr/bin/env python3"; with -S the rest is split again.
		args := fields[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			args = args[1:]
		}
		if len(args) > 0 && !strings.Contains(args[0], "=") {
			cmd := args[0]
			if strings.Contains(cmd, "/") {
				if err := runnable(cmd); err != nil {
					return fmt.Errorf("its interpreter %s (the #! line): %v", cmd, err)
				}
			} else if _, err := lookPath(cmd); err != nil {
				return fmt.Errorf("its interpreter %s (the #! line, through env) is not found on PATH", cmd)
			}
		}
	}
	return nil
}
