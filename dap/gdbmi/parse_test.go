package gdbmi

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// transcript reads the lines of a recorded gdb --interpreter=mi3 session.
func transcript(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestTranscript parses every line of a real session (types.c stopped at
// a breakpoint, then the MPI and the usual MI commands) and checks what
// the adapter will read from the records.
func TestTranscript(t *testing.T) {
	kinds := map[Kind]int{}
	var recs []Record
	for i, l := range transcript(t, "types-session.mi") {
		r, err := Parse(l)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		kinds[r.Kind]++
		recs = append(recs, r)
	}
	for _, k := range []Kind{PromptRecord, ResultRecord, ExecRecord, NotifyRecord, ConsoleStream, LogStream} {
		if kinds[k] == 0 {
			t.Errorf("no %v records in the transcript", k)
		}
	}
	find := func(kind Kind, class, has string) Record {
		t.Helper()
		for _, r := range recs {
			if r.Kind == kind && r.Class == class && (has == "" || r.Results.Get(has) != nil) {
				return r
			}
		}
		t.Fatalf("no %v %s record with %q", kind, class, has)
		return Record{}
	}
	bp := find(ResultRecord, "done", "bkpt").Results.Tuple("bkpt")
	if bp.String("number") != "1" || bp.String("func") != "main" || bp.String("line") != "43" {
		t.Errorf("bkpt = %+v", bp)
	}
	if groups := bp.List("thread-groups").Values; len(groups) != 1 || groups[0] != Const("i1") {
		t.Errorf("thread-groups = %+v", groups)
	}
	stop := find(ExecRecord, "stopped", "frame").Results
	if stop.String("reason") != "breakpoint-hit" || stop.Tuple("frame").String("func") != "main" {
		t.Errorf("stopped = %+v", stop)
	}
	args := stop.Tuple("frame").List("args").Values
	if len(args) != 2 || args[0].(Tuple).String("name") != "argc" {
		t.Errorf("frame args = %+v", args)
	}
	// a list of results: stack=[frame={...}]
	stack := find(ResultRecord, "done", "stack").Results.List("stack")
	if len(stack.Results) != 1 || stack.Results[0].Name != "frame" || stack.Results[0].Value.(Tuple).String("level") != "0" {
		t.Errorf("stack = %+v", stack)
	}
	// the MPI printer's value, through -stack-list-variables
	for _, v := range find(ResultRecord, "done", "variables").Results.List("variables").Values {
		if v.(Tuple).String("name") == "t" && !strings.HasPrefix(v.(Tuple).String("value"), "RESIZED = {combiner = RESIZED") {
			t.Errorf("t = %q", v.(Tuple).String("value"))
		}
	}
	// -mpi-type, then -mpi-buffer: the MI twins of the gdb extension
	var texts []string
	for _, r := range recs {
		if r.Kind == ResultRecord && r.Results.Get("text") != nil {
			texts = append(texts, r.Results.String("text"))
		}
	}
	if len(texts) != 2 || !strings.Contains(texts[0], "signature    DOUBLE*8") ||
		!strings.Contains(texts[1], "(VECTOR)[0][1](DOUBLE)  DOUBLE  1\n") {
		t.Errorf("MI twin texts = %q", texts)
	}
	mem := find(ResultRecord, "done", "memory").Results.List("memory").Values[0].(Tuple)
	if mem.String("contents") != "0000000000000000000000000000f03f" {
		t.Errorf("memory = %+v", mem)
	}
	if find(ExecRecord, "stopped", "reason").Results.String("reason") == "" {
		t.Error("no reason")
	}
	if r := recs[len(recs)-1]; r.Kind != ResultRecord || r.Class != "exit" {
		t.Errorf("last record %+v, want ^exit", r)
	}
}

// TestOctalUTF8: in a UTF-8 locale gdb writes UTF-8 text as octal escapes
// of its bytes; they decode back to the text.
func TestOctalUTF8(t *testing.T) {
	lines := transcript(t, "utf8-octal.mi")
	r, err := Parse(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	if text := r.Results.String("text"); !strings.Contains(text, "\n───") {
		t.Errorf("text = %q, want the table's rule as UTF-8", text)
	}
	r, err = Parse(lines[1])
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Results.String("value"); v != "\"a\\tb\"" {
		t.Errorf("value = %q", v)
	}
}

func TestRecords(t *testing.T) {
	tests := []struct {
		line string
		want Record
	}{
		{"(gdb) ", Record{Kind: PromptRecord}},
		{"42^done", Record{Kind: ResultRecord, Token: "42", Class: "done"}},
		{`^error,msg="No symbol \"x\" in current context."`, Record{Kind: ResultRecord, Class: "error",
			Results: Tuple{{"msg", Const(`No symbol "x" in current context.`)}}}},
		{`*stopped,reason="exited",exit-code="01"`, Record{Kind: ExecRecord, Class: "stopped",
			Results: Tuple{{"reason", Const("exited")}, {"exit-code", Const("01")}}}},
		{`+download,section=".text",section-sent="512"`, Record{Kind: StatusRecord, Class: "download",
			Results: Tuple{{"section", Const(".text")}, {"section-sent", Const("512")}}}},
		{`=tsv-created,x={},y=[]`, Record{Kind: NotifyRecord, Class: "tsv-created",
			Results: Tuple{{"x", Tuple{}}, {"y", List{}}}}},
		{`~"a\tb\n\\ \"q\" \001\377"`, Record{Kind: ConsoleStream, Text: "a\tb\n\\ \"q\" \x01\uFFFD"}},
		{`@"out"`, Record{Kind: TargetStream, Text: "out"}},
		{`&"warning\r\n"`, Record{Kind: LogStream, Text: "warning\r\n"}},
		{"^done,v=[[\"a\"],{}]\r\n", Record{Kind: ResultRecord, Class: "done",
			Results: Tuple{{"v", List{Values: []Value{List{Values: []Value{Const("a")}}, Tuple{}}}}}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.line)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.line, err)
			continue
		}
		if !equal(got, tt.want) {
			t.Errorf("Parse(%q) =\n%#v\nwant\n%#v", tt.line, got, tt.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		line   string
		offset int
		msg    string
	}{
		{"", 0, "no record after the token"},
		{"12", 2, "no record after the token"},
		{"hello", 0, `'h' does not start an MI record`},
		{"^", 1, "missing class"},
		{"^done,", 6, "want a variable name"},
		{"^done,a", 7, `want '=' after "a"`},
		{"^done,a=", 8, "want a value"},
		{"^done,a=x", 8, `'x' does not start a value`},
		{`^done,a="x`, 10, "unterminated string"},
		{`^done,a="\q"`, 10, `unknown escape \q`},
		{`^done,a="\777"`, 13, `octal escape above \377`},
		{`^done,a={b="1"`, 14, "unterminated tuple"},
		{`^done,a=["1" "2"]`, 12, "want ',' or ']' in a list"},
		{`^done a="1"`, 5, "want ',' between results"},
		{`7~"x"`, 2, "a stream record has no token"},
		{`+download,{section=".text"}`, 10, "want a variable name"},
		{`~"x" y`, 4, "after the record"},
		{"^done,a=" + strings.Repeat("[", 300), 264, "nested deeper than 256"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.line)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): %v, want a *SyntaxError", tt.line, err)
			continue
		}
		if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.msg) {
			t.Errorf("Parse(%q): offset %d %q, want %d and %q", tt.line, se.Offset, se.Msg, tt.offset, tt.msg)
		}
	}
}

// FuzzParse: no input makes the parser panic or run away, and what it
// accepts is well formed. Seeded with the recorded sessions.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"types-session.mi", "utf8-octal.mi"} {
		for _, l := range transcript(f, name) {
			f.Add(l)
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := Parse(line)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(line) {
				t.Fatalf("Parse(%q): %v", line, err)
			}
			return
		}
		if r.Kind < PromptRecord || r.Kind > LogStream {
			t.Fatalf("Parse(%q): kind %d", line, r.Kind)
		}
		if (r.Kind >= ResultRecord && r.Kind <= NotifyRecord) != (r.Class != "") {
			t.Fatalf("Parse(%q): kind %v with class %q", line, r.Kind, r.Class)
		}
	})
}

func equal(a, b Record) bool {
	return a.Kind == b.Kind && a.Token == b.Token && a.Class == b.Class && a.Text == b.Text && equalValue(a.Results, b.Results)
}

func equalValue(a, b Value) bool {
	switch x := a.(type) {
	case Const:
		y, ok := b.(Const)
		return ok && x == y
	case Tuple:
		y, ok := b.(Tuple)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Name != y[i].Name || !equalValue(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case List:
		y, ok := b.(List)
		if !ok || len(x.Values) != len(y.Values) || len(x.Results) != len(y.Results) {
			return false
		}
		for i := range x.Values {
			if !equalValue(x.Values[i], y.Values[i]) {
				return false
			}
		}
		for i := range x.Results {
			if x.Results[i].Name != y.Results[i].Name || !equalValue(x.Results[i].Value, y.Results[i].Value) {
				return false
			}
		}
		return true
	}
	return a == nil && b == nil
}
