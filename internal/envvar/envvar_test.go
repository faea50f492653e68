package envvar_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// root is the source tree's root: the test runs in internal/envvar.
const root = "../.."

// declared parses the package's non-test files and returns its constants
// by value. Every constant must have a one-line doc comment that starts
// with its name, and no two may name the same variable.
func declared(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	byValue := map[string]string{}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						lit, ok := vs.Values[i].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							t.Errorf("%s: %s is not a string literal", fset.Position(n.Pos()), n.Name)
							continue
						}
						v, _ := strconv.Unquote(lit.Value)
						if old, dup := byValue[v]; dup {
							t.Errorf("%s: %s and %s both name %s", fset.Position(n.Pos()), old, n.Name, v)
						}
						byValue[v] = n.Name
						doc := strings.TrimSpace(vs.Doc.Text())
						if first, _, _ := strings.Cut(doc, " "); strings.Contains(doc, "\n") || strings.TrimSuffix(first, ",") != n.Name {
							t.Errorf("%s: %s wants a one-line doc comment that starts with its name, has %q", fset.Position(n.Pos()), n.Name, doc)
						}
					}
				}
			}
		}
	}
	if len(byValue) == 0 {
		t.Fatal("no constants found")
	}
	return byValue
}

// TestDeclared: every variable the shim's C reads or sets with
// getenv/setenv, the gdb extension reads, or a non-test Go string names
// (MPIDBG_...), is a constant of this package.
func TestDeclared(t *testing.T) {
	consts := declared(t)
	used := map[string][]string{} // name -> where
	add := func(name, where string) { used[name] = append(used[name], where) }

	cNames, err := cVariables(filepath.Join(root, "shim"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cNames) == 0 {
		t.Fatal("no getenv or setenv found in shim/*.c: the scan is broken")
	}
	for where, names := range cNames {
		for _, n := range names {
			add(n, where)
		}
	}

	goNames, err := goStrings(root)
	if err != nil {
		t.Fatal(err)
	}
	for where, names := range goNames {
		for _, n := range names {
			add(n, where)
		}
	}

	pyNames, err := pyVariables(filepath.Join(root, "extensions", "gdb"))
	if err != nil {
		t.Fatal(err)
	}
	for where, names := range pyNames {
		for _, n := range names {
			add(n, where)
		}
	}

	// the macros a program includes from include/mpidbg.h are named in
	// messages too; they are not variables
	macros, err := headerMacros(filepath.Join(root, "include", "mpidbg.h"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range used {
		if !macros[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := consts[n]; !ok {
			sort.Strings(used[n])
			t.Errorf("%s is not declared in internal/envvar (used at %s)", n, strings.Join(used[n], ", "))
		}
	}
	for _, want := range []string{"MPIDBG_REPORT", "MPIDBG_RACE_STATS", "UCX_TLS", "PMI_RANK"} {
		if len(used[want]) == 0 {
			t.Errorf("the scan did not find %s, which the shim reads: the scan is broken", want)
		}
	}
}

var mpidbgName = regexp.MustCompile(`MPIDBG_[A-Z0-9_]*[A-Z0-9]`)

var cDefine = regexp.MustCompile(`(?m)^#define\s+(MPIDBG_[A-Z0-9_]+)`)

// headerMacros returns the MPIDBG_ macros a C header defines.
func headerMacros(path string) (map[string]bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, m := range cDefine.FindAllSubmatch(b, -1) {
		out[string(m[1])] = true
	}
	return out, nil
}

// goStrings returns the MPIDBG_ names in the string literals of the
// non-test Go files under dir, by file and line. shim/gen is left out:
// its strings are the C it writes, whose MPIDBG_ names are enumerations
// and macros, not variables.
func goStrings(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			switch e.Name() {
			case ".git", "node_modules", "testdata", "vendor":
				return filepath.SkipDir
			}
			if rel == "shim/gen" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, m := range mpidbgName.FindAllString(s, -1) {
				where := fmt.Sprintf("%s:%d", rel, fset.Position(lit.Pos()).Line)
				out[where] = append(out[where], m)
			}
			return true
		})
		return nil
	})
	return out, err
}

var pyEnv = regexp.MustCompile(`os\.(?:environ\.get|getenv)\(\s*["']([A-Za-z0-9_]+)["']|os\.environ\[\s*["']([A-Za-z0-9_]+)["']\s*\]`)

// pyVariables returns the variables the Python files under dir (tests
// left out) read through os.environ or os.getenv with a literal name.
func pyVariables(dir string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if e.Name() == "tests" || e.Name() == "__pycache__" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".py") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, m := range pyEnv.FindAllSubmatchIndex(b, -1) {
			name := m[2:4]
			if name[0] < 0 {
				name = m[4:6]
			}
			where := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), 1+strings.Count(string(b[:m[0]]), "\n"))
			out[where] = append(out[where], string(b[name[0]:name[1]]))
		}
		return nil
	})
	return out, err
}
