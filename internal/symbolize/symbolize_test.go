package symbolize

import (
	"debug/elf"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/testenv"
)

// prog calls report() from caller() on callLine; report prints the
// return address minus the executable's load bias, the way the shim
// computes a Site.
const prog = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

__attribute__((noinline)) void report(void) {
	void *ra = __builtin_return_address(0);
	Dl_info info;
	struct link_map *lm = NULL;
	if (!dladdr1(ra, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return;
	printf("%lx\n", (unsigned long)((uintptr_t)ra - lm->l_addr));
}

__attribute__((noinline)) void caller(void) {
	int unused = 1;
	report(); /* callLine */
	(void)unused;
}

int main(void) {
	caller();
	return 0;
}
`

const callLine = 17

// build compiles prog with gcc and extra flags, runs it, and returns the
// executable's path and the offset it printed.
func build(t *testing.T, dir, name string, flags ...string) (string, uint64) {
	t.Helper()
	testenv.NeedTool(t, "", "gcc", "apt-get install gcc")
	src := filepath.Join(dir, "prog.c")
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, name)
	args := append([]string{"-O0", "-o", exe, src}, flags...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatalf("%s: %v", exe, err)
	}
	off, err := strconv.ParseUint(strings.TrimSpace(string(out)), 16, 64)
	if err != nil {
		t.Fatalf("%s printed %q: %v", exe, out, err)
	}
	return exe, off
}

func strip(t *testing.T, exe, name string, flags ...string) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(exe), name)
	args := append(flags, "-o", out, exe)
	if b, err := exec.Command("strip", args...).CombinedOutput(); err != nil {
		t.Skipf("strip: %v\n%s", err, b)
	}
	return out
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	if strings.Contains(prog, "\r") || !strings.Contains(strings.Split(prog, "\n")[callLine-1], "callLine") {
		t.Fatalf("callLine %d does not point at the call in prog", callLine)
	}
	pie, pieOff := build(t, dir, "pie", "-g", "-fPIE", "-pie")
	nopie, nopieOff := build(t, dir, "nopie", "-g", "-fno-pie", "-no-pie")
	rdyn, rdynOff := build(t, dir, "rdyn", "-g", "-rdynamic")
	src := filepath.Join(dir, "prog.c")
	if lang := New().Language(checks.Site{Module: pie, Offset: pieOff}); lang != LangC {
		t.Errorf("language: got %v, want C", lang)
	}
	tests := []struct {
		name   string
		site   checks.Site
		want   checks.Location
		errIs  error
		modErr bool
	}{
		{"pie", checks.Site{Module: pie, Offset: pieOff}, checks.Location{File: src, Line: callLine, Function: "caller"}, nil, false},
		{"no_pie", checks.Site{Module: nopie, Offset: nopieOff}, checks.Location{File: src, Line: callLine, Function: "caller"}, nil, false},
		{"no_debug_info", checks.Site{Module: strip(t, pie, "nodebug", "--strip-debug"), Offset: pieOff}, checks.Location{Function: "caller"}, nil, false},
		{"stripped", checks.Site{Module: strip(t, pie, "stripped", "--strip-all"), Offset: pieOff}, checks.Location{}, ErrNotFound, false},
		{"stripped_dynamic_symbols", checks.Site{Module: strip(t, rdyn, "rdynstripped", "--strip-all"), Offset: rdynOff}, checks.Location{Function: "caller"}, nil, false},
		{"outside", checks.Site{Module: pie, Offset: 1 << 40}, checks.Location{}, ErrNotFound, false},
		{"missing_file", checks.Site{Module: filepath.Join(dir, "nonexistent"), Offset: 10}, checks.Location{}, os.ErrNotExist, true},
		{"not_elf", checks.Site{Module: src, Offset: 10}, checks.Location{}, nil, true},
		{"no_module", checks.Site{Offset: 10}, checks.Location{}, nil, true},
		{"directory", checks.Site{Module: dir, Offset: 10}, checks.Location{}, nil, true},
	}
	r := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 2 { // the second answer comes from the cache
				got, err := r.Resolve(tt.site)
				if got != tt.want {
					t.Errorf("got %+v, want %+v", got, tt.want)
				}
				wantErr := tt.errIs != nil || tt.modErr
				if (err != nil) != wantErr {
					t.Fatalf("got error %v, want error %v", err, wantErr)
				}
				if tt.errIs != nil && !errors.Is(err, tt.errIs) {
					t.Errorf("got error %v, want one wrapping %v", err, tt.errIs)
				}
				var me *ModuleError
				if errors.As(err, &me) != tt.modErr {
					t.Errorf("got error %v (%T), want a ModuleError: %v", err, err, tt.modErr)
				}
				if err != nil && strings.Contains(err.Error(), "\n") {
					t.Errorf("error %q spans lines", err)
				}
			}
		})
	}
}

// TestMalformed: truncated and corrupted ELF files give errors, never a
// panic.
func TestMalformed(t *testing.T) {
	dir := t.TempDir()
	exe, off := build(t, dir, "pie", "-g")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	r := New()
	for _, n := range []int{0, 4, 64, 200, len(data) / 2, len(data) - 100} {
		p := filepath.Join(dir, "trunc"+strconv.Itoa(n))
		if err := os.WriteFile(p, data[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		r.Resolve(checks.Site{Module: p, Offset: off}) // must return
	}
	for i := 0; i < len(data); i += len(data) / 97 {
		bad := append([]byte(nil), data...)
		for j := i; j < min(i+64, len(bad)); j++ {
			bad[j] ^= 0xa5
		}
		p := filepath.Join(dir, "corrupt"+strconv.Itoa(i))
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		r.Resolve(checks.Site{Module: p, Offset: off})
	}
}

// TestSeparateDebug: the DWARF of a module whose debug information was
// moved to a separate file is found by the module's build id under a
// debug directory, and by its .gnu_debuglink beside it, in .debug beside
// it and under a debug directory; a debug link whose CRC does not match
// is not followed.
func TestSeparateDebug(t *testing.T) {
	objcopy := testenv.NeedTool(t, "", "objcopy", "apt-get install binutils")
	dir := t.TempDir()
	exe, off := build(t, dir, "full", "-g", "-Wl,--build-id")
	src := filepath.Join(dir, "prog.c")
	want := checks.Location{File: src, Line: callLine, Function: "caller"}
	run := func(args ...string) {
		t.Helper()
		if b, err := exec.Command(objcopy, args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	// full.debug: the debug information alone
	debug := filepath.Join(dir, "full.debug")
	run("--only-keep-debug", exe, debug)

	// by build id: a stripped copy, the debug file under DIR/.build-id
	byID := filepath.Join(dir, "byid")
	os.Mkdir(byID, 0o755)
	stripped := strip(t, exe, "byid/prog", "--strip-debug")
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	id := buildID(t, f)
	f.Close()
	debugDir := filepath.Join(dir, "usr-lib-debug")
	idPath := filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug")
	os.MkdirAll(filepath.Dir(idPath), 0o755)
	copyFile(t, debug, idPath)
	r := New()
	r.DebugDirs = []string{debugDir}
	if got, err := r.Resolve(checks.Site{Module: stripped, Offset: off}); err != nil || got != want {
		t.Errorf("by build id: got %+v, %v; want %+v", got, err, want)
	}
	if got, _ := New().Resolve(checks.Site{Module: stripped, Offset: off}); got.File != "" {
		t.Errorf("by build id without the debug directory: got %+v, want no file", got)
	}

	// by debug link: a copy without build id, linked to prog.debug
	for _, place := range []string{"beside", "dotdebug", "debugdir", "badcrc"} {
		t.Run(place, func(t *testing.T) {
			d := filepath.Join(dir, place)
			os.Mkdir(d, 0o755)
			mod := filepath.Join(d, "prog")
			run("--strip-debug", "--remove-section=.note.gnu.build-id", exe, mod)
			linked := filepath.Join(t.TempDir(), "prog.debug")
			copyFile(t, debug, linked)
			run("--add-gnu-debuglink="+linked, mod)
			r := New()
			r.DebugDirs = []string{filepath.Join(dir, "debugroot")}
			switch place {
			case "beside":
				copyFile(t, linked, filepath.Join(d, "prog.debug"))
			case "dotdebug":
				os.Mkdir(filepath.Join(d, ".debug"), 0o755)
				copyFile(t, linked, filepath.Join(d, ".debug", "prog.debug"))
			case "debugdir":
				to := filepath.Join(dir, "debugroot", d, "prog.debug")
				os.MkdirAll(filepath.Dir(to), 0o755)
				copyFile(t, linked, to)
			case "badcrc":
				b, _ := os.ReadFile(linked)
				b = append(b, 0) // another file under the same name
				os.WriteFile(filepath.Join(d, "prog.debug"), b, 0o644)
			}
			got, err := r.Resolve(checks.Site{Module: mod, Offset: off})
			if place == "badcrc" {
				if err != nil || got.File != "" || got.Function != "caller" {
					t.Errorf("got %+v, %v; want the symbol table's answer alone", got, err)
				}
				return
			}
			if err != nil || got != want {
				t.Errorf("got %+v, %v; want %+v", got, err, want)
			}
		})
	}
}

func buildID(t *testing.T, f *elf.File) string {
	t.Helper()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		t.Skip("the linker wrote no build id")
	}
	note, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	namesz := int(f.ByteOrder.Uint32(note[0:]))
	descsz := int(f.ByteOrder.Uint32(note[4:]))
	start := 12 + (namesz+3)&^3
	return hex.EncodeToString(note[start : start+descsz])
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
