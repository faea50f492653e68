package mpilib

import (
	"bufio"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// ErrNoMPI is returned by Detect for a program that links no MPI library
// it can see: a script, a static link, or an MPI loaded with dlopen.
var ErrNoMPI = errors.New("links no MPI library that mpidbg knows")

// Detect says which MPI library the ELF program at path links, by its
// dynamic dependencies (DT_NEEDED), followed through the libraries it
// needs as the dynamic loader would find them (ld.so(8): DT_RPATH or
// DT_RUNPATH, LD_LIBRARY_PATH, /etc/ld.so.conf, the default
// directories), so that a program linked to a library that links MPI is
// recognised too. It reads files only; it never runs the program.
//
// A library is MPICH's by its name libmpich.so.* (or libmpi.so.12, the
// MPICH ABI's name), Open MPI's by libmpi.so.* with libopen-pal or
// libopen-rte beside it, or by those names themselves.
func Detect(path string) (MPI, error) {
	f, err := elf.Open(path)
	if err != nil {
		return 0, fmt.Errorf("%s: not an ELF program: %w", path, err)
	}
	defer f.Close()
	d := detector{seen: map[string]bool{}, dirs: systemDirs()}
	return d.walk(f, filepath.Dir(path), 0)
}

type detector struct {
	seen map[string]bool
	dirs []string
}

const maxDepth = 4 // program -> library -> libmpi -> libopen-pal is 3

func (d *detector) walk(f *elf.File, origin string, depth int) (MPI, error) {
	needed, _ := f.ImportedLibraries()
	var ompiHint, mpiSO bool
	for _, n := range needed {
		switch {
		case strings.HasPrefix(n, "libmpich.so") || n == "libmpi.so.12":
			return MPICH, nil
		case strings.HasPrefix(n, "libopen-pal.so") || strings.HasPrefix(n, "libopen-rte.so"):
			ompiHint = true
		case strings.HasPrefix(n, "libmpi.so"):
			mpiSO = true
		}
	}
	if ompiHint && (mpiSO || depth > 0) {
		return OpenMPI, nil
	}
	if depth >= maxDepth {
		return 0, ErrNoMPI
	}
	search := append(runpaths(f, origin), d.dirs...)
	for _, n := range needed {
		if d.seen[n] || strings.HasPrefix(n, "libc.so") || strings.HasPrefix(n, "ld-linux") {
			continue
		}
		d.seen[n] = true
		for _, dir := range search {
			p := filepath.Join(dir, n)
			lf, err := elf.Open(p)
			if err != nil {
				continue
			}
			m, err := d.walk(lf, filepath.Dir(p), depth+1)
			lf.Close()
			if err == nil {
				return m, nil
			}
			break // the loader takes the first it finds
		}
	}
	return 0, ErrNoMPI
}

// runpaths is the object's DT_RPATH and DT_RUNPATH, with $ORIGIN
// expanded, then LD_LIBRARY_PATH.
func runpaths(f *elf.File, origin string) []string {
	var out []string
	for _, tag := range []elf.DynTag{elf.DT_RPATH, elf.DT_RUNPATH} {
		vals, _ := f.DynString(tag)
		for _, v := range vals {
			for _, dir := range strings.Split(v, ":") {
				dir = strings.ReplaceAll(strings.ReplaceAll(dir, "${ORIGIN}", origin), "$ORIGIN", origin)
				if dir != "" {
					out = append(out, dir)
				}
			}
		}
	}
	for _, dir := range strings.Split(os.Getenv(envvar.LibraryPath), ":") {
		if dir != "" {
			out = append(out, dir)
		}
	}
	return out
}

// systemDirs is what /etc/ld.so.conf lists (with its includes), then
// the loader's default directories.
func systemDirs() []string {
	var out []string
	seen := map[string]bool{}
	var read func(path string, depth int)
	read = func(path string, depth int) {
		if depth > 3 {
			return
		}
		fh, err := os.Open(path)
		if err != nil {
			return
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if i := strings.IndexByte(line, '#'); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			switch {
			case line == "":
			case strings.HasPrefix(line, "include "):
				pat := strings.TrimSpace(strings.TrimPrefix(line, "include "))
				if !filepath.IsAbs(pat) {
					pat = filepath.Join(filepath.Dir(path), pat)
				}
				files, _ := filepath.Glob(pat)
				for _, f := range files {
					read(f, depth+1)
				}
			case !seen[line]:
				seen[line] = true
				out = append(out, line)
			}
		}
	}
	read("/etc/ld.so.conf", 0)
	for _, dir := range []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
		"/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"} {
		if !seen[dir] {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	return out
}
