package helper

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// args holds every op's arguments; each handler checks the ones it needs.
// Pointers tell a missing argument from a zero one.
type args struct {
	Registry *addr   `json:"registry"`
	Handle   *addr   `json:"handle"`
	Fortran  bool    `json:"fortran"` // handle is a datatype's Fortran INTEGER handle
	Name     string  `json:"name"`    // instead of handle: a predefined datatype's MPI name (MPI_DOUBLE)
	Addr     *addr   `json:"addr"`
	View     string  `json:"view"`
	Limit    *int64  `json:"limit"`
	Start    *int64  `json:"start"`
	Count    *int64  `json:"count"`
	Regexp   string  `json:"regexp"`
	Path     string  `json:"path"`
	Kind     string  `json:"kind"`
	Frames   []frame `json:"frames"`
}

// Defaults and bounds of limit: what `mpidbg inspect` shows by default,
// and a cap so that one request cannot make gdb read gigabytes.
const (
	defaultLimit = 32
	maxLimit     = 1 << 16
)

func decodeArgs(raw json.RawMessage) (args, error) {
	var a args
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return a, nil
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, fmt.Errorf("malformed args: %s", jsonError(err))
	}
	return a, nil
}

// addr is an address or handle. The protocol sends them as "0x..."
// strings, because JSON numbers lose precision above 2^53; a plain
// number is accepted too, for hand-written requests.
type addr uint64

func (a *addr) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n uint64
		if json.Unmarshal(b, &n) != nil {
			return fmt.Errorf("%s is not an address (want a string such as \"0x7ffd1234\")", b)
		}
		*a = addr(n)
		return nil
	}
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("%q is not an address (want hex digits with a 0x prefix)", s)
	}
	*a = addr(v)
	return nil
}

func hex(v uint64) string { return fmt.Sprintf("%#x", v) }

func (a args) registry() (uint64, error) {
	if a.Registry == nil {
		return 0, fmt.Errorf("missing argument registry (the address of mpidbg_registry)")
	}
	return uint64(*a.Registry), nil
}

func (a args) handle() (uint64, error) {
	if a.Handle == nil && a.Name != "" {
		return 0, nil // a datatype by its name: datatypeArg
	}
	if a.Handle == nil {
		return 0, fmt.Errorf("missing argument handle")
	}
	return uint64(*a.Handle), nil
}

func (a args) limit() (int, error) {
	if a.Limit == nil {
		return defaultLimit, nil
	}
	if *a.Limit < 0 || *a.Limit > maxLimit {
		return 0, fmt.Errorf("limit %d: want 0 to %d", *a.Limit, maxLimit)
	}
	return int(*a.Limit), nil
}

// start is the first element a page of a buffer shows. Past the end is
// allowed (an empty page: a client paging on need not know the total
// first); negative is a mistake.
func (a args) start() (int64, error) {
	if a.Start == nil {
		return 0, nil
	}
	if *a.Start < 0 {
		return 0, fmt.Errorf("start %d: want 0 or more (the index of the first element to show)", *a.Start)
	}
	return *a.Start, nil
}

func (a args) count() (int64, error) {
	if a.Count == nil {
		return 1, nil
	}
	if *a.Count < 0 {
		return 0, fmt.Errorf("count %d: want at least 0", *a.Count)
	}
	return *a.Count, nil
}
