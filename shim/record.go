//go:build record

package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/envvar"
)

// A shim built with -tags record appends every finding's event, and what
// this rank's datatypes answered while its message was written, to the
// file MPIDBG_RECORD names: one JSON object a line, the form of
// checks/testdata/events.jsonl (docs/adding-a-check.md).

// recording answers checks.Types as the rank does, and keeps the answers.
type recording struct {
	Types      map[string]checks.TypeInfo   `json:"types,omitempty"`
	Elements   map[string]string            `json:"elements,omitempty"`
	Collisions map[string][2]string         `json:"collisions,omitempty"`
	Kinds      map[string]checks.HandleKind `json:"kinds,omitempty"`
}

func (r *recording) Type(h uint64) checks.TypeInfo {
	ti := rankTypes{}.Type(h)
	r.Types[fmt.Sprintf("%#x", h)] = ti
	return ti
}

func (r *recording) ElementAt(h, addr uint64, count int64, at uint64) string {
	p := rankTypes{}.ElementAt(h, addr, count, at)
	r.Elements[fmt.Sprintf("%#x %#x %d %#x", h, addr, count, at)] = p
	return p
}

func (r *recording) Collision(h uint64, count int64) (string, string) {
	a, b := rankTypes{}.Collision(h, count)
	r.Collisions[fmt.Sprintf("%#x %d", h, count)] = [2]string{a, b}
	return a, b
}

func (r *recording) KindOf(h uint64) checks.HandleKind {
	k := rankTypes{}.KindOf(h)
	r.Kinds[fmt.Sprintf("%#x", h)] = k
	return k
}

func recordEvent(e checks.Event) {
	path := os.Getenv(envvar.Record)
	if path == "" {
		return
	}
	r := &recording{Types: map[string]checks.TypeInfo{}, Elements: map[string]string{},
		Collisions: map[string][2]string{}, Kinds: map[string]checks.HandleKind{}}
	checks.Describe(&e, r)
	b, err := json.Marshal(map[string]any{"event": e, "types": r})
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	f.Write(append(b, '\n'))
	f.Close()
}
