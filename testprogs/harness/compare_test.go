package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestCompare checks the matching rules on made-up findings.
func TestCompare(t *testing.T) {
	bug := program{file: "bug_x.c", ranks: 2, wants: map[int][]string{10: {"a", "b"}, 20: {"c"}}}
	ok := program{file: "ok_x.c", ranks: 2, ok: true, wants: map[int][]string{}}
	// a Fortran call over lines 26 to 28 is reported, and annotated, at 28
	fortran := program{file: "bug_f.f90", ranks: 2, wants: map[int][]string{28: {"a"}, 40: {"b"}}}
	at := func(id, sev, file string, line int, ranks ...int) finding {
		return finding{ID: id, Severity: sev, Ranks: ranks, Location: location{File: file, Line: line}}
	}
	tests := []struct {
		name string
		p    program
		fs   []finding
		want []string // prefixes of the problems, in order
	}{
		{"all matched", bug, []finding{
			at("a", "error", "/src/bug_x.c", 10, 0), at("b", "warning", "bug_x.c", 10, 1),
			at("c", "error", "/tmp/testprogs/local/bug_x.c", 20, 0, 1),
			at("a", "error", "/src/bug_x.c", 10, 1), // duplicates are fine
		}, nil},
		{"missing", bug, []finding{at("a", "error", "/src/bug_x.c", 10, 0)}, []string{
			`missing    bug_x.c:10: want "b"`, `missing    bug_x.c:20: want "c"`}},
		{"wrong line", bug, []finding{
			at("a", "error", "/src/bug_x.c", 11, 0), at("b", "error", "/src/bug_x.c", 10, 0), at("c", "error", "/src/bug_x.c", 20, 0),
		}, []string{`unexpected bug_x.c:11: "a"`, `missing    bug_x.c:10: want "a"`}},
		{"wrong file", bug, []finding{
			at("a", "error", "/src/other_bug_x.c", 10, 0), at("b", "error", "/src/bug_x.c", 10, 0), at("c", "error", "/src/bug_x.c", 20, 0),
		}, []string{`unexpected other_bug_x.c:10: "a"`, `missing    bug_x.c:10: want "a"`}},
		{"info tolerated in bug programs", bug, []finding{
			at("a", "error", "/src/bug_x.c", 10, 0), at("b", "error", "/src/bug_x.c", 10, 0), at("c", "error", "/src/bug_x.c", 20, 0),
			at("z", "info", "/src/bug_x.c", 3, 0),
		}, nil},
		{"no ranks", bug, []finding{
			at("a", "error", "/src/bug_x.c", 10), at("b", "error", "/src/bug_x.c", 10, 2), at("c", "error", "/src/bug_x.c", 20, 0),
		}, []string{`bad ranks  bug_x.c:10: "a"`, `bad ranks  bug_x.c:10: "b"`}},
		{"fortran", fortran, []finding{
			at("a", "error", "/tmp/testprogs/fortran/bug_f.f90", 28, 0), at("b", "error", "bug_f.f90", 40, 1),
		}, nil},
		{"fortran, another language's file", fortran, []finding{
			at("a", "error", "/tmp/testprogs/local/bug_f.c", 28, 0), at("a", "error", "/src/bug_f.f90", 26, 0), at("b", "error", "bug_f.f90", 40, 1),
		}, []string{`unexpected bug_f.c:28: "a"`, `unexpected bug_f.f90:26: "a"`, `missing    bug_f.f90:28: want "a"`}},
		{"ok clean", ok, nil, nil},
		{"ok with info", ok, []finding{at("z", "info", "", 0, 0)}, []string{`unexpected unknown location: "z"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compare(tt.p, tt.fs)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems %q, want %d %q", len(got), got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d: got %q, want prefix %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestParseProgram checks the header and annotation syntax.
func TestParseProgram(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := parseProgram(write("bug_a.c", "// ranks: 3\n// a comment about // want \"x\" is not one\nf(); // want \"a\" \"b\"\ng(); // want \"c\"  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[int][]string{3: {"a", "b"}, 4: {"c"}}; p.ranks != 3 || !reflect.DeepEqual(p.wants, want) || p.ok {
		t.Errorf("got ranks %d wants %v ok %v, want 3 %v false", p.ranks, p.wants, p.ok, want)
	}
	if p.flags != nil || p.nativeHangs || p.deadlocks() || p.cflags != nil || p.runs != 1 {
		t.Errorf("got flags %q native hangs %v deadlocks %v cflags %q runs %d, want none and 1 run", p.flags, p.nativeHangs, p.deadlocks(), p.cflags, p.runs)
	}
	p, err = parseProgram(write("ok_threads.c", "// ranks: 2\n// cflags: -fopenmp  -lm\n// runs: 20\n#include <mpi.h>\n// runs: 3\nputs(\"ok_threads: OK\");\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"-fopenmp", "-lm"}; !reflect.DeepEqual(p.cflags, want) || p.runs != 20 {
		t.Errorf("got cflags %q runs %d, want %q 20", p.cflags, p.runs, want)
	}
	p, err = parseProgram(write("bug_b.c", "// ranks: 8\n//\n// flags: --buffering=zero  --deadlock-timeout=1s\n// native: hangs\n#include <mpi.h>\n"+
		"// flags: --ignored after the header\n// native: ignored\n// ranks: 99\nf(); // want \"potential-deadlock\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"--buffering=zero", "--deadlock-timeout=1s"}; p.ranks != 8 || !reflect.DeepEqual(p.flags, want) || !p.nativeHangs || !p.deadlocks() {
		t.Errorf("got ranks %d flags %q native hangs %v deadlocks %v, want 8 %q true true", p.ranks, p.flags, p.nativeHangs, p.deadlocks(), want)
	}
	// annotations for one MPI library
	p, err = parseProgram(write("bug_c.c", "// ranks: 2\n// native[openmpi]: hangs\n// skip[mpich]: a reason\n// native[mpich]: crashes\n// mpi: 4 (why)\n// needs: debug-registers\nf(); // want \"a\"\n"+
		"g(); // want[mpich] \"b\" want[openmpi] \"c\" \"d\"\nh(); // want[openmpi] \"deadlock\"\nk(); // related[mpich] \"e\" related[openmpi] \"f\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m := p.forMPI("mpich"); !reflect.DeepEqual(m.wants, map[int][]string{7: {"a"}, 8: {"b"}}) || m.nativeHangs || m.deadlocks() {
		t.Errorf("mpich: got wants %v native hangs %v", m.wants, m.nativeHangs)
	}
	if m := p.forMPI("openmpi"); !reflect.DeepEqual(m.wants, map[int][]string{7: {"a"}, 8: {"c", "d"}, 9: {"deadlock"}}) || !m.nativeHangs || !m.deadlocks() {
		t.Errorf("openmpi: got wants %v native hangs %v", m.wants, m.nativeHangs)
	}
	if a, b := p.forMPI("mpich").related, p.forMPI("openmpi").related; !reflect.DeepEqual(a, map[int][]string{10: {"e"}}) || !reflect.DeepEqual(b, map[int][]string{10: {"f"}}) {
		t.Errorf("got related mpich %v openmpi %v, want line 10's e and f", a, b)
	}
	if len(p.wants) != 1 {
		t.Errorf("forMPI changed the program's own wants: %v", p.wants)
	}
	if !slices.Equal(p.needs, []string{"debug-registers"}) {
		t.Errorf("got needs %q, want debug-registers", p.needs)
	}
	if p.skipFor["mpich"] != "a reason" || p.skipFor["openmpi"] != "" {
		t.Errorf("got skips %v, want mpich's only", p.skipFor)
	}
	if p.mpiVersion != 4 || !p.forMPI("mpich").nativeCrashes || p.forMPI("openmpi").nativeCrashes {
		t.Errorf("got mpi version %d, native crashes mpich %v openmpi %v; want 4, true, false",
			p.mpiVersion, p.forMPI("mpich").nativeCrashes, p.forMPI("openmpi").nativeCrashes)
	}
	for name, src := range map[string]string{
		"bug_badmpi.c":    "// ranks: 2\nf(); // want[lam] \"a\"\n",
		"bug_badskip.c":   "// ranks: 2\n// skip[lam]: why\nf(); // want \"a\"\n",
		"bug_twompi.c":    "// ranks: 2\n// mpi: 4\n// mpi: 3\nf(); // want \"a\"\n",
		"bug_badneeds.c":  "// ranks: 2\n// needs: a-quantum-computer\nf(); // want \"a\"\n",
		"bug_ompialias.c": "// ranks: 2\nf(); // want[ompi] \"a\"\n",
		"bug_noreason.c":  "// ranks: 2\n// skip[openmpi]:\nf(); // want \"a\"\n",
		"bug_badnative.c": "// ranks: 2\n// native[lam]: hangs\nf(); // want \"a\"\n",
		"ok_mpiwant.c":    "// ranks: 2\nf(); // want[mpich] \"a\"\n",
		"bug_noranks.c":   "f(); // want \"a\"\n",
		"bug_toomany.c":   "// ranks: 9\nf(); // want \"a\"\n",
		"bug_toofew.c":    "// ranks: 1\nf(); // want \"a\"\n",
		"bug_late.c":      "#include <mpi.h>\n// ranks: 2\nf(); // want \"a\"\n",
		"bug_twice.c":     "// ranks: 2\n// ranks: 3\nf(); // want \"a\"\n",
		"bug_noflag.c":    "// ranks: 2\n// flags:\nf(); // want \"a\"\n",
		"bug_badflag.c":   "// ranks: 2\n// flags: buffering=zero\nf(); // want \"a\"\n",
		"bug_native.c":    "// ranks: 2\n// native: crashes\nf(); // want \"a\"\n",
		"ok_hangs.c":      "// ranks: 2\n// native: hangs\n",
		"ok_cflag.c":      "// ranks: 2\n// cflags: -O3\n",
		"ok_nocflag.c":    "// ranks: 2\n// cflags:\n",
		"ok_twocflags.c":  "// ranks: 2\n// cflags: -pthread\n// cflags: -lm\n",
		"ok_runszero.c":   "// ranks: 2\n// runs: 0\n",
		"ok_runsword.c":   "// ranks: 2\n// runs: many\n",
		"ok_runsmany.c":   "// ranks: 2\n// runs: 1000\n",
		"ok_tworuns.c":    "// ranks: 2\n// runs: 2\n// runs: 3\n",
		"bug_nowant.c":    "// ranks: 2\nf();\n",
		"bug_badwant.c":   "// ranks: 2\nf(); // want a\n",
		"ok_withwant.c":   "// ranks: 2\nf(); // want \"a\"\n",
		"other_named.c":   "// ranks: 2\n",
		"ok_nookline.c":   "// ranks: 2\nputs(\"ok_other: OK\");\n",
	} {
		if strings.HasPrefix(name, "ok_") && name != "ok_nookline.c" {
			// an ok_ program prints its OK line: that is not what is wrong here
			src += "puts(\"" + strings.TrimSuffix(name, ".c") + ": OK\");\n"
		}
		if _, err := parseProgram(write(name, src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestParseLanguages checks the header and annotation syntax of Fortran
// (comments start with !) and C++ (// as in C): the same forms as C's
// with the language's comment marker, and no other.
func TestParseLanguages(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := parseProgram(write("bug_ring.f90", `! ranks: 3
!
! flags: --buffering=zero
! cflags: -fopenmp
! runs: 2
! native[mpich]: hangs
! skip[openmpi]: why not
! mpi: 4
! a comment about ! want "x" is not one
program bug_ring
    use mpi
    ! ranks: 99 is no header line after the first line of code
    call MPI_Send(buf, 1, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, ierr) ! want "type-mismatch" "MPI_INTEGER .* MPI_REAL"
    call MPI_Recv(buf, 1, MPI_REAL, 0, 0, &
                  MPI_COMM_WORLD, status, ierr) ! want[mpich] "deadlock" want[openmpi] "potential-deadlock"
    call MPI_Isend(buf, 4, MPI_INTEGER, 1, 0, MPI_COMM_WORLD, req, ierr)  !  related "send-buffer-write"
    buf(1) = 0 ! want "send-buffer-write"
    x = 1 // want "not-c"
end program bug_ring
`))
	if err != nil {
		t.Fatal(err)
	}
	if p.name != "bug_ring" || p.lang != langFortran || p.ranks != 3 || p.runs != 2 || p.mpiVersion != 4 || p.usesRMA || p.ok {
		t.Errorf("got name %q lang %v ranks %d runs %d mpi %d rma %v ok %v, want bug_ring Fortran 3 2 4 false false",
			p.name, p.lang.name, p.ranks, p.runs, p.mpiVersion, p.usesRMA, p.ok)
	}
	if !reflect.DeepEqual(p.flags, []string{"--buffering=zero"}) || !reflect.DeepEqual(p.cflags, []string{"-fopenmp"}) || p.skipFor["openmpi"] != "why not" {
		t.Errorf("got flags %q cflags %q skips %v", p.flags, p.cflags, p.skipFor)
	}
	if m := p.forMPI("mpich"); !reflect.DeepEqual(m.wants, map[int][]string{13: {"type-mismatch"}, 15: {"deadlock"}, 17: {"send-buffer-write"}}) || !m.nativeHangs {
		t.Errorf("mpich: got wants %v native hangs %v", m.wants, m.nativeHangs)
	}
	if m := p.forMPI("openmpi"); !reflect.DeepEqual(m.wants, map[int][]string{13: {"type-mismatch"}, 15: {"potential-deadlock"}, 17: {"send-buffer-write"}}) || m.nativeHangs {
		t.Errorf("openmpi: got wants %v native hangs %v", m.wants, m.nativeHangs)
	}
	if ms := p.msgs[13]; len(ms) != 1 || ms[0].id != "type-mismatch" || ms[0].re.String() != "MPI_INTEGER .* MPI_REAL" {
		t.Errorf("got messages %v at line 13", ms)
	}
	if !reflect.DeepEqual(p.related, map[int][]string{16: {"send-buffer-write"}}) {
		t.Errorf("got related %v", p.related)
	}
	// Fortran ignores case: mpi_win_fence is MPI_Win_fence
	p, err = parseProgram(write("ok_win.f90", "! ranks: 2\nprogram ok_win\n  call mpi_win_fence(0, win, ierr)\n  write (*, '(a)') 'ok_win: OK'\nend program\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !p.usesRMA || !p.ok || p.name != "ok_win" {
		t.Errorf("got rma %v ok %v name %q, want true true ok_win", p.usesRMA, p.ok, p.name)
	}
	p, err = parseProgram(write("bug_vec.cpp", "// ranks: 4\n// native: hangs\n#include <mpi.h>\n#include <vector>\n"+
		"    MPI_Send(v.data(), int(v.size()), MPI_INT, 1, 0, comm); // want \"deadlock\"\n    x = 1; ! want \"not-fortran\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.name != "bug_vec" || p.lang != langCxx || p.ranks != 4 || !p.nativeHangs || !reflect.DeepEqual(p.wants, map[int][]string{5: {"deadlock"}}) {
		t.Errorf("got name %q lang %s ranks %d native hangs %v wants %v, want bug_vec C++ 4 true map[5:[deadlock]]", p.name, p.lang.name, p.ranks, p.nativeHangs, p.wants)
	}
	for name, src := range map[string]string{
		"bug_cmarker.f90":   "// ranks: 2\nprogram p\n  call f() ! want \"a\"\nend program\n",
		"bug_cwant.f90":     "! ranks: 2\nprogram p\n  call f() // want \"a\"\nend program\n",
		"bug_continued.f90": "! ranks: 2\nprogram p\n  call f(a, & ! want \"a\"\n         b)\nend program\n",
		"bug_badwant.f90":   "! ranks: 2\nprogram p\n  call f() ! want a\nend program\n",
		"bug_badrel.f90":    "! ranks: 2\nprogram p\n  call f() ! related a\n  x = 1 ! want \"a\"\nend program\n",
		"ok_want.f90":       "! ranks: 2\nprogram ok_want\n  call f() ! want \"a\"\n  print '(a)', 'ok_want: OK'\nend program\n",
		"ok_noline.f90":     "! ranks: 2\nprogram ok_noline\n  print *, 'ok_noline', ': OK'\nend program\n",
		"ok_late.f90":       "program ok_late\n! ranks: 2\n  print '(a)', 'ok_late: OK'\nend program\n",
		"bug_fmarker.cpp":   "! ranks: 2\nint main() { f(); } // want \"a\"\n",
		"bug_fixed.f":       "! ranks: 2\n      call f() ! want \"a\"\n",
		"bug_upper.F90":     "! ranks: 2\n  call f() ! want \"a\"\n",
		"bug_cxx.cc":        "// ranks: 2\nf(); // want \"a\"\n",
	} {
		if _, err := parseProgram(write(name, src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestUCXLogLine checks which lines of a bug program's native output are
// taken for UCX's own.
func TestUCXLogLine(t *testing.T) {
	out := "[1795358518.709923] [vm:32167:0]       tag_match.c:62   UCX  WARN  unexpected tag-receive descriptor 0x563c9bb7e140 was not matched\n" +
		"rank 1: 42\n" +
		"[1795358523.098074] [vm:32527:0]       tag_match.c:62   UCX  WARN  unexpected tag-receive descriptor 0x55d7ea2a7140 was not matched"
	if got, want := ucxLogLine.ReplaceAllString(out, ""), "rank 1: 42\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestWantMessage checks want annotations with a message regexp: how
// they parse (for every library and for one), and that a finding whose
// message the regexp does not match fails.
func TestWantMessage(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, err := parseProgram(write("bug_msg.c", "// ranks: 2\n"+
		"f(); // want \"type-mismatch\" \"sends .* where rank 1 receives\"\n"+
		"g(); // want \"a\" \"b\" \"count (\\d+)\" \"c\"\n"+
		"h(); // want[mpich] \"d\" \"MPICH's words\" want[openmpi] \"d\" \"Open MPI's words\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	msgs := func(q program) map[int]string {
		out := map[int]string{}
		for l, ms := range q.msgs {
			for _, m := range ms {
				out[l] += m.id + "=" + m.re.String() + ";"
			}
		}
		return out
	}
	if want := map[int][]string{2: {"type-mismatch"}, 3: {"a", "b", "c"}}; !reflect.DeepEqual(p.wants, want) {
		t.Errorf("got wants %v, want %v", p.wants, want)
	}
	if got, want := msgs(p.forMPI("mpich")), map[int]string{2: "type-mismatch=sends .* where rank 1 receives;", 3: `b=count (\d+);`, 4: "d=MPICH's words;"}; !reflect.DeepEqual(got, want) {
		t.Errorf("mpich: got messages %q, want %q", got, want)
	}
	if got := msgs(p.forMPI("openmpi"))[4]; got != "d=Open MPI's words;" {
		t.Errorf("openmpi: got messages %q at line 4", got)
	}
	for name, src := range map[string]string{
		"bug_msgfirst.c":   "// ranks: 2\nf(); // want \"no id before\"\n",
		"bug_twomsgs.c":    "// ranks: 2\nf(); // want \"a\" \"one message\" \"another one\"\n",
		"bug_badregexp.c":  "// ranks: 2\nf(); // want \"a\" \"unclosed (paren\"\n",
		"bug_mpimsgonly.c": "// ranks: 2\nf(); // want[mpich] \"a message\"\n",
	} {
		if _, err := parseProgram(write(name, src)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}

	q := p.forMPI("mpich")
	at := func(id string, line int, msg string) finding {
		return finding{ID: id, Severity: "error", Ranks: []int{0}, Message: msg, Location: location{File: "/src/bug_msg.c", Line: line}}
	}
	good := []finding{
		at("type-mismatch", 2, "rank 0 sends 4 MPI_INT where rank 1 receives 4 MPI_FLOAT"),
		at("a", 3, "x"), at("b", 3, "count 7"), at("c", 3, "y"), at("d", 4, "in MPICH's words"),
	}
	if got := compare(q, good); len(got) != 0 {
		t.Errorf("matching messages: got problems %q", got)
	}
	bad := slices.Clone(good)
	bad[0] = at("type-mismatch", 2, "rank 0 sends 4 MPI_INT where rank 2 receives 4 MPI_FLOAT")
	got := compare(q, bad)
	if len(got) != 1 || !strings.HasPrefix(got[0], `message    bug_msg.c:2: want a "type-mismatch" finding whose message matches "sends .* where rank 1 receives"; got "rank 0 sends`) {
		t.Errorf("a message the regexp does not match: got problems %q", got)
	}
	// one of two findings with the id at the line matching is enough
	if got := compare(q, append(slices.Clone(bad), good[0])); len(got) != 0 {
		t.Errorf("one matching message of two: got problems %q", got)
	}
	// a missing finding is reported once, as missing
	if got := compare(q, good[1:]); len(got) != 1 || !strings.HasPrefix(got[0], "missing    bug_msg.c:2") {
		t.Errorf("missing finding: got problems %q", got)
	}
}
