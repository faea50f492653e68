package checks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mpidbg/mpidbg/internal/golden"
)

// recorded is one event as a detector filled it on a real MPI job, with
// the answers the rank's datatypes gave while its message was written
// (testdata/events.jsonl, one per line).
type recorded struct {
	Event Event         `json:"event"`
	Types recordedTypes `json:"types"`
	// Note says where an event that was not recorded comes from: the
	// forms of a message no test program makes are written by hand.
	Note string `json:"note"`
}

// recordedTypes answers Types from what a rank answered.
type recordedTypes struct {
	Types      map[string]TypeInfo   `json:"types,omitempty"`      // by handle, %#x
	Elements   map[string]string     `json:"elements,omitempty"`   // by "handle addr count at"
	Collisions map[string][2]string  `json:"collisions,omitempty"` // by "handle count"
	Kinds      map[string]HandleKind `json:"kinds,omitempty"`      // by handle
}

func (r recordedTypes) Type(h uint64) TypeInfo {
	if ti, ok := r.Types[fmt.Sprintf("%#x", h)]; ok {
		return ti
	}
	return TypeInfo{Text: fmt.Sprintf("%#x", h)}
}

func (r recordedTypes) ElementAt(h, addr uint64, count int64, at uint64) string {
	return r.Elements[fmt.Sprintf("%#x %#x %d %#x", h, addr, count, at)]
}

func (r recordedTypes) Collision(h uint64, count int64) (string, string) {
	c := r.Collisions[fmt.Sprintf("%#x %d", h, count)]
	return c[0], c[1]
}

func (r recordedTypes) KindOf(h uint64) HandleKind {
	if k, ok := r.Kinds[fmt.Sprintf("%#x", h)]; ok {
		return k
	}
	return KindNone
}

func readRecorded(t *testing.T) []recorded {
	t.Helper()
	f, err := os.Open("testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("testdata/events.jsonl:%d: %v", n, err)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMessages writes every finding's message from events recorded from
// the detectors on real MPI jobs, without MPI, and compares them with the
// golden file: a change to a message shows up here, word for word. Every
// id of the catalogue must have a recorded event.
func TestMessages(t *testing.T) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, r := range readRecorded(t) {
		d := Describe(&r.Event, r.Types)
		seen[r.Event.ID] = true
		v, _ := r.Event.Variant.MarshalText()
		fmt.Fprintf(&b, "%s (%s, %s)\n  %s\n", r.Event.ID, v, d.Entry.Severity, d.Message)
		if d.Arg != "" {
			fmt.Fprintf(&b, "  arg: %s\n", d.Arg)
		}
		if d.Path != "" {
			fmt.Fprintf(&b, "  path: %s\n", d.Path)
		}
		if r.Event.RelatedKind != RelatedNone {
			fmt.Fprintf(&b, "  related: %s\n", d.Related)
			if d.RelatedArg != "" {
				fmt.Fprintf(&b, "  related arg: %s\n", d.RelatedArg)
			}
		}
		if d.TypeMade != "" {
			fmt.Fprintf(&b, "  type: %s\n", d.TypeMade)
		}
		for i, text := range d.Remote {
			if i == 0 && r.Event.Flags&FlagRemoteSite != 0 {
				continue // the finding's own place
			}
			fmt.Fprintf(&b, "  remote: %s\n", text)
			if i < len(d.RemoteArgs) && d.RemoteArgs[i] != "" {
				fmt.Fprintf(&b, "  remote arg: %s\n", d.RemoteArgs[i])
			}
		}
	}
	golden.Check(t, b.String())
	for _, e := range All() {
		if !seen[e.ID] {
			t.Errorf("%s: no recorded event in testdata/events.jsonl", e.ID)
		}
	}
}

// TestMessageForms: every word of the events' vocabularies (variants,
// epochs, accesses, call modes, flags, related and handle kinds) appears
// in some event of testdata/events.jsonl, so every form of every message
// is in the golden file.
func TestMessageForms(t *testing.T) {
	used := map[string]bool{}
	note := func(kind string, v interface{ MarshalText() ([]byte, error) }) {
		b, err := v.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		used[kind+" "+string(b)] = true
	}
	for _, r := range readRecorded(t) {
		e := r.Event
		note("variant", e.Variant)
		note("epoch", e.Epoch)
		note("related kind", e.RelatedKind)
		note("handle kind", e.Kind)
		for _, k := range r.Types.Kinds {
			note("handle kind", k)
		}
		for _, rm := range e.Remote {
			note("access", rm.Access)
		}
		for _, g := range e.Groups {
			note("call mode", g.Mode)
		}
		for i, name := range FlagNames {
			if e.Flags&(1<<i) != 0 {
				used["flag "+name] = true
			}
		}
	}
	for kind, names := range map[string][]string{"variant": Variants, "epoch": Epochs, "related kind": RelatedKinds,
		"handle kind": HandleKinds, "access": Accesses, "call mode": CallModes, "flag": FlagNames} {
		for _, n := range names {
			if !used[kind+" "+n] {
				t.Errorf("%s %s: no event in testdata/events.jsonl uses it", kind, n)
			}
		}
	}
}

// TestDescribeUnknown: an id the catalogue does not know still gives an
// error finding that names it.
func TestDescribeUnknown(t *testing.T) {
	d := Describe(&Event{ID: "no-such-finding", Call: "MPI_Send"}, recordedTypes{})
	if d.Entry.Severity != SevError || d.Message != "MPI_Send: no-such-finding" {
		t.Errorf("got %+v", d)
	}
}

// TestEnumNames: the name tables cover every constant, so the generated
// C enums and recorded events name each value.
func TestEnumNames(t *testing.T) {
	if len(Variants) != int(VariantTwice)+1 {
		t.Errorf("Variants has %d names, want %d", len(Variants), VariantTwice+1)
	}
	if len(Accesses) != int(AccessAccRead)+1 || len(Epochs) != int(EpochPSCW)+1 || len(CallModes) != int(ModePersistent)+1 {
		t.Errorf("Accesses, Epochs or CallModes lack a name")
	}
	if 1<<len(FlagNames) != int(FlagUnseen)<<1 {
		t.Errorf("FlagNames has %d names", len(FlagNames))
	}
	if len(HandleKinds) != int(KindRequest-KindNone)+1 {
		t.Errorf("HandleKinds has %d names", len(HandleKinds))
	}
	if len(RelatedKinds) != int(RelatedLaterRecv)+1 {
		t.Errorf("RelatedKinds has %d names", len(RelatedKinds))
	}
	for _, names := range [][]string{Variants, HandleKinds, RelatedKinds, Accesses, Epochs, CallModes, FlagNames} {
		if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
			t.Errorf("duplicate names in %v", names)
		}
	}
	var v Variant
	if err := v.UnmarshalText([]byte("BOTH_WRITE")); err != nil || v != VariantBothWrite {
		t.Errorf("BOTH_WRITE: got %v, %v", v, err)
	}
	if err := v.UnmarshalText([]byte("NOPE")); err == nil {
		t.Error("NOPE: no error")
	}
}

// TestTypeMatchText: the type-matching engine's findings, written by
// TypeMatch.Text (their events carry the finished text).
func TestTypeMatchText(t *testing.T) {
	var b strings.Builder
	for _, tm := range []TypeMatch{
		{SendRank: 0, RecvRank: 1, SendCount: 1, SendType: "t_a", RecvCount: 1, RecvType: "t_b", Element: 2, Byte: 12,
			SendPath: "t_a(STRUCT)[2](DOUBLE)", RecvPath: "t_b(STRUCT)[2](INT)", SendBasic: "MPI_DOUBLE", RecvBasic: "MPI_INT"},
		{SendRank: 3, RecvRank: 0, SendCount: 4, SendType: "the sender's datatype", RecvCount: 16, RecvType: "MPI_BYTE",
			SendPath: "element 0 (MPI_INT)", RecvPath: "MPI_BYTE[0]", SendBasic: "MPI_INT", RecvBasic: "MPI_BYTE"},
		{Truncated: true, SendRank: 1, RecvRank: 0, SendCount: 8, SendType: "MPI_DOUBLE", RecvCount: 4, RecvType: "MPI_DOUBLE",
			Element: 4, SendPath: "[4](DOUBLE)", SendElements: 8, SendBytes: 64, RecvElements: 4},
		{Truncated: true, SendRank: 1, RecvRank: 2, SendCount: 2, SendType: "the sender's datatype", RecvCount: 1, RecvType: "contiguous(3,INT)",
			Element: 3, SendElements: 6, SendBytes: 24, RecvElements: 3},
		{SendRank: 1, RecvRank: 0, SendCount: 16, SendType: "MPI_INTEGER", RecvCount: 16, RecvType: "MPI_REAL", Element: 0, Byte: 0,
			SendPath: "MPI_INTEGER(1)", RecvPath: "MPI_REAL(1)", SendBasic: "MPI_INTEGER", RecvBasic: "MPI_REAL", Fortran: true},
		{Truncated: true, SendRank: 1, RecvRank: 0, SendCount: 1, SendType: "face", RecvCount: 10, RecvType: "MPI_DOUBLE_PRECISION",
			Element: 10, SendPath: "face(SUBARRAY)(3,7)(DOUBLE_PRECISION)", SendElements: 12, SendBytes: 96, RecvElements: 10, Fortran: true},
	} {
		msg, path := tm.Text()
		fmt.Fprintf(&b, "%s\n  path: %s\n", msg, path)
	}
	golden.Check(t, b.String())
}
