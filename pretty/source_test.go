package pretty

import (
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
	"github.com/mpidbg/mpidbg/internal/golden"
	"github.com/mpidbg/mpidbg/internal/testenv"
	"github.com/mpidbg/mpidbg/run/report"
	"github.com/muesli/termenv"
)

// sourceFindings are findings in the files of testdata/src (read relative
// to testdata, as a report shows them relative to the working directory):
// a ring's type mismatch in one MPI_Sendrecv (both sides on one line), a
// receive over three lines, a buffer race whose place is a store, two on
// a long line, Fortran and mpi4py calls, and a file that does not exist.
func sourceFindings() []report.Finding {
	at := func(file string, line int) checks.Location {
		return checks.Location{File: file, Line: line, Function: "ring"}
	}
	// the entries as written here, not the catalogue's, which has a life
	// of its own
	entries := map[string]checks.Entry{
		"type-mismatch": {Category: checks.CatTypeMismatch, Severity: checks.SevError,
			Rule: "MPI-4.1 §3.3.1: the type signature of the send must match that of the receive, basic type for basic type"},
		"send-buffer-write": {Category: checks.CatBufferRace, Severity: checks.SevError,
			Rule: "MPI-4.1 §3.7.2: the send buffer must not be modified until the send completes"},
		"type-null":           {Category: checks.CatDatatypeLifecycle, Severity: checks.SevError, Rule: "MPI-4.1 §5.1: MPI_DATATYPE_NULL is not a datatype"},
		"collective-mismatch": {Category: checks.CatCollective, Severity: checks.SevError, Rule: "MPI-4.1 §6.1: every rank calls the same collectives in the same order"},
		"message-race":        {Category: checks.CatMessageRace, Severity: checks.SevWarning, Rule: "MPI-4.1 §3.5: the message a wildcard receive matches depends on arrival order"},
	}
	f := func(id, call, arg, msg string, loc checks.Location, ranks ...int) report.Finding {
		e := entries[id]
		return report.Finding{Finding: checks.Finding{ID: id, Category: e.Category, Severity: e.Severity, Message: msg,
			Ranks: ranks, Call: call, Arg: arg, Location: loc, Rule: e.Rule}, Count: len(ranks)}
	}
	all := make([]int, 64)
	for i := range all {
		all[i] = i
	}
	ring := f("type-mismatch", "MPI_Sendrecv", "recvtype",
		"rank r-1 sends (STRUCT)[0][0](INT) where rank r receives MPI_DOUBLE[0]: element 0 (packed byte 0) of the message is MPI_INT on the sending side and MPI_DOUBLE on the receiving side (1 x struct([1,3,8],[0,8,32],[INT,DOUBLE,CHAR]) sent, 5 x MPI_DOUBLE received)",
		at("src/ring.c", 16), all...)
	ring.Pattern = "each rank r receives from r-1; ranks 0-63"
	ring.Path = "MPI_DOUBLE[0]"
	ring.Related = []checks.Related{
		{Message: "rank r-1 sent the message with MPI_Sendrecv", Call: "MPI_Sendrecv", Arg: "sendtype", Location: at("src/ring.c", 16)},
		{Message: "datatype made here by MPI_Type_create_struct", Location: at("src/ring.c", 12)},
	}
	recv := f("type-mismatch", "MPI_Recv", "datatype", "rank 1 sends MPI_INT[0] where rank 0 receives MPI_DOUBLE[0]", at("src/ring.c", 20), 0)
	// another rank at the same argument of the same call: one mark, one label
	recv.Related = []checks.Related{{Message: "rank 2 receives the same way here", Call: "MPI_Recv", Arg: "datatype", Location: at("src/ring.c", 20)}}
	race := f("send-buffer-write", "MPI_Isend", "", "MPI_Isend: store to the send buffer (1 x t) at offset 0 before the send completed", at("src/ring.c", 23), 1)
	race.Related = []checks.Related{{Message: "the MPI_Isend started here", Call: "MPI_Isend", Arg: "buf", Location: at("src/ring.c", 22)}}
	long := f("type-null", "MPI_Alltoallw", "recvtypes", "MPI_Alltoallw: recvtypes[3] is MPI_DATATYPE_NULL", at("src/ring.c", 25), 2)
	coll := f("collective-mismatch", "MPI_Alltoallw", "", "the ranks of the communicator disagree: rank 0 MPI_Alltoallw; rank 1 MPI_Barrier", at("src/ring.c", 25), 0)
	fortran := f("type-mismatch", "MPI_Sendrecv", "recvtype", "rank 0 sends MPI_INTEGER[0] where rank 1 receives MPI_DOUBLE_PRECISION[0]", at("src/ring.f90", 13), 1)
	fortran.Related = []checks.Related{{Message: "rank 0 sent the message with MPI_Sendrecv", Call: "MPI_Sendrecv", Arg: "sendtype", Location: at("src/ring.f90", 12)}}
	fkw := f("message-race", "MPI_Recv", "source", "MPI_Recv(MPI_ANY_SOURCE) can match the message of rank 1 or of rank 2 (tag 0); it took rank 1's", at("src/ring.f90", 14), 0)
	py := f("message-race", "MPI_Recv", "source", "MPI_Recv(MPI_ANY_SOURCE) can match the message of rank 1 or of rank 2 (tag 0); it took rank 1's", at("src/ring.py", 6), 0)
	py.Related = []checks.Related{{Message: "rank 1 sent the message it took with MPI_Send", Call: "MPI_Send", Arg: "datatype", Location: at("src/ring.py", 8)}}
	missing := f("type-null", "MPI_Send", "datatype", "MPI_Send: datatype is MPI_DATATYPE_NULL", at("src/missing.c", 3), 0)
	return []report.Finding{ring, recv, race, long, coll, fortran, fkw, py, missing}
}

func renderFindings(r *Renderer) string {
	var b strings.Builder
	for i, f := range sourceFindings() {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.finding(f, "testdata"))
	}
	return b.String()
}

// TestSource pins the findings' blocks with their source lines: plain,
// coloured, and wrapped to 60 columns.
func TestSource(t *testing.T) {
	tests := []struct {
		name string
		r    *Renderer
	}{
		{"plain", Plain().WithWidth(100)},
		{"color", NewProfile(termenv.ANSI).WithWidth(100)},
		{"width_60", Plain().WithWidth(60)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderFindings(tt.r)
			if esc := strings.Contains(got, "\x1b"); esc != (tt.name == "color") {
				t.Errorf("escape sequences: %v, want %v", esc, tt.name == "color")
			}
			golden.Check(t, got)
		})
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// TestWrapWidth: at every width, no line of a finding's text is longer
// than the width unless it is one word (or a source line, trimmed to the
// width), no word is broken, and the words are those of the message.
func TestWrapWidth(t *testing.T) {
	for _, width := range []int{40, 60, 80, 100} {
		for _, r := range []*Renderer{Plain().WithWidth(width), NewProfile(termenv.ANSI256).WithWidth(width)} {
			got := ansi.ReplaceAllString(renderFindings(r), "")
			for _, line := range strings.Split(got, "\n") {
				n := len([]rune(line))
				if n > width && strings.Contains(strings.TrimSpace(line), " ") && !strings.Contains(line, " | ") {
					t.Errorf("width %d: line of %d columns: %q", width, n, line)
				}
			}
			for _, f := range sourceFindings() {
				msg := strings.Join(strings.Fields(strings.TrimPrefix(f.Message, f.Call+": ")), " ")
				if !strings.Contains(strings.Join(strings.Fields(got), " "), msg) {
					t.Errorf("width %d: the message %q is not in the output, word for word", width, msg)
				}
			}
		}
	}
}

// TestWrapWords: styled text wraps at spaces only, keeps each fragment's
// style, begins further lines with the indentation, and never wraps
// without a width.
func TestWrapWords(t *testing.T) {
	r := Plain().WithWidth(20)
	got := r.wrap([]piece{{text: "one two three four five six"}, {" at ", &r.dim}, {text: "file.c:12"}}, 2, 4)
	want := "one two three four\n    five six at\n    file.c:12"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := r.wrap([]piece{{text: "a_very_long_word_that_does_not_fit here"}}, 2, 2); got != "a_very_long_word_that_does_not_fit\n  here" {
		t.Errorf("a long word: got %q", got)
	}
	if got := Plain().wrap([]piece{{text: strings.Repeat("word ", 50)}}, 0, 2); strings.Contains(got, "\n") {
		t.Errorf("no width, yet wrapped: %q", got)
	}
	c := NewProfile(termenv.ANSI).WithWidth(8)
	if got := c.wrap([]piece{{"alpha beta", &c.bad}}, 0, 0); got != c.bad.Render("alpha")+"\n"+c.bad.Render("beta") {
		t.Errorf("styled: got %q", got)
	}
}

// TestFindCall finds calls and arguments the way programs write them.
func TestFindCall(t *testing.T) {
	tests := []struct {
		name      string
		src       []string
		line      int
		call, arg string
		l         lang
		want      string // the marked text
	}{
		{"c", []string{"MPI_Send(buf, n, MPI_INT, 1, 0, comm);"}, 0, "MPI_Send", "datatype", langC, "MPI_INT"},
		{"c nested", []string{"x = MPI_Send(f(a, b), g[1, 2], (MPI_Datatype)t, 1, 0, comm);"}, 0, "MPI_Send", "datatype", langC, "(MPI_Datatype)t"},
		{"c string and comment", []string{`MPI_Send("a,b", /* c, d */ 2, T, 1, 0, comm); // e, f`}, 0, "MPI_Send", "datatype", langC, "T"},
		{"c later line", []string{"MPI_Recv(buf,", "  4, MPI_INT,", "  0, 0, comm, &st);"}, 2, "MPI_Recv", "datatype", langC, "MPI_INT"},
		{"c not a call", []string{"MPI_Send_init(buf, n, T, 1, 0, comm, &r);"}, 0, "MPI_Send", "datatype", langC, ""},
		{"c unknown argument", []string{"MPI_Send(buf, n);"}, 0, "MPI_Send", "datatype", langC, "MPI_Send"},
		{"c no argument", []string{"MPI_Barrier(comm);"}, 0, "MPI_Barrier", "", langC, "MPI_Barrier"},
		{"fortran", []string{"call mpi_send(buf, n, MPI_INTEGER, 1, 0, comm, ierr)"}, 0, "MPI_Send", "datatype", langFortran, "MPI_INTEGER"},
		{"fortran continued", []string{"call MPI_SEND(buf, n, &", "  & MPI_REAL, 1, 0, comm, ierr)"}, 1, "MPI_Send", "datatype", langFortran, "MPI_REAL"},
		{"fortran keyword", []string{"call MPI_Send(buf, n, datatype=MPI_REAL, dest=1, tag=0, comm=comm)"}, 0, "MPI_Send", "dest", langFortran, "1"},
		{"fixed form", []string{"      CALL MPI_SEND(BUF, N, MPI_REAL,", "     &              1, 0, COMM, IERR)"}, 1, "MPI_Send", "dest", langFixedFortran, "1"},
		{"python keyword", []string{"comm.Recv([buf, MPI.INT], source=MPI.ANY_SOURCE)"}, 0, "MPI_Recv", "source", langPython, "MPI.ANY_SOURCE"},
		{"python positional", []string{"comm.Recv([buf, MPI.INT], 0)"}, 0, "MPI_Recv", "source", langPython, "Recv"},
		{"python datatype", []string{"comm.Recv([buf, MPI.INT], source=0)"}, 0, "MPI_Recv", "datatype", langPython, "MPI.INT"},
		{"python datatype with count", []string{"comm.Send(buf=[data, 4, MPI.DOUBLE], dest=1)"}, 0, "MPI_Send", "datatype", langPython, "MPI.DOUBLE"},
		{"python buffer alone", []string{"comm.Recv(buf, source=0)"}, 0, "MPI_Recv", "datatype", langPython, "Recv"},
		{"python recvbuf by position", []string{"comm.Sendrecv([a, MPI.INT], 1, 0, [b, MPI.INT], 0, 0)"}, 0, "MPI_Sendrecv", "recvtype", langPython, "Sendrecv"},
		{"python recvbuf by keyword", []string{"comm.Sendrecv([a, MPI.INT], 1, 0, recvbuf=[b, MPI.DOUBLE])"}, 0, "MPI_Sendrecv", "recvtype", langPython, "MPI.DOUBLE"},
		{"python method", []string{"sub = comm.Split(color, key)"}, 0, "MPI_Comm_split", "color", langPython, "Split"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, ok := findCall(tt.src, tt.line, tt.call, tt.l)
			got := ""
			if ok {
				at := cs.name
				if a, ok := cs.argSpan(tt.src, tt.call, tt.arg, tt.l); ok {
					at = a
				}
				got = tt.src[at.line][at.col:at.end]
			}
			if got != tt.want {
				t.Errorf("marked %q, want %q", got, tt.want)
			}
		})
	}
}

// TestTrim keeps the mark and its label in view on a long line.
func TestTrim(t *testing.T) {
	text := []rune(strings.Repeat("a", 100) + "MARK" + strings.Repeat("b", 100))
	out, ms := trim(text, []lineMark{{col: 100, end: 104, label: "lbl"}}, 40)
	if len(out) > 40 || len(ms) != 1 || string(out[ms[0].col:ms[0].end]) != "MARK" {
		t.Errorf("got %q, marks %+v", string(out), ms)
	}
	if !strings.HasPrefix(string(out), "...") || !strings.HasSuffix(string(out), "...") {
		t.Errorf("no dots where cut: %q", string(out))
	}
}

// TestOutputWidth: on a terminal, COLUMNS, else the terminal's width;
// elsewhere 100, whatever COLUMNS says.
func TestOutputWidth(t *testing.T) {
	t.Setenv(envvar.Columns, "72")
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := outputWidth(f); got != 100 {
		t.Errorf("a file: width %d, want 100", got)
	}
	pty := testenv.Pty(t)
	ws := struct{ rows, cols, x, y uint16 }{24, 93, 0, 0}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws))); e != 0 {
		t.Skipf("TIOCSWINSZ: %v", e)
	}
	if got := outputWidth(pty); got != 72 {
		t.Errorf("a terminal with COLUMNS=72: width %d", got)
	}
	t.Setenv(envvar.Columns, "")
	if got := outputWidth(pty); got != 93 {
		t.Errorf("a terminal of 93 columns: width %d", got)
	}
	if got := New(pty, false).width; got != 93 {
		t.Errorf("New on a terminal of 93 columns: width %d", got)
	}
}
