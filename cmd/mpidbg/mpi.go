package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/mpilib"
	"github.com/mpidbg/mpidbg/run/launch"
)

// jobTools is what a job runs with: the MPI library, the shim built for
// it and the mpiexec that starts it.
type jobTools struct {
	mpi     mpilib.MPI
	shim    string
	mpiexec string
}

// chooseMPI decides which MPI library a job uses, in this order: --mpi;
// the library the program links (mpilib.Detect; for a Python
// interpreter, the one its mpi4py links, mpilib.DetectPython); the one the --shim
// (or $MPIDBG_SHIM) library links; MPICH. It refuses a --mpi or a shim
// that contradicts the program: a shim built for the other library
// would misread every handle.
func chooseMPI(program, mpiFlag, shimFlag string) (mpilib.MPI, error) {
	return chooseLinked(program, linkedMPI(program), mpiFlag, shimFlag)
}

// chooseLinked is chooseMPI for a program that links linked (linkedMPI),
// for callers that need that too: reading the program's libraries is the
// costly part.
func chooseLinked(program string, linked mpilib.MPI, mpiFlag, shimFlag string) (mpilib.MPI, error) {
	if mpiFlag != "" {
		m, err := mpilib.Parse(mpiFlag)
		if err != nil {
			return 0, fmt.Errorf("--mpi %s", err.Error())
		}
		if linked != 0 && linked != m {
			return 0, fmt.Errorf("--mpi %s: %s links %s", m, program, linked)
		}
		return m, nil
	}
	shim := shimFlag
	if shim == "" {
		shim = os.Getenv(envvar.Shim)
	}
	if shim != "" {
		if m, err := mpilib.Detect(shim); err == nil {
			if linked != 0 && linked != m {
				return 0, fmt.Errorf("the shim %s is built for %s but %s links %s (build it with make build, or use lib/%s)",
					shim, m, program, linked, mpilib.Shim(linked))
			}
			return m, nil
		}
	}
	if linked != 0 {
		return linked, nil
	}
	return mpilib.MPICH, nil
}

// linkedMPI is the MPI the program links (or its mpi4py does), 0 when
// that cannot be told (a script, a static program, no program).
func linkedMPI(program string) mpilib.MPI {
	if program == "" {
		return 0
	}
	p, err := exec.LookPath(program)
	if err != nil && !strings.Contains(program, "/") {
		// a bare name in the current directory: Open MPI's mpiexec
		// runs it, so what it links still says which MPI
		if fi, serr := os.Stat(program); serr == nil && fi.Mode().IsRegular() {
			p, err = "./"+program, nil
		}
	}
	if err != nil {
		return 0
	}
	if m, err := mpilib.Detect(p); err == nil {
		return m
	}
	if m, err := mpilib.DetectPython(p); err == nil {
		return m
	}
	return 0
}

// findTools resolves a job's MPI, shim and mpiexec (see chooseMPI,
// findShim and findMPIExec).
func findTools(program, mpiFlag, shimFlag, mpiexecFlag string) (jobTools, error) {
	linked := linkedMPI(program)
	m, err := chooseLinked(program, linked, mpiFlag, shimFlag)
	if err != nil {
		return jobTools{}, &usageError{msg: err.Error()}
	}
	t := jobTools{mpi: m}
	if t.shim, err = findShim(shimFlag, m); err != nil {
		return t, err
	}
	t.mpiexec, err = findMPIExec(mpiexecFlag, m, linked)
	return t, err
}

// findMPIExec resolves --mpiexec, or picks the library's own mpiexec
// (mpiexec.mpich, mpiexec.openmpi), else mpiexec. linked is the MPI the
// program links, 0 unknown: a launcher that is the other library's is
// refused (launcherMismatch), skipped when mpidbg picks one.
func findMPIExec(flag string, m, linked mpilib.MPI) (string, error) {
	if flag != "" {
		p, err := exec.LookPath(flag)
		if err != nil {
			return "", &usageError{msg: fmt.Sprintf("--mpiexec %s: not found or not executable", flag)}
		}
		if why := launcherMismatch(p, linked); why != "" {
			return "", &usageError{msg: "--mpiexec " + flag + ": " + why}
		}
		return p, nil
	}
	var why string
	for _, name := range mpilib.MPIExecNames(m) {
		if p, err := exec.LookPath(name); err == nil {
			if why = launcherMismatch(p, linked); why == "" {
				return p, nil
			}
			why = name + ": " + why
		}
	}
	if why != "" {
		return "", &usageError{msg: why}
	}
	return "", &usageError{msg: fmt.Sprintf("mpiexec not found: install %s (apt-get install %s) or give --mpiexec PATH",
		m, mpilib.Packages(m))}
}

// launcherMismatch says why the launcher at path cannot start a program
// built with m, "" when it can, when m is 0 (not known), or when the
// launcher's name does not say whose it is (a site's own mpiexec, srun;
// PRRTE's prterun, which starts any PMIx program). A rank learns its
// place in the job from its own MPI's launcher only (Hydra's PMI, Open
// MPI's PMIx): under the other's, every rank starts alone, as rank 0 of
// a job of one.
func launcherMismatch(path string, m mpilib.MPI) string {
	f, ok := launch.KnownFlavor(path)
	if !ok || m == 0 {
		return ""
	}
	var theirs mpilib.MPI
	switch f {
	case launch.Hydra:
		theirs = mpilib.MPICH
	case launch.OpenMPI:
		theirs = mpilib.OpenMPI
	default:
		return ""
	}
	if theirs == m {
		return ""
	}
	return fmt.Sprintf("%s is %s's launcher and the program is built with %s: every rank would start alone, as rank 0 of a job of one; use %s's (%s)",
		filepath.Base(path), mpilib.Title(theirs), mpilib.Title(m), mpilib.Title(m), mpilib.MPIExecNames(m)[0])
}

// findShim resolves the shim library: --shim, $MPIDBG_SHIM, or the one
// built for m in ../lib beside the executable (lib/libmpidbg.so for
// MPICH, lib/libmpidbg-openmpi.so for Open MPI). The path returned is
// absolute: the ranks may start in another directory.
func findShim(flag string, m mpilib.MPI) (string, error) {
	var tried []string
	try := func(p, from string) (string, bool) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", false
		}
		fi, err := os.Stat(abs)
		if err == nil && fi.Mode().IsRegular() {
			return abs, true
		}
		tried = append(tried, abs+" ("+from+")")
		return "", false
	}
	name := mpilib.Shim(m)
	given := func(p, from string) (string, error) {
		p, ok := try(p, from)
		if !ok {
			return "", nil
		}
		if why := notShim(p); why != "" {
			return "", &usageError{msg: fmt.Sprintf("%s %s: %s; give mpidbg's %s (make build writes it to lib/)", from, p, why, name)}
		}
		return p, nil
	}
	switch {
	case flag != "":
		if p, err := given(flag, "--shim"); p != "" || err != nil {
			return p, err
		}
	case os.Getenv(envvar.Shim) != "":
		if p, err := given(os.Getenv(envvar.Shim), "$"+envvar.Shim); p != "" || err != nil {
			return p, err
		}
	default:
		if exe, err := os.Executable(); err == nil {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			if p, ok := try(filepath.Join(filepath.Dir(exe), "..", "lib", name), "beside mpidbg"); ok {
				return p, nil
			}
		}
	}
	msg := fmt.Sprintf("the shim %s (for %s) is missing", name, m)
	if len(tried) > 0 {
		msg += ": no file " + strings.Join(tried, ", ")
	}
	return "", &usageError{msg: msg + "; build it with 'make build' in the mpidbg source tree (with " + m.String() +
		" installed), or give --shim PATH or " + envvar.Shim}
}

// shimSymbol is a symbol only mpidbg's shim exports (shim/engine.go).
const shimSymbol = "mpidbg_go_init"

// elfMachine is the ELF machine of the 64-bit architectures mpidbg is
// built for.
var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64, "ppc64le": elf.EM_PPC64, "riscv64": elf.EM_RISCV}

// notShim says why the file at path is not a shim mpidbg could preload,
// "" when it is one: LD_PRELOAD would skip it with a warning of its own,
// or load a library that checks nothing, and the job would run unchecked.
func notShim(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		var fe *elf.FormatError
		if errors.As(err, &fe) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return "not a shared library (not an ELF file)"
		}
		return err.Error()
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return "not a shared library (an ELF " + strings.TrimPrefix(f.Type.String(), "ET_") + " file)"
	}
	if want, ok := elfMachine[runtime.GOARCH]; ok && (f.Machine != want || f.Class != elf.ELFCLASS64) {
		// the loader would skip it with a warning, and the job run unchecked
		return fmt.Sprintf("built for another machine (%s, %s; this one is %s)", f.Machine, f.Class, runtime.GOARCH)
	}
	syms, _ := f.DynamicSymbols()
	for _, s := range syms {
		if s.Name == shimSymbol && s.Section != elf.SHN_UNDEF {
			return ""
		}
	}
	return "a shared library, but not mpidbg's shim (it does not define " + shimSymbol + ")"
}

// plainError turns a usageError into its message alone, for callers
// that are not commands (the debug adapter).
func plainError(err error) error {
	var u *usageError
	if errors.As(err, &u) {
		return errors.New(u.msg)
	}
	return err
}
