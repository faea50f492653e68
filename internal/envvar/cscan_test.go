package envvar_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// cVariables returns the names the C files dir/*.c and dir/*.h pass to
// getenv, setenv or unsetenv, by file and line. A name is found where it
// is the call's literal argument, an element of the literal array the
// argument indexes (names[i]), or the literal a caller passes for the
// parameter the argument is (on_off("MPIDBG_NASTY", 0) for a function
// that calls getenv(var)). An argument the scan cannot follow to a
// literal is an error, so that no variable escapes the check.
func cVariables(dir string) (map[string][]string, error) {
	var paths []string
	for _, g := range []string{"*.c", "*.h"} {
		ms, err := filepath.Glob(filepath.Join(dir, g))
		if err != nil {
			return nil, err
		}
		paths = append(paths, ms...)
	}
	sort.Strings(paths)
	files := map[string]string{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		files[filepath.Base(p)] = stripComments(string(b))
	}
	return cScan(files)
}

var (
	envCall = regexp.MustCompile(`\b(?:getenv|secure_getenv|setenv|unsetenv)\s*\(`)
	cString = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)"`)
	cIdent  = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(\[)?`)
	// a function definition: its name, its parameters, then its body
	cFunc = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(([^;{}()]*)\)\s*\{`)
)

// cScan is cVariables over the files' text (comments removed), by name.
func cScan(files map[string]string) (map[string][]string, error) {
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string][]string{}
	for _, file := range names {
		src := files[file]
		for _, m := range envCall.FindAllStringIndex(src, -1) {
			where := fmt.Sprintf("shim/%s:%d", file, line(src, m[0]))
			arg := strings.TrimLeft(src[m[1]:], " \t\n")
			if s := cString.FindStringSubmatch(arg); s != nil {
				out[where] = append(out[where], s[1])
				continue
			}
			id := cIdent.FindStringSubmatch(arg)
			if id == nil {
				return nil, fmt.Errorf("%s: the variable's name is neither a literal nor an identifier", where)
			}
			var found []string
			var err error
			if id[2] == "[" {
				found, err = arrayLiterals(src, id[1])
			} else {
				found, err = callerLiterals(files, src, m[0], id[1])
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %v", where, err)
			}
			out[where] = append(out[where], found...)
		}
	}
	return out, nil
}

// arrayLiterals returns the string literals of the initializer of the
// array name in src.
func arrayLiterals(src, name string) ([]string, error) {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\s*\[[^\]]*\]\s*=\s*\{([^}]*)\}`)
	m := re.FindStringSubmatch(src)
	if m == nil {
		return nil, fmt.Errorf("no initializer of the array %s", name)
	}
	var out []string
	for _, s := range regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(m[1], -1) {
		out = append(out, s[1])
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the array %s holds no literal names", name)
	}
	return out, nil
}

// callerLiterals handles getenv(param) inside a function: the literals
// every call of that function, in any of the files, passes for param.
func callerLiterals(files map[string]string, src string, at int, param string) ([]string, error) {
	var fn string
	idx := -1
	for _, d := range cFunc.FindAllStringSubmatchIndex(src, -1) {
		if d[0] > at {
			break
		}
		name := src[d[2]:d[3]]
		if name == "if" || name == "for" || name == "while" || name == "switch" {
			continue
		}
		fn, idx = name, -1
		for i, p := range strings.Split(src[d[4]:d[5]], ",") {
			if f := regexp.MustCompile(`\w+`).FindAllString(p, -1); len(f) > 0 && f[len(f)-1] == param {
				idx = i
			}
		}
	}
	if fn == "" || idx < 0 {
		return nil, fmt.Errorf("%s is not a parameter of the function around it: give getenv a literal", param)
	}
	call := regexp.MustCompile(`\b` + regexp.QuoteMeta(fn) + `\s*\(`)
	var out []string
	for _, other := range files {
		for _, m := range call.FindAllStringIndex(other, -1) {
			if declaration(other[:m[0]]) {
				continue
			}
			args := splitArgs(other[m[1]:])
			if idx >= len(args) {
				return nil, fmt.Errorf("a call of %s has no argument %d", fn, idx+1)
			}
			s := cString.FindStringSubmatch(args[idx])
			if s == nil {
				return nil, fmt.Errorf("a call of %s passes %q for %s: give it a literal", fn, args[idx], param)
			}
			out = append(out, s[1])
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("nothing calls %s", fn)
	}
	return out, nil
}

// declaration says whether the text before a function's name ends in a
// type (int on_off, char *name), making it a declaration or definition
// rather than a call.
func declaration(before string) bool {
	before = strings.TrimRight(before, " \t\n")
	if strings.HasSuffix(before, "*") {
		return true
	}
	w := regexp.MustCompile(`\w+$`).FindString(before)
	return w != "" && w != "return" && w != "case"
}

// splitArgs splits the arguments of a call whose text starts after its
// opening parenthesis, at top-level commas.
func splitArgs(s string) []string {
	var args []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth > 0 {
				depth--
				continue
			}
			return append(args, strings.TrimSpace(s[start:i]))
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return args
}

// stripComments blanks C comments, keeping strings and line numbers.
func stripComments(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			for i++; i < len(b) && b[i] != q && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			for ; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

func line(s string, at int) int { return 1 + strings.Count(s[:at], "\n") }

// TestCScan: the scan follows literals, arrays and wrappers, skips
// comments, and refuses what it cannot follow.
func TestCScan(t *testing.T) {
	src := stripComments(`
/* getenv("IN_A_COMMENT") */
static const char *const names[] = {"ARR_A", "ARR_B"};
static int on_off(const char *var, int def)
{
    const char *v = getenv(var); // getenv("ALSO_A_COMMENT")
    return v ? 1 : def;
}
static int64_t duration_env(int unit, const char *var, int64_t def);
static int64_t duration_env(int unit, const char *var, int64_t def)
{
    if (def) {
        return getenv(var) != NULL;
    }
    return 0;
}
void init(void)
{
    for (int i = 0; i < 2; i++)
        getenv(names[i]);
    on_off("WRAPPED", 0);
    duration_env(1000, "WRAPPED_2ND", f(1, 2));
    setenv("DIRECT", "x,y", 0);
    x = duration_env(1, "WRAPPED_3RD", 0) + (int)on_off("WRAPPED", 1);
}
int later(void) { return on_off("RETURNED", 1); }
`)
	got, err := cScan(map[string]string{"a.c": src})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ns := range got {
		names = append(names, ns...)
	}
	sort.Strings(names)
	if want := []string{"ARR_A", "ARR_B", "DIRECT", "RETURNED", "WRAPPED", "WRAPPED", "WRAPPED_2ND", "WRAPPED_3RD"}; !reflect.DeepEqual(names, want) {
		t.Errorf("got %q, want %q", names, want)
	}
	for _, bad := range []string{
		"void f(void) { const char *n = pick(); getenv(n); }",
		"static void g(const char *v) { getenv(v); }\nvoid h(const char *w) { g(w); }",
		"void f(void) { getenv(pick()); }",
	} {
		if got, err := cScan(map[string]string{"b.c": stripComments(bad)}); err == nil {
			t.Errorf("%s: no error, found %q", bad, got)
		}
	}
}
