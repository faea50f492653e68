package helper

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// memory is a registry.Reader that asks gdb: it writes a read line and
// waits for the data or error line. It lives for one request, so what it
// caches never outlives the stop at which gdb read it.
type memory struct {
	s      *Server
	chunks []chunk         // what gdb returned, newest last
	exact  map[uint64]bool // pages where a whole-page read failed
	cached int             // bytes held in chunks
	reads  int             // round trips made
	bytes  int64           // bytes asked for
}

type chunk struct {
	addr uint64
	b    []byte
}

// The decoder reads the registry in many small pieces (a header, then
// one record and its arrays at a time), each a round trip through gdb's
// Python. Reading whole pages turns the records of a chunk into one
// round trip; mappings are page-granular, so a page read fails only where
// the exact read would too, and then the exact read is retried.
const (
	pageSize = 4096
	maxCache = 64 << 20 // bytes kept per request
	// A corrupted registry can claim millions of records: stop before
	// gdb spends minutes reading them.
	maxReads = 200000
	maxBytes = 1 << 30
)

func (s *Server) newMemory() *memory { return &memory{s: s} }

func (m *memory) ReadAt(p []byte, addr uint64) error {
	n := uint64(len(p))
	if n == 0 {
		return nil
	}
	if addr+n < addr {
		return fmt.Errorf("%d bytes at %#x wrap around the address space", n, addr)
	}
	for i := len(m.chunks) - 1; i >= 0; i-- {
		c := m.chunks[i]
		if addr >= c.addr && addr+n <= c.addr+uint64(len(c.b)) {
			copy(p, c.b[addr-c.addr:])
			return nil
		}
	}
	lo, hi := addr&^(pageSize-1), (addr+n+pageSize-1)&^(pageSize-1)
	if hi < lo { // the last page of the address space
		hi = 0
	}
	if hi > lo && hi-lo > n && !m.exact[lo] && !m.exact[hi-pageSize] {
		b, err := m.fetch(lo, hi-lo)
		if err == nil {
			m.keep(lo, b)
			copy(p, b[addr-lo:])
			return nil
		}
		if m.s.eof || m.s.writeErr != nil {
			return err
		}
		// which page failed is not known: read these exactly from now on
		if m.exact == nil {
			m.exact = map[uint64]bool{}
		}
		m.exact[lo], m.exact[hi-pageSize] = true, true
	}
	b, err := m.fetch(addr, n)
	if err != nil {
		return err
	}
	m.keep(addr, b)
	copy(p, b)
	return nil
}

func (m *memory) keep(addr uint64, b []byte) {
	if m.cached+len(b) > maxCache {
		return
	}
	m.chunks = append(m.chunks, chunk{addr, b})
	m.cached += len(b)
}

// readLine is the one gdb sends: {"read": {"addr": "0x...", "len": N}}.
type readLine struct {
	Read struct {
		Addr string `json:"addr"`
		Len  uint64 `json:"len"`
	} `json:"read"`
}

type answerLine struct {
	Data  *string `json:"data"`
	Error *string `json:"error"`
}

// errSession means gdb is gone or broke the protocol: the request fails
// and no further memory is asked for.
var errSession = errors.New("the gdb session ended")

// fetch makes one round trip for n bytes at addr.
func (m *memory) fetch(addr, n uint64) ([]byte, error) {
	if m.s.eof || m.s.writeErr != nil {
		return nil, errSession
	}
	if m.reads >= maxReads || m.bytes+int64(n) > maxBytes {
		return nil, fmt.Errorf("this request needs more than %d memory reads or %d bytes: the registry is corrupted or too large", maxReads, maxBytes)
	}
	m.reads++
	m.bytes += int64(n)
	var rl readLine
	rl.Read.Addr, rl.Read.Len = hex(addr), n
	b, _ := json.Marshal(rl)
	m.s.writeLine(b)
	if m.s.writeErr != nil {
		return nil, errSession
	}
	line, err := m.s.readLine()
	if err != nil {
		return nil, fmt.Errorf("%w while waiting for the memory at %#x: %v", errSession, addr, err)
	}
	var ans answerLine
	if err := json.Unmarshal(line, &ans); err != nil || (ans.Data == nil) == (ans.Error == nil) {
		return nil, fmt.Errorf("gdb answered a read of %d bytes at %#x with %.80q, not a data or error line", n, addr, line)
	}
	if ans.Error != nil {
		return nil, errors.New(*ans.Error)
	}
	data, err := base64.StdEncoding.DecodeString(*ans.Data)
	if err != nil {
		return nil, fmt.Errorf("gdb's data for %#x is not base64: %v", addr, err)
	}
	if uint64(len(data)) != n {
		return nil, fmt.Errorf("gdb returned %d bytes for a read of %d at %#x", len(data), n, addr)
	}
	return data, nil
}
