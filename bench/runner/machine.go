package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// describe prints what a reader needs to judge the numbers: the date, the
// machine and how busy it was, the MPI library and the mpidbg measured.
func describe(w io.Writer, mpidbg, mpicc, mpiexec string, rounds int, start time.Time) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "Started %s on %s.\n", start.Format("2006-01-02 15:04:05 MST"), host)
	cpu := ""
	if out, err := exec.Command("lscpu").Output(); err == nil {
		cpu = parseLscpu(string(out))
	} else {
		cpu = fmt.Sprintf("%s, %d CPUs", cpuModel(), runtime.NumCPU())
	}
	fmt.Fprintf(w, "Machine: %s; %s/%s; load average at the start: %s; %s.\n", cpu,
		runtime.GOOS, runtime.GOARCH, loadAverage(), handoffText())
	v, _ := exec.Command(mpiexec, "--version").CombinedOutput()
	fmt.Fprintf(w, "MPI: %s (%s, %s).\n", mpiVersion(string(v)), filepath.Base(mpicc), filepath.Base(mpiexec))
	fmt.Fprintf(w, "mpidbg: %s, %s; shim: %s.\n", mpidbg, commit(mpidbg), shim(mpidbg, mpiexec))
	fmt.Fprintf(w, "%d rounds; the modes of a job alternate every round; medians over the rounds, [min-max] after them.\n\n", rounds)
}

// parseLscpu condenses lscpu's output to the model, the CPU count and
// its topology, and the hypervisor if any.
func parseLscpu(out string) string {
	f := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, ":")
		k = strings.TrimSpace(k)
		if _, dup := f[k]; ok && !dup {
			f[k] = strings.TrimSpace(v)
		}
	}
	s := f["Model name"]
	if s == "" {
		s = "unknown CPU"
	}
	if n := f["CPU(s)"]; n != "" {
		s += ", " + n + " CPUs"
		if f["Socket(s)"] != "" && f["Core(s) per socket"] != "" && f["Thread(s) per core"] != "" {
			s += fmt.Sprintf(" (%s socket × %s cores × %s threads)", f["Socket(s)"], f["Core(s) per socket"], f["Thread(s) per core"])
		}
	}
	if h := f["Hypervisor vendor"]; h != "" {
		s += ", " + h + " guest"
	}
	return s
}

// mpiVersion names the MPI library from its mpiexec's --version: Open
// MPI's first line ends in its version; MPICH's Hydra has a "Version:"
// line and its configure options name the device.
func mpiVersion(out string) string {
	lines := strings.Split(out, "\n")
	if len(lines) > 0 && (strings.Contains(lines[0], "OpenRTE") || strings.Contains(lines[0], "Open MPI")) {
		f := strings.Fields(lines[0])
		if len(f) > 0 {
			return "Open MPI " + f[len(f)-1]
		}
	}
	var version, device string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "Version:"); ok && version == "" {
			version = strings.TrimSpace(v)
		}
		if _, d, ok := strings.Cut(l, "--with-device="); ok && device == "" {
			device, _, _ = strings.Cut(d, "'")
			device, _, _ = strings.Cut(device, " ")
		}
	}
	switch {
	case version != "" && device != "":
		return "MPICH " + version + " (" + device + ")"
	case version != "":
		return "MPICH " + version
	case len(lines) > 0 && strings.TrimSpace(lines[0]) != "":
		return strings.TrimSpace(lines[0])
	}
	return "unknown"
}

// root is the tree mpidbg lives in: the directory above its bin.
func root(mpidbg string) string {
	abs, err := filepath.Abs(mpidbg)
	if err != nil {
		return filepath.Dir(filepath.Dir(mpidbg))
	}
	return filepath.Dir(filepath.Dir(abs))
}

// commit names the source tree mpidbg was built from, if it is a git
// work tree, and says whether its sources carry uncommitted changes.
func commit(mpidbg string) string {
	dir := root(mpidbg)
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "not built from a git tree"
	}
	s := "commit " + strings.TrimSpace(string(out)) + " of " + dir
	dirty, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no", "--", "shim", "checks", "datatype", "wire", "internal", "run", "cmd").Output()
	if err == nil && len(strings.TrimSpace(string(dirty))) > 0 {
		s += " with uncommitted changes to its sources"
	}
	return s
}

// shim is the library mpidbg run preloads for mpiexec's MPI: $MPIDBG_SHIM
// if set, else the one in lib beside mpidbg's bin (run --help, --shim).
func shim(mpidbg, mpiexec string) string {
	if p := os.Getenv(envvar.Shim); p != "" {
		return p + " (from $" + envvar.Shim + ")"
	}
	name := "libmpidbg.so"
	if strings.Contains(filepath.Base(mpiexec), "openmpi") {
		name = "libmpidbg-openmpi.so"
	}
	p := filepath.Join(root(mpidbg), "lib", name)
	fi, err := os.Stat(p)
	if err != nil {
		return p + " (missing)"
	}
	return p + ", built " + fi.ModTime().Format("2006-01-02 15:04:05")
}

// loadAverage is the 1, 5 and 15 minute load average.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpuModel is /proc/cpuinfo's model name, for when lscpu is missing.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return "unknown CPU"
}
