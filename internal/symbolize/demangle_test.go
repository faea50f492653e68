package symbolize

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// TestDemangled: mangled names as GCC and Clang write them in symbol
// tables and DW_AT_linkage_name, and what the report shows for them (as
// gdb names them: no clone suffix, no return type of a template
// instance); names that are not mangled, or do not demangle, stay as
// they are.
func TestDemangled(t *testing.T) {
	tests := []struct{ in, want string }{
		{"_ZN2ns4HaloIdE8exchangeEi", "ns::Halo<double>::exchange(int)"},
		{"_ZN2ns4HaloIfE8exchangeEi", "ns::Halo<float>::exchange(int)"},
		{"_ZNK2ns4HaloIdE4sizeEv", "ns::Halo<double>::size() const"},
		{"_ZN2ns4HaloIdEC2Ei", "ns::Halo<double>::Halo(int)"},
		{"_ZN2ns4HaloIdED1Ev", "ns::Halo<double>::~Halo()"},
		{"_ZN2ns4HaloIdE8exchangeEi.constprop.0", "ns::Halo<double>::exchange(int)"},
		{"_ZN2ns4HaloIdE8exchangeEi.isra.0", "ns::Halo<double>::exchange(int)"},
		{"_ZN2ns4HaloIdE8exchangeEi.cold", "ns::Halo<double>::exchange(int)"},
		{"_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()(int) const"},
		{"_ZN12_GLOBAL__N_15solveERSt6vectorIdSaIdEE", "(anonymous namespace)::solve(std::vector<double, std::allocator<double> >&)"},
		{"_ZN3app5Inbox4postEiP19ompi_communicator_t", "app::Inbox::post(int, ompi_communicator_t*)"},
		// function template instances: their mangled names carry the return type
		{"_Z3maxIiET_S0_S0_", "max<int>(int, int)"},
		{"_ZNK3fooIiE3getIlEET_v", "foo<int>::get<long>() const"},
		{"_ZSt14__relocate_a_1IddENSt9enable_ifIXsrSt24__is_bitwise_relocatableIT_vE5valueEPS2_E4typeES4_S4_S4_RSaIT0_E",
			"std::__relocate_a_1<double, double>(double*, double*, double*, std::allocator<double>&)"},
		{"_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
			"std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*)"},
		// a return type that wraps the name stays: nothing to cut before it
		{"_Z3fooIiEPFivEv", "int (*foo<int>())()"},
		{"_RNvCs1234_7mycrate3foo", "mycrate::foo"},
		{"main", "main"},
		{"MPI_Send", "MPI_Send"},
		{"_start", "_start"},
		{"_Z", "_Z"},
		{"_Zbogus", "_Zbogus"},
		{"_ZN2ns4HaloIdE8exchange", "_ZN2ns4HaloIdE8exchange"}, // truncated
		{"", ""},
	}
	for _, tt := range tests {
		if got := demangled(tt.in); got != tt.want {
			t.Errorf("demangled(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// cxxProg reports the sites of calls from C++ functions, one per line
// (the offsets in the order of cxxFuncs): a member function of a class
// template, a lambda, a function in an anonymous namespace, a const
// member function of a class in a namespace, and main.
const cxxProg = `#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <vector>

extern "C" __attribute__((noinline)) void report(void) {
	void *ra = __builtin_return_address(0);
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1(ra, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return;
	printf("%lx\n", (unsigned long)((uintptr_t)ra - lm->l_addr));
}

#define AFTER() __asm__ volatile("" ::: "memory")

namespace ns {
template <typename T> struct Halo {
	std::vector<T> cells;
	__attribute__((noinline)) void exchange(int n) {
		report();
		AFTER();
		cells.resize(n);
	}
};
struct Grid {
	int n;
	__attribute__((noinline)) int size() const {
		report();
		AFTER();
		return n;
	}
};
}

namespace {
__attribute__((noinline)) void local(std::vector<double> &v) {
	report();
	AFTER();
	v.push_back(1);
}
}

int main() {
	ns::Halo<double> h;
	h.exchange(4);
	auto f = [](int x) {
		report();
		AFTER();
		return x + 1;
	};
	int k = f(1);
	std::vector<double> v;
	local(v);
	ns::Grid g{k};
	k += g.size();
	report();
	AFTER();
	return k == 4 ? 0 : 1;
}
`

var cxxFuncs = []string{
	"ns::Halo<double>::exchange(int)",
	"main::{lambda(int)#1}::operator()(int) const",
	"(anonymous namespace)::local(std::vector<double, std::allocator<double> >&)",
	"ns::Grid::size() const",
	"main",
}

// TestResolveCXX: C++ functions are named as a user writes them, from
// DWARF (the linkage name of the declaration a definition specifies, of
// the abstract origin of an inlined call) and from the symbol table.
func TestResolveCXX(t *testing.T) {
	gxx := testenv.NeedTool(t, "", "g++", "apt-get install g++")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.cpp")
	if err := os.WriteFile(src, []byte(cxxProg), 0o644); err != nil {
		t.Fatal(err)
	}
	build := func(name string, flags ...string) (string, []uint64) {
		exe := filepath.Join(dir, name)
		args := append([]string{"-o", exe, src}, flags...)
		if out, err := exec.Command(gxx, args...).CombinedOutput(); err != nil {
			t.Fatalf("g++ %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		out, err := exec.Command(exe).Output()
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		var offs []uint64
		for _, l := range strings.Fields(string(out)) {
			off, err := strconv.ParseUint(l, 16, 64)
			if err != nil {
				t.Fatalf("%s printed %q: %v", exe, out, err)
			}
			offs = append(offs, off)
		}
		if len(offs) != len(cxxFuncs) {
			t.Fatalf("%s printed %d sites, want %d", exe, len(offs), len(cxxFuncs))
		}
		return exe, offs
	}
	r := New()
	check := func(t *testing.T, exe string, offs []uint64, wantFile bool, want []string) {
		for i, off := range offs {
			loc, err := r.Resolve(checks.Site{Module: exe, Offset: off})
			if err != nil {
				t.Errorf("site %d: %v", i, err)
				continue
			}
			if loc.Function != want[i] {
				t.Errorf("site %d: function %q, want %q", i, loc.Function, want[i])
			}
			if wantFile && loc.File != src {
				t.Errorf("site %d: file %q, want %q", i, loc.File, src)
			}
		}
	}
	t.Run("dwarf", func(t *testing.T) {
		exe, offs := build("o0", "-g", "-O0")
		check(t, exe, offs, true, cxxFuncs)
	})
	t.Run("dwarf_optimized", func(t *testing.T) {
		// The rest may be cloned; the lambda is inlined into main, and
		// GCC writes no linkage name for it (nor for any function of
		// internal linkage): its name is qualified from DWARF's scopes,
		// without parameters.
		exe, offs := build("o2", "-g", "-O2")
		want := append([]string(nil), cxxFuncs...)
		if s := rawSymbolName(exe, offs[1]); s == "main" {
			want[1] = "main::{lambda}::operator()"
		}
		check(t, exe, offs, true, want)
	})
	t.Run("symbols", func(t *testing.T) {
		exe, offs := build("o0nodebug", "-O0")
		check(t, exe, offs, false, cxxFuncs)
	})
	t.Run("symbols_optimized", func(t *testing.T) {
		// without DWARF an inlined call is its caller's: the lambda's
		// report() is main's
		exe, offs := build("o2nodebug", "-O2")
		want := append([]string(nil), cxxFuncs...)
		if s := rawSymbolName(exe, offs[1]); s == "main" {
			want[1] = "main"
		}
		check(t, exe, offs, false, want)
	})
}

// rawSymbolName is the symbol covering the call that returns to offset
// in module exe, as its symbol table has it.
func rawSymbolName(exe string, offset uint64) string {
	m := load(exe, nil)
	if m.err != nil {
		return ""
	}
	return m.rawSymbolAt(offset - 1)
}

// TestResolveFortranContained: a Fortran procedure's contained procedure
// is named as written (face), not by its symbol (face.0): DWARF holds it
// as a child of its host, whose code does not cover it.
func TestResolveFortranContained(t *testing.T) {
	prog := "program host\n  implicit none\n  integer :: k\n  call face(3, k)\n  print *, k\n" +
		"contains\n  subroutine face(i, k)\n    integer, intent(in) :: i\n    integer, intent(out) :: k\n" +
		"    k = i * 2\n  end subroutine face\nend program host\n"
	exe := buildFortran(t, prog)
	at := symbolValue(t, exe, func(name string) bool { return strings.HasPrefix(name, "face.") })
	if at == 0 {
		t.Fatal("no face.N symbol: gfortran names contained procedures otherwise now")
	}
	loc, err := New().Resolve(checks.Site{Module: exe, Offset: at + 8})
	if err != nil {
		t.Fatal(err)
	}
	if loc.Function != "face" || loc.Line < 7 || loc.Line > 11 {
		t.Errorf("got %q at line %d, want face at lines 7-11", loc.Function, loc.Line)
	}
	if lang := New().Language(checks.Site{Module: exe, Offset: at + 8}); lang != LangFortran {
		t.Errorf("language: got %v, want Fortran", lang)
	}
}

// buildFortran compiles prog, one Fortran file, with gfortran -g -O0 and
// returns the executable.
func buildFortran(t *testing.T, prog string) string {
	t.Helper()
	gfortran := testenv.NeedTool(t, "", "gfortran", "apt-get install gfortran")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.f90")
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "prog")
	if out, err := exec.Command(gfortran, "-g", "-O0", "-J", dir, "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gfortran: %v\n%s", err, out)
	}
	return exe
}

// symbolValue is the value of the last symbol of exe whose name is
// wanted, 0 when none is.
func symbolValue(t *testing.T, exe string, wanted func(string) bool) uint64 {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	var at uint64
	for _, s := range syms {
		if wanted(s.Name) {
			at = s.Value
		}
	}
	return at
}

// TestResolveFortranIntentOut: gfortran 12 puts a call whose arguments
// are all variables, one INTENT(OUT), on the program's first line; the
// call's own line comes back from its neighbours and the source.
func TestResolveFortranIntentOut(t *testing.T) {
	gfortran := testenv.NeedTool(t, "", "gfortran", "apt-get install gfortran")
	dir := t.TempDir()
	files := map[string]string{
		"m.f90": "module m\n  implicit none\n  type, bind(c) :: handle\n    integer :: val\n  end type handle\n" +
			"  interface\n    subroutine ext(h, r) bind(c, name=\"ext\")\n      import :: handle\n" +
			"      type(handle), intent(in) :: h\n      integer, intent(out) :: r\n    end subroutine ext\n" +
			"  end interface\nend module m\n",
		"p.f90": "program p\n  use m\n  implicit none\n  type(handle) :: h\n  integer :: r\n  h%val = 3\n\n" +
			"  call ext(h, r) ! line 8\n  print *, r\nend program p\n",
		"ext.c": "void ext(int *h, int *r) { *r = *h + 1; }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "p")
	args := []string{"-g", "-O0", "-J", dir, "-o", exe, filepath.Join(dir, "m.f90"), filepath.Join(dir, "p.f90"), filepath.Join(dir, "ext.c")}
	if out, err := exec.Command(gfortran, args...).CombinedOutput(); err != nil {
		t.Fatalf("gfortran: %v\n%s", err, out)
	}
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	syms, _ := f.Symbols()
	var lo, hi, ext uint64
	for _, s := range syms {
		switch s.Name {
		case "MAIN__":
			lo, hi = s.Value, s.Value+s.Size
		case "ext":
			ext = s.Value
		}
	}
	code, err := text.Data()
	if text == nil || err != nil || lo == 0 || ext == 0 {
		t.Fatalf("no MAIN__ or ext in %s (%v)", exe, err)
	}
	// the return address of MAIN__'s call to ext: after a call rel32 (e8)
	var ra uint64
	for a := lo; a+5 <= hi; a++ {
		i := a - text.Addr
		if code[i] == 0xe8 && int64(a)+5+int64(int32(uint32(code[i+1])|uint32(code[i+2])<<8|uint32(code[i+3])<<16|uint32(code[i+4])<<24)) == int64(ext) {
			ra = a + 5
		}
	}
	if ra == 0 {
		t.Fatal("no call of ext in MAIN__")
	}
	loc, err := New().Resolve(checks.Site{Module: exe, Offset: ra})
	if err != nil {
		t.Fatal(err)
	}
	if loc.Line != 8 {
		t.Errorf("call of ext at line %d, want 8", loc.Line)
	}
}
