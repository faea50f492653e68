package gdbmi

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/testenv"
)

const stepProgram = `int counter;

int main(void)
{
    counter = 41;
    counter++;
    return counter == 42 ? 0 : 1;
}
`

// needTools skips without gdb or a C compiler, unless the run requires
// them (MPIDBG_REQUIRE_MPI, as make test sets).
func needTools(t *testing.T) (gdb, cc string) {
	t.Helper()
	gdb = testenv.NeedTool(t, testenv.RequireMPI, "gdb", "apt-get install gdb")
	cc = testenv.NeedTool(t, testenv.RequireMPI, "cc", "apt-get install gcc")
	return gdb, cc
}

// TestClient runs a real gdb over MI: a breakpoint, a run that stops on
// it (an out-of-band *stopped record), an expression, an error answer,
// and the exit.
func TestClient(t *testing.T) {
	gdb, cc := needTools(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "step.c")
	exe := filepath.Join(dir, "step")
	if err := os.WriteFile(src, []byte(stepProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	stops := make(chan Record, 8)
	c, err := Start([]string{gdb, "-nx", exe}, func(r Record) {
		if r.Kind == ExecRecord && r.Class == "stopped" {
			stops <- r
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer c.Close(ctx)

	r, err := c.Send(ctx, "-break-insert step.c:6")
	if err != nil || r.Results.Tuple("bkpt").String("line") != "6" {
		t.Fatalf("-break-insert: %+v %v", r, err)
	}
	if r, err = c.Send(ctx, "-exec-run"); err != nil || r.Class != "running" {
		t.Fatalf("-exec-run: %+v %v", r, err)
	}
	select {
	case s := <-stops:
		if s.Results.String("reason") != "breakpoint-hit" || s.Results.Tuple("frame").String("line") != "6" {
			t.Errorf("stopped: %+v", s.Results)
		}
	case <-ctx.Done():
		t.Fatal("no *stopped record")
	}
	if r, err = c.Send(ctx, "-data-evaluate-expression counter"); err != nil || r.Results.String("value") != "41" {
		t.Errorf("counter: %+v %v", r, err)
	}
	_, err = c.Send(ctx, "-data-evaluate-expression nosuch")
	var e *ErrorRecord
	if !errors.As(err, &e) || e.Msg != `No symbol "nosuch" in current context.` {
		t.Errorf("an unknown symbol: %v", err)
	}
	if _, err = c.Send(ctx, "-exec-continue"); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-stops:
		if s.Results.String("reason") != "exited-normally" {
			t.Errorf("stopped: %+v", s.Results)
		}
	case <-ctx.Done():
		t.Fatal("the program did not exit")
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := c.Send(ctx, "-gdb-version"); err == nil {
		t.Error("a command after gdb exited succeeded")
	}
}

func TestClientBadCommand(t *testing.T) {
	gdb, _ := needTools(t)
	c, err := Start([]string{gdb, "-nx"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	defer c.Close(ctx)
	if _, err := c.Send(ctx, "-gdb-version\n-gdb-exit"); err == nil {
		t.Error("a command with a newline was sent")
	}
	if _, err := Start([]string{filepath.Join(t.TempDir(), "no-gdb")}, nil); err == nil {
		t.Error("starting a missing gdb succeeded")
	}
}
