package mpilib

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ErrNotPython is returned by DetectPython for a program that is not a
// Python interpreter, or one without mpi4py.
var ErrNotPython = errors.New("not a Python interpreter with mpi4py")

// ErrNoMPI4Py is returned by DetectPython, beside ErrNotPython, for an
// interpreter that ran and found no mpi4py package: a pyenv or virtual
// environment's python3 ahead of the system's on PATH.
var ErrNoMPI4Py = errors.New("no mpi4py package")

// pythonName matches the interpreters' usual names: python, python3,
// python3.11, python3.11d.
var pythonName = regexp.MustCompile(`^python[0-9.]*[a-z]?$`)

// findSpec prints the directory of the interpreter's mpi4py package,
// without importing it (importing mpi4py.MPI would initialise MPI).
const findSpec = `import importlib.util as u
s = u.find_spec("mpi4py")
print(s.submodule_search_locations[0] if s and s.submodule_search_locations else "")`

// DetectPython says which MPI library a Python interpreter's mpi4py
// links: Python programs reach MPI through mpi4py's extension module
// (mpi4py/MPI.cpython-*.so), which Detect reads like any program. The
// interpreter at path (by its name: python, python3, python3.11) is run
// once to find the package where its sys.path finds it, with the
// caller's environment (PYTHONPATH, a virtual environment); mpi4py itself
// is not imported. Whatever the script, the ranks' mpi4py is this one.
func DetectPython(path string) (MPI, error) {
	if !pythonName.MatchString(filepath.Base(path)) {
		return 0, ErrNotPython
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "-c", findSpec).Output()
	if err != nil {
		return 0, fmt.Errorf("%s: %w (%v)", path, ErrNotPython, err)
	}
	dir := strings.TrimSpace(string(out))
	if dir == "" {
		return 0, fmt.Errorf("%s: %w: %w", path, ErrNotPython, ErrNoMPI4Py)
	}
	mods, _ := filepath.Glob(filepath.Join(dir, "MPI.*.so"))
	for _, m := range mods {
		if lib, err := Detect(m); err == nil {
			return lib, nil
		}
	}
	return 0, fmt.Errorf("%s: mpi4py in %s: %w", path, dir, ErrNoMPI)
}
