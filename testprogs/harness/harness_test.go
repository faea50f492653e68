package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/internal/mpilib"
)

var (
	timeout = flag.Duration("harness.timeout", 60*time.Second, "time limit of one program run; the job is killed after it")
	only    = flag.String("harness.dirs", "", "run only the programs of these `folders` of testprogs, comma-separated (TestPlanted, TestNative; default: all)")
)

// progDirs are the program folders, children of testprogs.
var progDirs = []string{"local", "cross", "race", "rma", "nasty"}

const (
	progRoot = ".." // testprogs: the program folders are its children
	rootDir  = "../.."
	minRanks = 2
	maxRanks = 8
)

// slots runs at most two programs (or compilers) at once: 2 cores.
var slots = make(chan struct{}, 2)

func acquire() func() {
	slots <- struct{}{}
	return func() { <-slots }
}

// buildDir holds the executables, shared by the tests of one go test run.
var buildDir string

func TestMain(m *testing.M) {
	flag.Parse()
	testenv.OpenMPI()
	dir, err := os.MkdirTemp("", "mpidbg-harness-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func required(env string) bool {
	v := os.Getenv(env)
	return v != "" && v != "0"
}

// ---------------------------------------------------------------- programs

type program struct {
	name        string // file name without .c: the subtest's name (unique across folders)
	file        string // file name
	dir         string // the folder under testprogs: local, cross
	path        string // absolute path of the source
	ranks       int
	flags       []string         // extra `mpidbg run` flags from "// flags:"
	nativeHangs bool             // "// native: hangs": the program deadlocks without mpidbg
	mpiVersion  int              // "// mpi: 4": needs an MPI library of that MPI version or later
	wants       map[int][]string // line -> wanted ids
	// Annotations for one MPI library only, by its name (mpich, openmpi):
	// "// want[openmpi] "ID"" and "// native[openmpi]: hangs", where what
	// an erroneous program does next depends on the library (forMPI).
	wantsFor       map[string]map[int][]string
	relatedFor     map[string]map[int][]string
	nativeHangsFor map[string]bool
	// "// native[openmpi]: crashes": an erroneous program the library
	// itself kills (Open MPI follows a bad handle's pointer); natively it
	// must then fail, under mpidbg it must not (the shim refuses the call)
	nativeCrashesFor map[string]bool
	nativeCrashes    bool // set by forMPI
	// "// skip[openmpi]: why": not run with that library, for the reason
	// given (the outcome depends on where malloc put a buffer, say)
	skipFor map[string]string
	related map[int][]string // line -> ids whose finding must name this line as a related location
	ok      bool             // ok_*.c
	usesRMA bool             // calls MPI_Win_*: an ok_ program runs a second time with --nasty
}

// forMPI is p as the tests with one MPI library see it: its
// annotations for every library and those for that one.
func (p program) forMPI(name string) program {
	q := p
	q.wants = map[int][]string{}
	for l, ids := range p.wants {
		q.wants[l] = slices.Clone(ids)
	}
	for l, ids := range p.wantsFor[name] {
		q.wants[l] = append(q.wants[l], ids...)
	}
	q.related = map[int][]string{}
	for l, ids := range p.related {
		q.related[l] = slices.Clone(ids)
	}
	for l, ids := range p.relatedFor[name] {
		q.related[l] = append(q.related[l], ids...)
	}
	q.nativeHangs = p.nativeHangs || p.nativeHangsFor[name]
	q.nativeCrashes = p.nativeCrashesFor[name]
	return q
}

// knownMPI says whether name is a library's name as the subtests and
// annotations spell it (mpilib's String: mpich, openmpi).
func knownMPI(name string) bool {
	return slices.ContainsFunc(mpilib.All, func(m mpilib.MPI) bool { return m.String() == name })
}

// deadlocks reports whether p wants a deadlock finding: mpidbg then ends
// the job itself, so its exit status says nothing.
func (p program) deadlocks() bool {
	for _, ids := range p.wants {
		if slices.Contains(ids, "deadlock") || slices.Contains(ids, "potential-deadlock") {
			return true
		}
	}
	return false
}

var (
	ranksRe   = regexp.MustCompile(`^//\s*ranks:\s*(\d+)\s*$`)
	flagsRe   = regexp.MustCompile(`^//\s*flags:(.*)$`)
	nativeRe  = regexp.MustCompile(`^//\s*native(?:\[([a-z]+)\])?:\s*(.*)$`)
	mpiRe     = regexp.MustCompile(`^//\s*mpi:\s*(\d+)\b`) // then, optionally, why
	skipRe    = regexp.MustCompile(`^//\s*skip\[([a-z]+)\]:\s*(.*)$`)
	wantRe    = regexp.MustCompile(`//\s*(?:want(?:\[[a-z]+\])?\s+(?:"[^"]*"\s*)+)+$`)
	wantGroup = regexp.MustCompile(`want(?:\[([a-z]+)\])?\s+((?:"[^"]*"\s*)+)`)
	wantMark  = regexp.MustCompile(`//\s*want\b`)
	relRe     = regexp.MustCompile(`//\s*related(?:\[([a-z]+)\])?\s+((?:"[^"]*"\s*)+)$`)
	relMark   = regexp.MustCompile(`//\s*related\b`)
	quotedRe  = regexp.MustCompile(`"([^"]*)"`)
	catalogID = regexp.MustCompile(`\bID:\s*"([^"]+)"`)
)

// parseProgram reads a program's header (the comment lines before its
// first line of code: "// ranks: N", and optionally "// flags: ..." and
// "// native: hangs") and its annotations.
func parseProgram(path string) (program, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return program{}, err
	}
	file := filepath.Base(abs)
	p := program{
		name:    strings.TrimSuffix(file, ".c"),
		file:    file,
		dir:     filepath.Base(filepath.Dir(abs)),
		path:    abs,
		wants:   map[int][]string{},
		related: map[int][]string{},

		wantsFor:       map[string]map[int][]string{},
		relatedFor:     map[string]map[int][]string{},
		nativeHangsFor: map[string]bool{},

		nativeCrashesFor: map[string]bool{},
		skipFor:          map[string]string{},
		ok:               strings.HasPrefix(file, "ok_"),
	}
	if !p.ok && !strings.HasPrefix(file, "bug_") {
		return p, fmt.Errorf("%s: a program is named ok_*.c or bug_*.c", file)
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return p, err
	}
	p.usesRMA = bytes.Contains(src, []byte("MPI_Win_"))
	header, seenFlags, seenNative := true, false, false
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		if header && trimmed != "" && !strings.HasPrefix(trimmed, "//") {
			header = false
		}
		if header {
			switch m := ranksRe.FindStringSubmatch(trimmed); {
			case m != nil && p.ranks != 0:
				return p, fmt.Errorf("%s:%d: a second \"// ranks:\" line", file, n)
			case m != nil:
				p.ranks, _ = strconv.Atoi(m[1])
			}
			if m := flagsRe.FindStringSubmatch(trimmed); m != nil {
				if seenFlags {
					return p, fmt.Errorf("%s:%d: a second \"// flags:\" line", file, n)
				}
				seenFlags = true
				p.flags = strings.Fields(m[1])
				if len(p.flags) == 0 {
					return p, fmt.Errorf("%s:%d: \"// flags:\" names no flag", file, n)
				}
				for _, f := range p.flags {
					if !strings.HasPrefix(f, "--") {
						return p, fmt.Errorf("%s:%d: flags: %q is not a --flag (write --name=value as one word)", file, n, f)
					}
				}
			}
			if m := skipRe.FindStringSubmatch(trimmed); m != nil {
				switch {
				case !knownMPI(m[1]):
					return p, fmt.Errorf("%s:%d: skip[%s]: not an MPI library the tests know", file, n, m[1])
				case strings.TrimSpace(m[2]) == "":
					return p, fmt.Errorf("%s:%d: skip[%s]: say why", file, n, m[1])
				}
				p.skipFor[m[1]] = strings.TrimSpace(m[2])
			}
			if m := mpiRe.FindStringSubmatch(trimmed); m != nil {
				if p.mpiVersion != 0 {
					return p, fmt.Errorf("%s:%d: a second \"// mpi:\" line", file, n)
				}
				p.mpiVersion, _ = strconv.Atoi(m[1])
			}
			if m := nativeRe.FindStringSubmatch(trimmed); m != nil {
				if m[1] == "" && seenNative {
					return p, fmt.Errorf("%s:%d: a second \"// native:\" line", file, n)
				}
				prop := strings.TrimSpace(m[2])
				if prop != "hangs" && (prop != "crashes" || m[1] == "") {
					return p, fmt.Errorf("%s:%d: native: %q, the properties are \"hangs\" and, for one MPI, \"crashes\"", file, n, prop)
				}
				switch {
				case prop == "crashes" && knownMPI(m[1]):
					p.nativeCrashesFor[m[1]] = true
				case m[1] == "":
					seenNative = true
					p.nativeHangs = true
				case !knownMPI(m[1]):
					return p, fmt.Errorf("%s:%d: native[%s]: not an MPI library the tests know", file, n, m[1])
				default:
					p.nativeHangsFor[m[1]] = true
				}
			}
		}
		if strings.HasPrefix(trimmed, "//") {
			continue // comments may talk about annotations; only code lines carry them
		}
		if relMark.MatchString(line) {
			m := relRe.FindStringSubmatch(line)
			if m == nil {
				return p, fmt.Errorf("%s:%d: malformed annotation, want // related[MPI] \"ID\" [\"ID\"...] at the end of the line", file, n)
			}
			related := p.related
			if m[1] != "" {
				if !knownMPI(m[1]) {
					return p, fmt.Errorf("%s:%d: related[%s]: not an MPI library the tests know", file, n, m[1])
				}
				if p.relatedFor[m[1]] == nil {
					p.relatedFor[m[1]] = map[int][]string{}
				}
				related = p.relatedFor[m[1]]
			}
			for _, q := range quotedRe.FindAllStringSubmatch(m[2], -1) {
				related[n] = append(related[n], q[1])
			}
			continue
		}
		if !wantMark.MatchString(line) {
			continue
		}
		m := wantRe.FindString(line)
		if m == "" {
			return p, fmt.Errorf("%s:%d: malformed annotation, want // want[MPI] \"ID\" [\"ID\"...] at the end of the line", file, n)
		}
		for _, g := range wantGroup.FindAllStringSubmatch(m, -1) {
			wants := p.wants
			if g[1] != "" {
				if !knownMPI(g[1]) {
					return p, fmt.Errorf("%s:%d: want[%s]: not an MPI library the tests know", file, n, g[1])
				}
				if p.wantsFor[g[1]] == nil {
					p.wantsFor[g[1]] = map[int][]string{}
				}
				wants = p.wantsFor[g[1]]
			}
			for _, q := range quotedRe.FindAllStringSubmatch(g[2], -1) {
				wants[n] = append(wants[n], q[1])
			}
		}
	}
	switch {
	case p.ranks == 0:
		return p, fmt.Errorf("%s: no \"// ranks: N\" line in the header comment", file)
	case p.ranks < minRanks || p.ranks > maxRanks:
		return p, fmt.Errorf("%s: ranks: %d, want %d to %d", file, p.ranks, minRanks, maxRanks)
	case p.ok && (len(p.wants) > 0 || len(p.related) > 0):
		return p, fmt.Errorf("%s: an ok_ program wants no findings", file)
	case p.ok && (len(p.wantsFor) > 0 || len(p.relatedFor) > 0):
		return p, fmt.Errorf("%s: an ok_ program wants no findings", file)
	case !p.ok && len(p.wants) == 0 && len(p.wantsFor) == 0:
		return p, fmt.Errorf("%s: a bug_ program has no // want annotation", file)
	case p.ok && (p.nativeHangs || len(p.nativeHangsFor) > 0 || len(p.nativeCrashesFor) > 0):
		return p, fmt.Errorf("%s: an ok_ program cannot hang natively", file)
	}
	return p, nil
}

// chosenDirs returns the folders named by -harness.dirs, else all.
func chosenDirs(t *testing.T) []string {
	t.Helper()
	if *only == "" {
		return progDirs
	}
	var out []string
	for _, d := range strings.Split(*only, ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		if !slices.Contains(progDirs, d) {
			t.Fatalf("-harness.dirs: no program folder %q (have %s)", d, strings.Join(progDirs, ", "))
		}
		out = append(out, d)
	}
	return out
}

// loadPrograms parses the programs of the folders dirs (children of
// testprogs); file names must be unique across them, since they name the
// subtests.
func loadPrograms(t *testing.T, dirs []string) []program {
	t.Helper()
	var progs []program
	where := map[string]string{} // file name -> folder
	for _, d := range dirs {
		dir := filepath.Join(progRoot, d)
		paths, err := filepath.Glob(filepath.Join(dir, "*.c"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no programs in %s (%v)", dir, err)
		}
		sort.Strings(paths)
		for _, path := range paths {
			p, err := parseProgram(path)
			if err != nil {
				t.Error(err)
				continue
			}
			if other, dup := where[p.file]; dup {
				t.Errorf("%s: in both %s and %s; file names must be unique across folders", p.file, other, p.dir)
				continue
			}
			where[p.file] = p.dir
			progs = append(progs, p)
		}
	}
	return progs
}

// ---------------------------------------------------------------- tools

// mpiTools is one MPI library as the tests use it.
type mpiTools struct {
	name     string // mpich, openmpi: the subtests' first level
	cc, exec string // its compiler wrapper and mpiexec
	shim     string // the shim built for it
	version  int    // MPI_VERSION of its mpi.h
}

// shimEnv names the variable that overrides lib/ for m's shim:
// MPIDBG_SHIM for MPICH (as for mpidbg run), MPIDBG_SHIM_OPENMPI.
func shimEnv(m mpilib.MPI) string {
	if m == mpilib.MPICH {
		return "MPIDBG_SHIM"
	}
	return "MPIDBG_SHIM_" + strings.ToUpper(m.String())
}

var (
	mpisOnce    sync.Once
	mpis        []mpiTools
	missingMPI  []string // libraries not installed, and why
	missingShim []string // shims not built, and why
)

// needMPIs returns the MPI libraries to test with (mpilib.All), each
// with its shim. A library that is missing fails the test under
// MPIDBG_REQUIRE_MPI, a shim that is missing under MPIDBG_REQUIRE_SHIM
// (make test sets both: both libraries are installed there); otherwise
// they are left out, with the reason logged. With none at all the test
// skips.
func needMPIs(t *testing.T) []mpiTools {
	t.Helper()
	mpisOnce.Do(func() {
		for _, lib := range mpilib.All {
			m := mpiTools{name: lib.String()}
			var err error
			if m.cc, err = exec.LookPath(mpilib.Compiler(lib)); err == nil {
				if m.exec, err = exec.LookPath(mpilib.MPIExecNames(lib)[0]); err == nil {
					m.version, err = mpiVersion(m.cc)
				}
			}
			if err != nil {
				missingMPI = append(missingMPI, fmt.Sprintf("%s: %v (apt-get install %s)", m.name, err, mpilib.Packages(lib)))
				continue
			}
			if m.shim, err = shimFor(shimEnv(lib), mpilib.Shim(lib)); err != nil {
				missingShim = append(missingShim, fmt.Sprintf("%s: the shim: %v (make build)", m.name, err))
				continue
			}
			mpis = append(mpis, m)
		}
	})
	if len(missingMPI) > 0 && required("MPIDBG_REQUIRE_MPI") {
		t.Fatalf("MPIDBG_REQUIRE_MPI is set but:\n%s", strings.Join(missingMPI, "\n"))
	}
	if len(missingShim) > 0 && required("MPIDBG_REQUIRE_SHIM") {
		t.Fatalf("MPIDBG_REQUIRE_SHIM is set but:\n%s", strings.Join(missingShim, "\n"))
	}
	if left := append(slices.Clip(missingMPI), missingShim...); len(left) > 0 {
		t.Logf("left out:\n%s", strings.Join(left, "\n"))
	}
	if len(mpis) == 0 {
		t.Skip("no MPI library with its shim; set MPIDBG_REQUIRE_MPI=1 and MPIDBG_REQUIRE_SHIM=1 to fail instead")
	}
	return mpis
}

func shimFor(env, name string) (string, error) {
	shim := os.Getenv(env)
	if shim == "" {
		shim = filepath.Join(rootDir, "lib", name)
	}
	abs, err := filepath.Abs(shim)
	if err == nil {
		_, err = os.Stat(abs)
	}
	return abs, err
}

// mpiVersion is the MPI_VERSION the compiler wrapper's mpi.h defines.
func mpiVersion(cc string) (int, error) {
	cmd := exec.Command(cc, "-E", "-dM", "-x", "c", "-")
	cmd.Stdin = strings.NewReader("#include <mpi.h>\n")
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%s -E: %v", cc, err)
	}
	m := regexp.MustCompile(`(?m)^#define MPI_VERSION\s+(\d+)`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s: mpi.h defines no MPI_VERSION", cc)
	}
	return strconv.Atoi(string(m[1]))
}

// skipForMPI skips p on a library older than the MPI version it needs
// ("// mpi: 4": it calls functions MPI-4.0 added, which Open MPI 4.1, an
// MPI-3.1 library, does not have), and where "// skip[MPI]:" says so.
func skipForMPI(t *testing.T, tools mpiTools, p program) {
	t.Helper()
	if why := p.skipFor[tools.name]; why != "" {
		t.Skipf("%s: not run with %s: %s", p.file, tools.name, why)
	}
	if p.mpiVersion > tools.version {
		t.Skipf("%s needs MPI-%d; %s is MPI-%d", p.file, p.mpiVersion, tools.name, tools.version)
	}
}

var (
	mpidbgOnce sync.Once
	mpidbgBin  string
	mpidbgErr  error
)

// needMpidbg returns bin/mpidbg, built with go build when it is missing or
// older than a Go source file of the tree.
func needMpidbg(t *testing.T) string {
	t.Helper()
	mpidbgOnce.Do(func() { mpidbgBin, mpidbgErr = buildMpidbg() })
	if mpidbgErr != nil {
		t.Fatal(mpidbgErr)
	}
	return mpidbgBin
}

func buildMpidbg() (string, error) {
	root, err := filepath.Abs(rootDir)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, "bin", "mpidbg")
	if fi, err := os.Stat(bin); err == nil && !newerSource(root, fi.ModTime()) {
		return bin, nil
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = "/usr/local/go/bin/go"
	}
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/mpidbg")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building bin/mpidbg: %v\n%s", err, out)
	}
	return bin, nil
}

// newerSource reports whether a non-test Go file of the module (outside
// testprogs and extensions) is newer than t.
func newerSource(root string, t time.Time) bool {
	newer := false
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if newer {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testprogs", "extensions", "node_modules", "bin", "lib", "testdata":
				return filepath.SkipDir
			}
			return nil
		}
		if n := d.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") || n == "go.mod" || n == "go.sum" {
			if fi, err := d.Info(); err == nil && fi.ModTime().After(t) {
				newer = true
			}
		}
		return nil
	})
	return newer
}

// ---------------------------------------------------------------- building

type built struct {
	once sync.Once
	exe  string
	err  error
}

var builds sync.Map // program path -> *built

// build compiles p once per test binary; a compiler warning is an error.
func build(t *testing.T, tools mpiTools, p program) string {
	t.Helper()
	v, _ := builds.LoadOrStore(tools.name+"/"+p.path, &built{})
	b := v.(*built)
	b.once.Do(func() {
		dir := filepath.Join(buildDir, tools.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.err = err
			return
		}
		exe := filepath.Join(dir, p.name)
		out, err := exec.Command(tools.cc, "-std=c99", "-g", "-O0", "-Wall", "-Wextra", "-o", exe, p.path).CombinedOutput()
		switch {
		case err != nil:
			b.err = fmt.Errorf("%s: compile: %v\n%s", p.file, err, out)
		case len(bytes.TrimSpace(out)) > 0:
			b.err = fmt.Errorf("%s: compiler warnings:\n%s", p.file, out)
		default:
			b.exe = exe
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.exe
}

// ---------------------------------------------------------------- running

type runResult struct {
	stdout, stderr []byte
	exit           int // -1: killed or not started
	timedOut       bool
}

// run starts argv in dir, in its own process group, and kills the whole
// job when the time limit passes: SIGTERM to the group (mpiexec passes it
// on to the ranks, which hydra starts in sessions of their own), then,
// after a grace period, SIGKILL to the group and to every descendant
// seen.
func run(dir string, argv ...string) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var killed sync.WaitGroup
	cmd.Cancel = func() error {
		pid := cmd.Process.Pid
		family := descendants(pid)
		syscall.Kill(-pid, syscall.SIGTERM)
		killed.Add(1)
		go func() {
			defer killed.Done()
			for i := 0; i < 50 && (alive(-pid) || slices.ContainsFunc(family, alive)); i++ {
				time.Sleep(100 * time.Millisecond)
			}
			family = append(family, descendants(pid)...)
			syscall.Kill(-pid, syscall.SIGKILL)
			for _, p := range family {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}()
		return nil
	}
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	res := runResult{stdout: stdout.Bytes(), stderr: stderr.Bytes(), exit: -1, timedOut: ctx.Err() != nil}
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.exit = 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		res.exit = ee.ExitCode()
	}
	if res.timedOut {
		killed.Wait()
	}
	return res
}

// alive reports whether a process (or, for a negative pid, a process
// group) still exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
			if _, ok := parent[q]; !ok {
				break
			}
		}
	}
	return out
}

func tail(b []byte, n int) string {
	s := strings.TrimRight(string(b), "\n")
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	if s == "" {
		return "(empty)"
	}
	return s
}

// ---------------------------------------------------------------- findings

type location struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
}

type finding struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Severity string   `json:"severity"`
	Message  string   `json:"message"`
	Ranks    []int    `json:"ranks"`
	Call     string   `json:"call"`
	Location location `json:"location"`
	Path     string   `json:"path"`
	Related  []struct {
		Location location `json:"location"`
	} `json:"related"`
}

type jsonReport struct {
	Version  int       `json:"version"`
	Findings []finding `json:"findings"`
}

func (f finding) String() string {
	loc := "unknown location"
	if f.Location.File != "" {
		loc = fmt.Sprintf("%s:%d", filepath.Base(f.Location.File), f.Location.Line)
	} else if f.Location.Function != "" {
		loc = "in " + f.Location.Function
	}
	return fmt.Sprintf("%s: %q (%s, ranks %v, %s): %s", loc, f.ID, f.Severity, f.Ranks, f.Call, f.Message)
}

// compare checks the findings of p against its annotations and returns
// the problems, one per line.
func compare(p program, fs []finding) []string {
	var problems []string
	type key struct {
		line int
		id   string
	}
	matched := map[key]bool{}
	relMatched := map[key]bool{}
	inProg := func(file string) bool { return file == p.file || strings.HasSuffix(file, "/"+p.file) }
	for _, f := range fs {
		if inProg(f.Location.File) && slices.Contains(p.wants[f.Location.Line], f.ID) {
			matched[key{f.Location.Line, f.ID}] = true
			for _, r := range f.Related {
				if inProg(r.Location.File) {
					relMatched[key{r.Location.Line, f.ID}] = true
				}
			}
			if bad := badRanks(f.Ranks, p.ranks); bad != "" {
				problems = append(problems, fmt.Sprintf("bad ranks  %s: %s", f, bad))
			}
			continue
		}
		if p.ok || f.Severity == string(checks.SevError) || f.Severity == string(checks.SevWarning) {
			problems = append(problems, "unexpected "+f.String())
		}
	}
	for _, l := range sortedLines(p.wants) {
		for _, id := range p.wants[l] {
			if !matched[key{l, id}] {
				problems = append(problems, fmt.Sprintf("missing    %s:%d: want %q", p.file, l, id))
			}
		}
	}
	for _, l := range sortedLines(p.related) {
		for _, id := range p.related[l] {
			if !relMatched[key{l, id}] {
				problems = append(problems, fmt.Sprintf("no related %s:%d: want a %q finding that names this line", p.file, l, id))
			}
		}
	}
	return problems
}

func sortedLines(m map[int][]string) []int {
	var lines []int
	for l := range m {
		lines = append(lines, l)
	}
	sort.Ints(lines)
	return lines
}

func badRanks(ranks []int, n int) string {
	if len(ranks) == 0 {
		return "no ranks"
	}
	for _, r := range ranks {
		if r < 0 || r >= n {
			return fmt.Sprintf("rank %d outside 0..%d", r, n-1)
		}
	}
	return ""
}

// ---------------------------------------------------------------- tests

// TestPlanted runs every program under mpidbg and compares its findings
// with the program's annotations.
func TestPlanted(t *testing.T) {
	progs := loadPrograms(t, chosenDirs(t))
	bin := needMpidbg(t)
	for _, tools := range needMPIs(t) {
		t.Run(tools.name, func(t *testing.T) {
			for _, p := range progs {
				runs := []struct {
					name  string
					flags []string
				}{{p.name, p.flags}}
				if p.ok && p.usesRMA {
					// correct one-sided programs must stay clean when the forcing
					// mode holds, splits and reorders their operations
					runs = append(runs, struct {
						name  string
						flags []string
					}{p.name + "_nasty", append(slices.Clip(p.flags), nastyFlags...)})
				}
				for _, r := range runs {
					t.Run(r.name, func(t *testing.T) { testPlanted(t, tools, bin, p, r.flags) })
				}
			}
		})
	}
}

// nastyFlags are the flags of the second run of correct one-sided
// programs: a fixed seed, so that a failure replays.
var nastyFlags = []string{"--nasty", "--nasty-seed=1"}

// testPlanted runs one program under mpidbg with flags and compares its
// findings with its annotations.
func testPlanted(t *testing.T, tools mpiTools, bin string, p program, flags []string) {
	t.Parallel()
	skipForMPI(t, tools, p)
	p = p.forMPI(tools.name)
	release := acquire()
	defer release()
	exe := build(t, tools, p)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.json")
	argv := []string{bin, "run", "-n", strconv.Itoa(p.ranks), "--mpi", tools.name, "--mpiexec", tools.exec,
		"--shim", tools.shim, "--json", out}
	argv = append(append(argv, flags...), exe)
	res := run(dir, argv...)
	details := func() string {
		return fmt.Sprintf("%s\nmpidbg exit status %d\n--- program output:\n%s\n--- mpidbg report and errors:\n%s",
			strings.Join(argv, " "), res.exit, tail(res.stdout, 2000), tail(res.stderr, 6000))
	}
	if res.timedOut {
		t.Fatalf("%s: timed out after %v (hang?) and was killed\n%s", p.file, *timeout, details())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: no JSON report: %v\n%s", p.file, err, details())
	}
	var rep jsonReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: bad JSON report: %v\n%s", p.file, err, data)
	}
	if rep.Version != 1 {
		t.Errorf("%s: report version %d, want 1", p.file, rep.Version)
	}
	problems := compare(p, rep.Findings)
	switch {
	case p.ok && res.exit != 0:
		problems = append(problems, fmt.Sprintf("exit status %d under mpidbg, want 0", res.exit))
	case p.ok && string(res.stdout) != p.name+": OK\n":
		problems = append(problems, fmt.Sprintf("program output %q, want %q", res.stdout, p.name+": OK\n"))
	case !p.ok && p.deadlocks():
		// mpidbg ended the job after reporting the deadlock: any
		// exit status, as long as it ended by itself (not timed out)
	case !p.ok && res.exit != 0 && res.exit != 1:
		problems = append(problems, fmt.Sprintf("exit status %d under mpidbg, want 0 or 1 (a rank failed?)", res.exit))
	}
	for _, f := range rep.Findings {
		t.Logf("found %s", f) // shown with -v
	}
	if len(problems) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: got/want mismatch\n", p.file)
		for _, pr := range problems {
			fmt.Fprintf(&b, "  %s\n", pr)
		}
		fmt.Fprintf(&b, "all findings (%d):\n", len(rep.Findings))
		for _, f := range rep.Findings {
			fmt.Fprintf(&b, "  %s\n", f)
		}
		b.WriteString(details())
		t.Error(b.String())
	}
}

// ucxLogLine is a line UCX (under MPICH) logs on standard output, such as
// the warning for a message still unmatched at MPI_Finalize that a
// lost-message bug leaves:
//
//	[1795358518.709923] [vm:32167:0]       tag_match.c:62   UCX  WARN  unexpected tag-receive descriptor 0x563c9bb7e140 was not matched
var ucxLogLine = regexp.MustCompile(`(?m)^\[\d+\.\d+\] \[[^\]]*\]\s+\S+\s+UCX\s+\w+ .*\n?`)

// TestNative runs every program without mpidbg: it must exit 0, an ok_
// program must print exactly its OK line, and a bug program nothing but
// UCX's own log lines. A program declared "// native: hangs" is built but
// not run.
func TestNative(t *testing.T) {
	progs := loadPrograms(t, chosenDirs(t))
	for _, tools := range needMPIs(t) {
		t.Run(tools.name, func(t *testing.T) { testNative(t, tools, progs) })
	}
}

func testNative(t *testing.T, tools mpiTools, progs []program) {
	for _, p := range progs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			skipForMPI(t, tools, p)
			p := p.forMPI(tools.name)
			release := acquire()
			defer release()
			exe := build(t, tools, p)
			if p.nativeHangs {
				t.Skipf("%s: declared \"// native: hangs\": it deadlocks without mpidbg", p.file)
			}
			res := run(filepath.Dir(exe), tools.exec, "-n", strconv.Itoa(p.ranks), exe)
			want, got := "", string(res.stdout)
			if p.ok {
				want = p.name + ": OK\n"
			} else {
				got = ucxLogLine.ReplaceAllString(got, "")
			}
			switch {
			case res.timedOut:
				t.Errorf("%s: timed out after %v natively (hang?)", p.file, *timeout)
			case p.nativeCrashes:
				if res.exit == 0 {
					t.Errorf("%s: declared \"// native[%s]: crashes\" but exited 0", p.file, tools.name)
				}
			case res.exit != 0:
				t.Errorf("%s: exit status %d natively, want 0\nstdout:\n%s\nstderr:\n%s", p.file, res.exit, tail(res.stdout, 2000), tail(res.stderr, 4000))
			case got != want:
				t.Errorf("%s: output %q natively, want %q\nstderr:\n%s", p.file, got, want, tail(res.stderr, 4000))
			}
		})
	}
}

// catalogues are the files of package checks whose finding ids need a
// planted bug.
var catalogues = []string{"catalogue_local.go", "catalogue_cross.go", "catalogue_race.go"}

// TestCoverage: every finding id of the catalogues has a planted bug, and
// every annotation names a catalogued id.
func TestCoverage(t *testing.T) {
	progs := loadPrograms(t, progDirs)
	for _, lib := range mpilib.All {
		// every MPI library needs a planted bug per id: an annotation for
		// one library only does not cover the other, nor does a program not
		// run with it: skip[MPI], or "// mpi: N" (which libraries are new
		// enough is known only when the tests run, so such a program
		// covers none)
		wanted := map[string][]string{} // id -> programs
		for _, p := range progs {
			if p.skipFor[lib.String()] != "" || p.mpiVersion > 0 {
				continue
			}
			for l, list := range p.forMPI(lib.String()).wants {
				for _, id := range list {
					if _, ok := checks.Lookup(id); !ok {
						t.Errorf("%s:%d: want %q: no such finding id in the catalogue", p.file, l, id)
					}
					if !slices.Contains(wanted[id], p.file) {
						wanted[id] = append(wanted[id], p.file)
					}
				}
			}
		}
		for _, cat := range catalogues {
			src, err := os.ReadFile(filepath.Join(rootDir, "checks", cat))
			if err != nil {
				t.Fatal(err)
			}
			ids := catalogID.FindAllStringSubmatch(string(src), -1)
			if len(ids) == 0 {
				t.Fatalf("no ids found in checks/%s", cat)
			}
			for _, m := range ids {
				id := m[1]
				if len(wanted[id]) == 0 {
					t.Errorf("%s: finding id %q (checks/%s) has no planted bug in testprogs/{%s}", lib, id, cat, strings.Join(progDirs, ","))
					continue
				}
				sort.Strings(wanted[id])
				t.Logf("%s %-24s %s", lib, id, strings.Join(wanted[id], " "))
			}
		}
	}
}
