// Reading a program: its header lines and its // want and // related annotations.

package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/mpilib"
)

type program struct {
	name        string // file name without .c: the subtest's name (unique across folders)
	file        string // file name
	dir         string // the folder under testprogs: local, cross
	path        string // absolute path of the source
	ranks       int
	flags       []string          // extra `mpidbg run` flags from "// flags:"
	cflags      []string          // extra compiler flags from "// cflags:" (allowedCflags)
	runs        int               // "// runs: 20": TestPlanted runs it that many times (default 1)
	nativeHangs bool              // "// native: hangs": the program deadlocks without mpidbg
	mpiVersion  int               // "// mpi: 4": needs an MPI library of that MPI version or later
	wants       map[int][]string  // line -> wanted ids
	msgs        map[int][]wantMsg // line -> messages some finding wanted there must match
	// Annotations for one MPI library only, by its name (mpich, openmpi):
	// "// want[openmpi] "ID"" and "// native[openmpi]: hangs", where what
	// an erroneous program does next depends on the library (forMPI).
	wantsFor       map[string]map[int][]string
	msgsFor        map[string]map[int][]wantMsg
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

// wantMsg is a message regexp of a want annotation: `// want "ID"
// "REGEXP"` asks that a finding ID at the line have a message REGEXP
// matches.
type wantMsg struct {
	id string
	re *regexp.Regexp
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
	q.msgs = map[int][]wantMsg{}
	for l, ms := range p.msgs {
		q.msgs[l] = slices.Clone(ms)
	}
	for l, ms := range p.msgsFor[name] {
		q.msgs[l] = append(q.msgs[l], ms...)
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
	cflagsRe  = regexp.MustCompile(`^//\s*cflags:(.*)$`)
	runsRe    = regexp.MustCompile(`^//\s*runs:(.*)$`)
	wantRe    = regexp.MustCompile(`//\s*(?:want(?:\[[a-z]+\])?\s+(?:"[^"]*"\s*)+)+$`)
	wantGroup = regexp.MustCompile(`want(?:\[([a-z]+)\])?\s+((?:"[^"]*"\s*)+)`)
	wantMark  = regexp.MustCompile(`//\s*want\b`)
	relRe     = regexp.MustCompile(`//\s*related(?:\[([a-z]+)\])?\s+((?:"[^"]*"\s*)+)$`)
	relMark   = regexp.MustCompile(`//\s*related\b`)
	quotedRe  = regexp.MustCompile(`"([^"]*)"`)
	idRe      = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
)

// allowedCflags are the compiler flags a "// cflags:" line may add: the
// threading models of testprogs/threads (OpenMP, POSIX threads) and the
// math library. Nothing that changes warnings or optimisation: every
// program is built alike.
var allowedCflags = []string{"-fopenmp", "-pthread", "-lm"}

// maxRuns bounds "// runs: N": every run is a whole mpidbg job, and the
// suite must stay short.
const maxRuns = 50

// parseProgram reads a program's header (the comment lines before its
// first line of code: "// ranks: N", and optionally "// flags: ...",
// "// cflags: ...", "// runs: N" and "// native: hangs") and its
// annotations.
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
		msgs:    map[int][]wantMsg{},
		related: map[int][]string{},

		wantsFor:       map[string]map[int][]string{},
		msgsFor:        map[string]map[int][]wantMsg{},
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
	header, seenFlags, seenCflags, seenNative := true, false, false, false
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
			if m := cflagsRe.FindStringSubmatch(trimmed); m != nil {
				if seenCflags {
					return p, fmt.Errorf("%s:%d: a second \"// cflags:\" line", file, n)
				}
				seenCflags = true
				p.cflags = strings.Fields(m[1])
				if len(p.cflags) == 0 {
					return p, fmt.Errorf("%s:%d: \"// cflags:\" names no flag", file, n)
				}
				for _, f := range p.cflags {
					if !slices.Contains(allowedCflags, f) {
						return p, fmt.Errorf("%s:%d: cflags: %q is not allowed (allowed: %s)", file, n, f, strings.Join(allowedCflags, " "))
					}
				}
			}
			if m := runsRe.FindStringSubmatch(trimmed); m != nil {
				if p.runs != 0 {
					return p, fmt.Errorf("%s:%d: a second \"// runs:\" line", file, n)
				}
				r, err := strconv.Atoi(strings.TrimSpace(m[1]))
				if err != nil || r < 1 || r > maxRuns {
					return p, fmt.Errorf("%s:%d: runs: %q, want a number from 1 to %d", file, n, strings.TrimSpace(m[1]), maxRuns)
				}
				p.runs = r
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
			wants, msgs := p.wants, p.msgs
			if g[1] != "" {
				if !knownMPI(g[1]) {
					return p, fmt.Errorf("%s:%d: want[%s]: not an MPI library the tests know", file, n, g[1])
				}
				if p.wantsFor[g[1]] == nil {
					p.wantsFor[g[1]] = map[int][]string{}
					p.msgsFor[g[1]] = map[int][]wantMsg{}
				}
				wants, msgs = p.wantsFor[g[1]], p.msgsFor[g[1]]
			}
			// a string that reads as an id is one; any other is the
			// message regexp of the id just before it
			last := ""
			for _, q := range quotedRe.FindAllStringSubmatch(g[2], -1) {
				if idRe.MatchString(q[1]) {
					wants[n] = append(wants[n], q[1])
					last = q[1]
					continue
				}
				if last == "" {
					return p, fmt.Errorf("%s:%d: want %q: a message regexp follows the id it is for (an id is lowercase letters, digits and hyphens)", file, n, q[1])
				}
				re, err := regexp.Compile(q[1])
				if err != nil {
					return p, fmt.Errorf("%s:%d: want %q %q: bad message regexp: %v", file, n, last, q[1], err)
				}
				msgs[n] = append(msgs[n], wantMsg{last, re})
				last = ""
			}
		}
	}
	if p.runs == 0 {
		p.runs = 1
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
