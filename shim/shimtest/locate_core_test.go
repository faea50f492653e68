package shimtest

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// TestNTFile decodes an NT_FILE note laid out as Linux writes it.
func TestNTFile(t *testing.T) {
	le := binary.LittleEndian
	var desc []byte
	desc = le.AppendUint64(desc, 2)    // count
	desc = le.AppendUint64(desc, 4096) // page size
	for _, e := range [][3]uint64{{0x400000, 0x401000, 0}, {0x7f0000000000, 0x7f0000002000, 3}} {
		for _, v := range e {
			desc = le.AppendUint64(desc, v)
		}
	}
	desc = append(desc, "/bin/app\x00/lib/libmpidbg.so\x00"...)
	var note []byte
	note = le.AppendUint32(note, 5) // "CORE\0"
	note = le.AppendUint32(note, uint32(len(desc)))
	note = le.AppendUint32(note, 0x46494c45)
	note = append(note, "CORE\x00\x00\x00\x00"...)
	note = append(note, desc...)
	for len(note)%4 != 0 {
		note = append(note, 0)
	}
	// an unrelated note before it must be skipped
	other := append(le.AppendUint32(le.AppendUint32(le.AppendUint32(nil, 5), 4), 1), "CORE\x00\x00\x00\x00\x01\x02\x03\x04"...)
	got := ntFile(append(other, note...), le)
	want := []Mapping{{0x400000, 0x401000, 0, "/bin/app"}, {0x7f0000000000, 0x7f0000002000, 3 * 4096, "/lib/libmpidbg.so"}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("mapping %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	// truncated notes give what decodes, never a panic
	for n := 0; n < len(note); n++ {
		ntFile(note[:n], le)
	}
}

func TestLocateErrors(t *testing.T) {
	if _, err := Locate([]Mapping{{Start: 0x400000, End: 0x401000, Path: "/bin/true"}}); !errors.Is(err, ErrNoShim) {
		t.Errorf("no shim: got %v", err)
	}
	if _, err := Locate([]Mapping{{Start: 0x400000, End: 0x401000, Path: "/nonexistent/libmpidbg.so"}}); err == nil {
		t.Error("missing shim file: got no error")
	}
	if _, err := OpenCore("/bin/true"); err == nil || !strings.Contains(err.Error(), "not a core file") {
		t.Errorf("not a core: got %v", err)
	}
}
