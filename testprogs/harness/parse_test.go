// Reading a program: its header lines and its want and related annotations, in the comments of its language (// or !).

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
	name        string // file name without its extension: the subtest's name (unique across folders and languages)
	file        string // file name
	lang        *lang  // by the file name's extension
	dir         string // the folder under testprogs: local, cross
	path        string // absolute path of the source
	ranks       int
	flags       []string          // extra `mpidbg run` flags from "// flags:"
	cflags      []string          // extra compiler flags from "// cflags:" (allowedCflags)
	runs        int               // "// runs: 20": TestPlanted runs it that many times (default 1)
	nativeHangs bool              // "// native: hangs": the program deadlocks without mpidbg
	mpiVersion  int               // "// mpi: 4": needs an MPI library of that MPI version or later
	needs       []string          // "// needs: debug-registers": what of the machine the program's checks use (machineNeeds)
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
	ok      bool             // ok_*.c, ok_*.f90, ok_*.cpp
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

// syntax is the header and annotation syntax of a language whose
// comments start with mark: "// ranks: 2" in C, "! ranks: 2" in Fortran.
type syntax struct {
	mark                                          string
	ranks, flags, native, mpi, skip, cflags, runs *regexp.Regexp
	needs                                         *regexp.Regexp
	want, wantMark, related, relatedMark, comment *regexp.Regexp
}

func newSyntax(mark string) syntax {
	m := regexp.QuoteMeta(mark)
	re := func(s string) *regexp.Regexp { return regexp.MustCompile(strings.ReplaceAll(s, "MARK", m)) }
	return syntax{
		mark:        mark,
		ranks:       re(`^MARK\s*ranks:\s*(\d+)\s*$`),
		flags:       re(`^MARK\s*flags:(.*)$`),
		native:      re(`^MARK\s*native(?:\[([a-z]+)\])?:\s*(.*)$`),
		mpi:         re(`^MARK\s*mpi:\s*(\d+)\b`), // then, optionally, why
		skip:        re(`^MARK\s*skip\[([a-z]+)\]:\s*(.*)$`),
		cflags:      re(`^MARK\s*cflags:(.*)$`),
		runs:        re(`^MARK\s*runs:(.*)$`),
		needs:       re(`^MARK\s*needs:\s*(\S+)\s*$`),
		want:        re(`MARK\s*(?:want(?:\[[a-z]+\])?\s+(?:"[^"]*"\s*)+)+$`),
		wantMark:    re(`MARK\s*want\b`),
		related:     re(`MARK\s*(?:related(?:\[[a-z]+\])?\s+(?:"[^"]*"\s*)+)+$`),
		relatedMark: re(`MARK\s*related\b`),
	}
}

var (
	wantGroup    = regexp.MustCompile(`want(?:\[([a-z]+)\])?\s+((?:"[^"]*"\s*)+)`)
	relatedGroup = regexp.MustCompile(`related(?:\[([a-z]+)\])?\s+((?:"[^"]*"\s*)+)`)
	quotedRe     = regexp.MustCompile(`"([^"]*)"`)
	idRe         = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)
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
// "// cflags: ...", "// runs: N" and "// native: hangs"; in Fortran
// "! ranks: N" and so on) and its annotations.
func parseProgram(path string) (program, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return program{}, err
	}
	file := filepath.Base(abs)
	l := langOf(file)
	if l == nil {
		return program{file: file}, fmt.Errorf("%s: a program is a %s file", file, exts())
	}
	syn := l.syn
	p := program{
		name:    strings.TrimSuffix(file, l.ext),
		file:    file,
		lang:    l,
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
		return p, fmt.Errorf("%s: a program is named ok_*%[2]s or bug_*%[2]s", file, l.ext)
	}
	src, err := os.ReadFile(abs)
	if err != nil {
		return p, err
	}
	p.usesRMA = bytes.Contains(src, []byte("MPI_Win_"))
	if l.foldCase {
		p.usesRMA = bytes.Contains(bytes.ToUpper(src), []byte("MPI_WIN_"))
	}
	if l.script {
		p.usesRMA = bytes.Contains(src, []byte("MPI.Win")) // mpi4py's windows
	}
	header, seenFlags, seenCflags, seenNative := true, false, false, false
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimSpace(line)
		if header && trimmed != "" && !strings.HasPrefix(trimmed, syn.mark) {
			header = false
		}
		if header {
			switch m := syn.ranks.FindStringSubmatch(trimmed); {
			case m != nil && p.ranks != 0:
				return p, fmt.Errorf("%s:%d: a second \"%[3]s ranks:\" line", file, n, syn.mark)
			case m != nil:
				p.ranks, _ = strconv.Atoi(m[1])
			}
			if m := syn.flags.FindStringSubmatch(trimmed); m != nil {
				if seenFlags {
					return p, fmt.Errorf("%s:%d: a second \"%[3]s flags:\" line", file, n, syn.mark)
				}
				seenFlags = true
				p.flags = strings.Fields(m[1])
				if len(p.flags) == 0 {
					return p, fmt.Errorf("%s:%d: \"%[3]s flags:\" names no flag", file, n, syn.mark)
				}
				for _, f := range p.flags {
					if !strings.HasPrefix(f, "--") {
						return p, fmt.Errorf("%s:%d: flags: %q is not a --flag (write --name=value as one word)", file, n, f)
					}
				}
			}
			if m := syn.cflags.FindStringSubmatch(trimmed); m != nil {
				if seenCflags {
					return p, fmt.Errorf("%s:%d: a second \"%[3]s cflags:\" line", file, n, syn.mark)
				}
				seenCflags = true
				p.cflags = strings.Fields(m[1])
				if len(p.cflags) == 0 {
					return p, fmt.Errorf("%s:%d: \"%[3]s cflags:\" names no flag", file, n, syn.mark)
				}
				for _, f := range p.cflags {
					if !slices.Contains(allowedCflags, f) {
						return p, fmt.Errorf("%s:%d: cflags: %q is not allowed (allowed: %s)", file, n, f, strings.Join(allowedCflags, " "))
					}
				}
			}
			if m := syn.runs.FindStringSubmatch(trimmed); m != nil {
				if p.runs != 0 {
					return p, fmt.Errorf("%s:%d: a second \"%[3]s runs:\" line", file, n, syn.mark)
				}
				r, err := strconv.Atoi(strings.TrimSpace(m[1]))
				if err != nil || r < 1 || r > maxRuns {
					return p, fmt.Errorf("%s:%d: runs: %q, want a number from 1 to %d", file, n, strings.TrimSpace(m[1]), maxRuns)
				}
				p.runs = r
			}
			if m := syn.needs.FindStringSubmatch(trimmed); m != nil {
				if _, ok := machineNeeds[m[1]]; !ok {
					return p, fmt.Errorf("%s:%d: needs: %q: not something the tests can look for", file, n, m[1])
				}
				p.needs = append(p.needs, m[1])
			}
			if m := syn.skip.FindStringSubmatch(trimmed); m != nil {
				switch {
				case !knownMPI(m[1]):
					return p, fmt.Errorf("%s:%d: skip[%s]: not an MPI library the tests know", file, n, m[1])
				case strings.TrimSpace(m[2]) == "":
					return p, fmt.Errorf("%s:%d: skip[%s]: say why", file, n, m[1])
				}
				p.skipFor[m[1]] = strings.TrimSpace(m[2])
			}
			if m := syn.mpi.FindStringSubmatch(trimmed); m != nil {
				if p.mpiVersion != 0 {
					return p, fmt.Errorf("%s:%d: a second \"%[3]s mpi:\" line", file, n, syn.mark)
				}
				p.mpiVersion, _ = strconv.Atoi(m[1])
			}
			if m := syn.native.FindStringSubmatch(trimmed); m != nil {
				if m[1] == "" && seenNative {
					return p, fmt.Errorf("%s:%d: a second \"%[3]s native:\" line", file, n, syn.mark)
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
		if strings.HasPrefix(trimmed, syn.mark) {
			continue // comments may talk about annotations; only code lines carry them
		}
		if at := annotationAt(syn, line); at >= 0 && l.continuation != "" && strings.HasSuffix(strings.TrimSpace(line[:at]), l.continuation) {
			// gfortran's line table gives a continued statement (a call
			// over three lines, say) the line where it ends, and the shim
			// reports that line
			return p, fmt.Errorf("%s:%d: an annotation on a line the statement continues after: put it on the statement's last line, where the compiler places the call", file, n)
		}
		if syn.relatedMark.MatchString(line) {
			m := syn.related.FindString(line)
			if m == "" {
				return p, fmt.Errorf("%s:%d: malformed annotation, want %s related[MPI] \"ID\" [\"ID\"...] at the end of the line", file, n, syn.mark)
			}
			for _, g := range relatedGroup.FindAllStringSubmatch(m, -1) {
				related := p.related
				if g[1] != "" {
					if !knownMPI(g[1]) {
						return p, fmt.Errorf("%s:%d: related[%s]: not an MPI library the tests know", file, n, g[1])
					}
					if p.relatedFor[g[1]] == nil {
						p.relatedFor[g[1]] = map[int][]string{}
					}
					related = p.relatedFor[g[1]]
				}
				for _, q := range quotedRe.FindAllStringSubmatch(g[2], -1) {
					related[n] = append(related[n], q[1])
				}
			}
			continue
		}
		if !syn.wantMark.MatchString(line) {
			continue
		}
		m := syn.want.FindString(line)
		if m == "" {
			return p, fmt.Errorf("%s:%d: malformed annotation, want %s want[MPI] \"ID\" [\"ID\"...] at the end of the line", file, n, syn.mark)
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
		return p, fmt.Errorf("%s: no \"%s ranks: N\" line in the header comment", file, syn.mark)
	case p.ranks < minRanks || p.ranks > maxRanks:
		return p, fmt.Errorf("%s: ranks: %d, want %d to %d", file, p.ranks, minRanks, maxRanks)
	case p.ok && (len(p.wants) > 0 || len(p.related) > 0):
		return p, fmt.Errorf("%s: an ok_ program wants no findings", file)
	case p.ok && (len(p.wantsFor) > 0 || len(p.relatedFor) > 0):
		return p, fmt.Errorf("%s: an ok_ program wants no findings", file)
	case p.ok && !bytes.Contains(src, []byte(p.name+": OK")):
		return p, fmt.Errorf("%s: an ok_ program prints \"%s: OK\", and its source holds no such text", file, p.name)
	case !p.ok && len(p.wants) == 0 && len(p.wantsFor) == 0:
		return p, fmt.Errorf("%s: a bug_ program has no %s want annotation", file, syn.mark)
	case p.ok && (p.nativeHangs || len(p.nativeHangsFor) > 0 || len(p.nativeCrashesFor) > 0):
		return p, fmt.Errorf("%s: an ok_ program cannot hang natively", file)
	}
	return p, nil
}

// annotationAt is where the first want or related annotation of line
// starts, -1 for none.
func annotationAt(syn syntax, line string) int {
	at := -1
	for _, re := range []*regexp.Regexp{syn.wantMark, syn.relatedMark} {
		if loc := re.FindStringIndex(line); loc != nil && (at < 0 || loc[0] < at) {
			at = loc[0]
		}
	}
	return at
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
// testprogs), in every language of langs; their names must be unique
// across them, since they name the subtests and the executables.
func loadPrograms(t *testing.T, dirs []string) []program {
	t.Helper()
	var progs []program
	where := map[string]string{} // program name -> folder/file
	for _, d := range dirs {
		dir := filepath.Join(progRoot, d)
		var paths []string
		for _, l := range langs {
			ps, err := filepath.Glob(filepath.Join(dir, "*"+l.ext))
			if err != nil {
				t.Fatal(err)
			}
			paths = append(paths, ps...)
		}
		if len(paths) == 0 {
			t.Fatalf("no programs in %s (no %s files)", dir, exts())
		}
		sort.Strings(paths)
		for _, path := range paths {
			p, err := parseProgram(path)
			if err != nil {
				t.Error(err)
				continue
			}
			if other, dup := where[p.name]; dup {
				t.Errorf("%s: %s is there too; program names (file names without the extension) must be unique across folders and languages", filepath.Join(p.dir, p.file), other)
				continue
			}
			where[p.name] = filepath.Join(p.dir, p.file)
			progs = append(progs, p)
		}
	}
	return progs
}
