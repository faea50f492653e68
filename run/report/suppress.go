package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
)

// Suppressions: findings a user has reviewed and wants out of the report,
// as valgrind's and the sanitizers' suppression files let users do. A
// suppression file holds one rule per line, "#" starting a comment:
//
//	message-race   src/master.c:40        # the results are filed by index
//	type-mismatch  function=exchange_halo
//	leak           *
//
// The first word is a finding id or a category ("leak" is every leak-*
// finding), or "*" for any; the second says where: FILE:LINE, FILE,
// function=NAME (a shell pattern: function=exchange_*), or "*"
// anywhere. FILE matches a finding's file when it is a suffix of it in
// whole path components ("master.c" and "src/master.c" match
// /home/u/app/src/master.c; "ter.c" does not). A rule is about the
// finding's own place, not its related ones.

// SuppressFile is the name of the suppression file `mpidbg run` reads
// from the program's directory when there is one.
const SuppressFile = ".mpidbg-suppress"

// Rule is one line of a suppression file.
type Rule struct {
	// Source is where the rule was written ("app/.mpidbg-suppress:3").
	Source string
	// What is a finding id, a category, or "*".
	What string
	// Where the finding is: File (a path suffix) with Line (0: any line),
	// or Function (a shell pattern), or neither: anywhere.
	File     string
	Line     int
	Function string
}

// String is the rule as it would be written in a file.
func (r Rule) String() string {
	switch {
	case r.Function != "":
		return r.What + " function=" + r.Function
	case r.File != "" && r.Line > 0:
		return fmt.Sprintf("%s %s:%d", r.What, r.File, r.Line)
	case r.File != "":
		return r.What + " " + r.File
	}
	return r.What + " *"
}

// Suppressed is a finding a rule took out of the report.
type Suppressed struct {
	Finding
	Rule Rule
}

// ParseRules reads the rules of a suppression file; name is the file's
// name for the positions of rules and errors ("NAME:LINE: ...").
func ParseRules(name string, r io.Reader) ([]Rule, error) {
	var rules []Rule
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		at := fmt.Sprintf("%s:%d", name, n)
		rule, err := parseRule(fields)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		rule.Source = at
		rules = append(rules, rule)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return rules, nil
}

const ruleForm = "want ID-OR-CATEGORY then FILE:LINE, FILE, function=NAME or *"

func parseRule(fields []string) (Rule, error) {
	if len(fields) != 2 {
		return Rule{}, fmt.Errorf("%q: %s", strings.Join(fields, " "), ruleForm)
	}
	r := Rule{What: fields[0]}
	if r.What != "*" && !knownWhat(r.What) {
		return Rule{}, fmt.Errorf("%q is no finding id or category (see 'mpidbg explain')", r.What)
	}
	where := fields[1]
	switch {
	case where == "*":
	case strings.HasPrefix(where, "function="):
		r.Function = strings.TrimPrefix(where, "function=")
		if r.Function == "" {
			return Rule{}, fmt.Errorf("%q: function= wants a function name", where)
		}
		if _, err := path.Match(r.Function, ""); err != nil {
			return Rule{}, fmt.Errorf("%q: bad pattern: %v", where, err)
		}
	case strings.Contains(where, "="):
		return Rule{}, fmt.Errorf("%q: %s", where, ruleForm)
	default:
		r.File = where
		if i := strings.LastIndexByte(where, ':'); i >= 0 {
			n, err := strconv.Atoi(where[i+1:])
			if err != nil || n <= 0 {
				return Rule{}, fmt.Errorf("%q: the line after the colon must be a positive number", where)
			}
			r.File, r.Line = where[:i], n
		}
		r.File = strings.TrimPrefix(filepath.ToSlash(filepath.Clean(r.File)), "./")
		if r.File == "" || r.File == "." {
			return Rule{}, fmt.Errorf("%q: no file name", where)
		}
	}
	return r, nil
}

func knownWhat(s string) bool {
	if _, ok := checks.Lookup(s); ok {
		return true
	}
	return slices.Contains(checks.Categories, checks.Category(s))
}

// Matches says whether the rule covers f.
func (r Rule) Matches(f *checks.Finding) bool {
	if r.What != "*" && r.What != f.ID && checks.Category(r.What) != f.Category {
		return false
	}
	switch {
	case r.Function != "":
		ok, _ := path.Match(r.Function, f.Location.Function)
		return ok
	case r.File != "":
		return (r.Line == 0 || r.Line == f.Location.Line) && pathSuffix(f.Location.File, r.File)
	}
	return true
}

// pathSuffix says whether suffix names the last components of file.
func pathSuffix(file, suffix string) bool {
	if file == "" {
		return false
	}
	file = filepath.ToSlash(filepath.Clean(file))
	if strings.HasPrefix(suffix, "/") {
		return file == suffix
	}
	return file == suffix || strings.HasSuffix(file, "/"+suffix)
}

// LoadRules reads the suppression files named (an error when one cannot
// be read) and the program's own, SuppressFile in the directory of
// program (found on PATH when it has no slash, as the launcher finds
// it), when there is one.
func LoadRules(files []string, program string) ([]Rule, error) {
	var rules []Rule
	read := func(name string, optional bool) error {
		f, err := os.Open(name)
		if err != nil {
			if optional && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("suppression file: %v", err)
		}
		defer f.Close()
		rs, err := ParseRules(name, f)
		if err != nil {
			return fmt.Errorf("suppression file %v", err)
		}
		rules = append(rules, rs...)
		return nil
	}
	for _, name := range files {
		if err := read(name, false); err != nil {
			return nil, err
		}
	}
	if program != "" {
		if !strings.Contains(program, "/") {
			if p, err := exec.LookPath(program); err == nil {
				program = p
			}
		}
		own := filepath.Join(filepath.Dir(program), SuppressFile)
		if !slices.ContainsFunc(files, func(f string) bool { return sameFile(f, own) }) {
			if err := read(own, true); err != nil {
				return nil, err
			}
		}
	}
	return rules, nil
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Suppress moves the findings of r that a rule covers from Findings to
// Suppressed, in order, and returns how many it moved.
func Suppress(r *Report, rules []Rule) int {
	if len(rules) == 0 {
		return 0
	}
	kept := r.Findings[:0:0]
	n := 0
	for _, f := range r.Findings {
		i := slices.IndexFunc(rules, func(rule Rule) bool { return rule.Matches(&f.Finding) })
		if i < 0 {
			kept = append(kept, f)
			continue
		}
		r.Suppressed = append(r.Suppressed, Suppressed{Finding: f, Rule: rules[i]})
		n++
	}
	r.Findings = kept
	return n
}
