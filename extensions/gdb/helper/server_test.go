package helper

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mpidbg/mpidbg/internal/golden"
)

// fakeGDB plays gdb's side: it sends requests and serves the helper's
// reads from a registry image, as gdb serves them from a live rank or a
// core file.
type fakeGDB struct {
	t     *testing.T
	mem   bytesReader
	in    io.WriteCloser // the helper's stdin
	out   *bufio.Reader  // the helper's stdout
	log   bytes.Buffer
	done  chan error
	reads int
	// where round trips, and the addresses they asked for
	wheres, named int
}

type reply struct {
	ID    int64           `json:"id"`
	OK    bool            `json:"ok"`
	Text  string          `json:"text"`
	Value json.RawMessage `json:"value"`
	Error string          `json:"error"`
}

func startGDB(t *testing.T, m *image) *fakeGDB {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	g := &fakeGDB{t: t, mem: m.reader(), in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := New(inR, outW, &g.log, "test").Serve()
		outW.Close()
		g.done <- err
	}()
	t.Cleanup(func() {
		g.in.Close()
		select {
		case err := <-g.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("Serve did not return after its input closed")
		}
	})
	return g
}

// send writes one line and serves reads until the reply comes.
func (g *fakeGDB) send(line string) reply {
	g.t.Helper()
	if _, err := io.WriteString(g.in, line+"\n"); err != nil {
		g.t.Fatalf("writing the request: %v", err)
	}
	for {
		l, err := g.out.ReadBytes('\n')
		if err != nil {
			g.t.Fatalf("reading the helper's output: %v", err)
		}
		var msg struct {
			Read *struct {
				Addr string `json:"addr"`
				Len  int    `json:"len"`
			} `json:"read"`
			Where *struct {
				Addrs []string `json:"addrs"`
			} `json:"where"`
		}
		if err := json.Unmarshal(l, &msg); err != nil {
			g.t.Fatalf("helper wrote %q: %v", l, err)
		}
		if msg.Where != nil {
			// gdb names a site by its line; this one knows the sites
			// whose address is a multiple of 32, and not the others
			g.wheres++
			g.named += len(msg.Where.Addrs)
			names := []string{}
			for _, a := range msg.Where.Addrs {
				var v uint64
				fmt.Sscanf(a, "0x%x", &v)
				if v%32 == 0 {
					names = append(names, fmt.Sprintf("app.c:%d in main", v%1000))
				} else {
					names = append(names, "")
				}
			}
			b, _ := json.Marshal(map[string][]string{"where": names})
			io.WriteString(g.in, string(b)+"\n")
			continue
		}
		if msg.Read == nil {
			var r reply
			if err := json.Unmarshal(l, &r); err != nil {
				g.t.Fatalf("helper wrote %q: %v", l, err)
			}
			return r
		}
		g.reads++
		var addr uint64
		fmt.Sscanf(msg.Read.Addr, "0x%x", &addr)
		b := make([]byte, msg.Read.Len)
		var ans map[string]string
		if err := g.mem.ReadAt(b, addr); err != nil {
			ans = map[string]string{"error": "Cannot access memory at address " + msg.Read.Addr}
		} else {
			ans = map[string]string{"data": base64.StdEncoding.EncodeToString(b)}
		}
		a, _ := json.Marshal(ans)
		io.WriteString(g.in, string(a)+"\n")
	}
}

var nextID int64 = 100

func (g *fakeGDB) call(op string, args map[string]any) reply {
	g.t.Helper()
	nextID++
	b, _ := json.Marshal(map[string]any{"id": nextID, "op": op, "args": args})
	r := g.send(string(b))
	if r.ID != nextID {
		g.t.Errorf("%s: reply id %d, want %d", op, r.ID, nextID)
	}
	return r
}

// show is what the golden files hold: the text, then the value indented.
func show(r reply) string {
	var v bytes.Buffer
	json.Indent(&v, r.Value, "", "  ")
	return r.Text + "\n-- value --\n" + v.String() + "\n"
}

func TestOps(t *testing.T) {
	m, buf := exampleImage()
	reg := hex(m.base)
	with := func(kv ...any) map[string]any {
		a := map[string]any{"registry": reg}
		for i := 0; i < len(kv); i += 2 {
			a[kv[i].(string)] = kv[i+1]
		}
		return a
	}
	tests := []struct {
		name string
		op   string
		args map[string]any
	}{
		{"hello", "hello", nil},
		{"type_print", "type", with("handle", hex(hHalo), "view", "print")},
		{"type_print_uncommitted", "type", with("handle", hex(hSub), "view", "print")},
		{"type_print_freed", "type", with("handle", hex(hGone), "view", "print")},
		{"type_summary", "type", with("handle", hex(hHalo))},
		{"type_summary_predefined", "type", with("handle", hex(hDouble), "view", "summary")},
		{"type_tree", "type", with("handle", hex(hHalo), "view", "tree")},
		{"type_expanded", "type", with("handle", hex(hHalo), "view", "expanded", "limit", 6)},
		{"type_typemap", "type", with("handle", hex(hHalo), "view", "typemap", "limit", 8)},
		{"type_signature", "type", with("handle", hex(hHalo), "view", "signature")},
		{"types", "types", with()},
		{"types_regexp", "types", with("regexp", "^(s_|SUB)")},
		{"types_none", "types", with("regexp", "nothing")},
		{"path", "path", with("handle", hex(hSType), "path", "s_type[2][5]")},
		{"path_long", "path", with("handle", hex(hHalo), "count", 2, "path", "[1]halo(VECTOR)[1][0].s_type(STRUCT)[3][1](DOUBLE)")},
		{"buffer", "buffer", with("handle", hex(hHalo), "addr", hex(buf), "limit", 20)},
		// pages: the first, one in the middle (across a gap), one past the end
		{"buffer_start_first", "buffer", with("handle", hex(hHalo), "addr", hex(buf), "start", 0, "limit", 4)},
		{"buffer_start_middle", "buffer", with("handle", hex(hHalo), "addr", hex(buf), "start", 11, "limit", 4)},
		{"buffer_start_past", "buffer", with("handle", hex(hHalo), "addr", hex(buf), "start", 40, "limit", 4)},
		{"buffer_unreadable", "buffer", with("handle", hex(hSType), "addr", hex(m.base+uint64(len(m.mem))-60))},
		{"requests", "requests", with()},
		{"errors", "errors", with()},
		{"handle_comm", "handle", with("kind", "comm", "handle", hex(hWorld))},
		{"handle_comm_unnamed", "handle", with("kind", "comm", "handle", hex(hDup))},
		{"handle_request", "handle", with("kind", "request", "handle", hex(hRecv))},
		{"handle_request_persistent", "handle", with("kind", "request", "handle", hex(hSend))},
		{"handle_win", "handle", with("kind", "win", "handle", hex(hWin))},
		{"handle_op", "handle", with("kind", "op", "handle", hex(hOp))},
		{"handle_op_predefined", "handle", with("kind", "op", "handle", "0x58000003")},
		{"handle_group", "handle", with("kind", "group", "handle", hex(hGroup))},
	}
	g := startGDB(t, m)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g.t = t
			r := g.call(tt.op, tt.args)
			if !r.OK {
				t.Fatalf("%s: error %q", tt.op, r.Error)
			}
			if strings.HasSuffix(r.Text, "\n") || strings.Contains(r.Text, "\x1b") {
				t.Errorf("text ends in a newline or holds escape sequences: %q", r.Text)
			}
			golden.Check(t, show(r))
			// the same request gives the same text: golden files of gdb
			// sessions rely on it
			if again := g.call(tt.op, tt.args); again.Text != r.Text || !bytes.Equal(again.Value, r.Value) {
				t.Errorf("a second identical request gave a different answer")
			}
		})
	}
}

// TestErrors checks that every failure is an ok:false reply with a
// useful message, and that the helper serves the next request.
func TestErrors(t *testing.T) {
	m, _ := exampleImage()
	reg := hex(m.base)
	tests := []struct {
		name string
		line string
		id   int64
		want string
	}{
		{"unmapped registry", `{"id":1,"op":"types","args":{"registry":"0x10"}}`, 1,
			"registry: mpidbg_registry at 0x10: unreadable: Cannot access memory at address 0x10"},
		{"malformed line", `{"id":2,"op":`, 0, "malformed request: "},
		{"not an object", `[1,2]`, 0, "malformed request: "},
		{"bad id", `{"id":"seven","op":"hello"}`, 0, `field "id": want an integer`},
		{"no op", `{"id":3}`, 3, "malformed request: no op"},
		{"unknown op", `{"id":4,"op":"frobnicate"}`, 4, `unknown op "frobnicate"`},
		{"bad args", `{"id":5,"op":"types","args":{"registry":"zz"}}`, 5, `malformed args: "zz" is not an address`},
		{"no registry", `{"id":6,"op":"types","args":{}}`, 6, "missing argument registry"},
		{"no handle", `{"id":7,"op":"type","args":{"registry":"` + reg + `"}}`, 7, "missing argument handle"},
		{"unknown handle", `{"id":8,"op":"type","args":{"registry":"` + reg + `","handle":"0x1234"}}`, 8,
			"freed or unknown datatype handle 0x1234"},
		{"unknown view", `{"id":9,"op":"type","args":{"registry":"` + reg + `","handle":"0x8c000001","view":"x"}}`, 9, `unknown view "x"`},
		{"bad limit", `{"id":10,"op":"type","args":{"registry":"` + reg + `","handle":"0x8c000001","limit":-1}}`, 10, "limit -1"},
		{"bad path", `{"id":11,"op":"path","args":{"registry":"` + reg + `","handle":"0x8c000001","path":"s_type[9]"}}`, 11, "path does not fit the type"},
		{"unknown kind", `{"id":12,"op":"handle","args":{"registry":"` + reg + `","handle":"0x1","kind":"file"}}`, 12, `unknown kind "file"`},
		{"unrecorded comm", `{"id":13,"op":"handle","args":{"registry":"` + reg + `","handle":"0x1","kind":"comm"}}`, 13,
			"freed or unknown communicator handle 0x1"},
		{"unknown name", `{"id":16,"op":"type","args":{"registry":"` + reg + `","name":"MPI_FLOAT_INTEGER"}}`, 16,
			"MPI_FLOAT_INTEGER: no such predefined MPI datatype"},
		{"unrecorded name", `{"id":17,"op":"type","args":{"registry":"` + reg + `","name":"MPI_FLOAT"}}`, 17,
			"MPI_FLOAT: the registry has no record of it"},
		{"null datatype buffer", `{"id":18,"op":"buffer","args":{"registry":"` + reg + `","handle":"0x0c000000","addr":"0x1000"}}`, 18,
			"the datatype is MPI_DATATYPE_NULL, the null handle: it names no datatype"},
		{"negative start", `{"id":15,"op":"buffer","args":{"registry":"` + reg + `","handle":"0x8c000001","addr":"0x1000","start":-1}}`, 15,
			"start -1: want 0 or more"},
		{"bad regexp", `{"id":14,"op":"types","args":{"registry":"` + reg + `","regexp":"("}}`, 14, "regexp \"(\""},
	}
	g := startGDB(t, m)
	for _, tt := range tests {
		r := g.send(tt.line)
		if r.OK || r.ID != tt.id || !strings.Contains(r.Error, tt.want) {
			t.Errorf("%s: got id %d ok %v error %q; want id %d, an error containing %q", tt.name, r.ID, r.OK, r.Error, tt.id, tt.want)
		}
		if h := g.send(`{"id":99,"op":"hello"}`); !h.OK || h.Text != "mpidbg test" {
			t.Fatalf("%s: the next request got %+v", tt.name, h)
		}
	}
}

// TestNames: a predefined datatype by its MPI name, whatever the case;
// MPICH's null handles are named, not errors.
func TestNames(t *testing.T) {
	m, _ := exampleImage()
	g := startGDB(t, m)
	reg := hex(m.base)
	for _, tt := range []struct {
		op   string
		args map[string]any
		want string
	}{
		{"type", map[string]any{"name": "MPI_DOUBLE", "view": "print"}, "DOUBLE"},
		{"type", map[string]any{"name": "mpi_int", "view": "print"}, "INT"},
		{"path", map[string]any{"name": "MPI_DOUBLE", "path": "(DOUBLE)"}, "DOUBLE"},
		{"type", map[string]any{"name": "MPI_DATATYPE_NULL", "view": "print"}, "MPI_DATATYPE_NULL"},
		{"type", map[string]any{"handle": "0x0c000000"}, "MPI_DATATYPE_NULL: the null datatype handle, which names no datatype"},
		{"handle", map[string]any{"handle": "0x2c000000", "kind": "request"}, "MPI_REQUEST_NULL"},
		{"handle", map[string]any{"handle": "0x04000000", "kind": "comm"}, "MPI_COMM_NULL"},
	} {
		tt.args["registry"] = reg
		r := g.call(tt.op, tt.args)
		if !r.OK || !strings.Contains(r.Text, tt.want) {
			t.Errorf("%s %v: %+v, want %q", tt.op, tt.args, r, tt.want)
		}
	}
}

// TestCorrupted: a registry with a bad magic gives the decoder's
// FormatError, word for word.
func TestCorrupted(t *testing.T) {
	m, _ := exampleImage()
	copy(m.mem, "XPIDBGR\x00")
	g := startGDB(t, m)
	r := g.call("types", map[string]any{"registry": hex(m.base)})
	want := `registry: mpidbg_registry.magic at 0x7f0000001000: "XPIDBGR\x00" is not "MPIDBGR\x00": not an mpidbg registry`
	if r.OK || r.Error != want {
		t.Errorf("got ok %v error %q; want %q", r.OK, r.Error, want)
	}
	if r := g.call("hello", nil); !r.OK {
		t.Errorf("hello after the error: %+v", r)
	}
}

// TestReadCache: the decoder's many small reads become about one round
// trip per page. The image is padded to whole pages, as mappings are.
func TestReadCache(t *testing.T) {
	m, _ := exampleImage()
	m.mem = append(m.mem, make([]byte, pageSize-len(m.mem)%pageSize)...)
	g := startGDB(t, m)
	if r := g.call("types", map[string]any{"registry": hex(m.base)}); !r.OK {
		t.Fatal(r.Error)
	}
	if pages := len(m.mem) / pageSize; g.reads > pages {
		t.Errorf("reading a registry of %d pages took %d round trips", pages, g.reads)
	}
}

// TestWhere: a request names the call sites it prints, all in one round
// trip; one that prints none asks nothing.
func TestWhere(t *testing.T) {
	m, buf := exampleImage()
	g := startGDB(t, m)
	if r := g.call("buffer", map[string]any{"registry": hex(m.base), "handle": hex(hHalo), "addr": hex(buf), "count": 1}); !r.OK {
		t.Fatal(r.Error)
	}
	if g.wheres != 0 {
		t.Errorf("buffer asked gdb to name %d sites", g.named)
	}
	if r := g.call("type", map[string]any{"registry": hex(m.base), "handle": hex(hHalo), "view": "print"}); !r.OK {
		t.Fatal(r.Error)
	}
	if g.wheres != 1 || g.named != 1 {
		t.Errorf("type: %d round trips for %d sites, want 1 for its creation site", g.wheres, g.named)
	}
	g.wheres, g.named = 0, 0
	if r := g.call("types", map[string]any{"registry": hex(m.base)}); !r.OK {
		t.Fatal(r.Error)
	}
	if g.wheres != 1 {
		t.Errorf("types: %d round trips, want 1", g.wheres)
	}
}

// TestEOFDuringRead: gdb going away while the helper waits for memory
// ends the helper cleanly.
func TestEOFDuringRead(t *testing.T) {
	inR, inW := io.Pipe()
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- New(inR, &out, nil, "test").Serve() }()
	io.WriteString(inW, `{"id":1,"op":"types","args":{"registry":"0x1000"}}`+"\n")
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return")
	}
	if !strings.Contains(out.String(), `"ok":false`) {
		t.Errorf("no error reply for the unfinished request: %q", out.String())
	}
}
