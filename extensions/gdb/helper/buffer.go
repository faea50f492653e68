package helper

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/mpidbg/mpidbg/datatype"
)

// mergeGap is the largest hole between two elements read in one piece:
// reading a few unused bytes is cheaper than another round trip.
const mergeGap = pageSize

// onBuffer shows elements start .. start+limit-1 (type-map order) of count
// instances of a datatype at addr, read through gdb, drawn by pretty's Renderer.Values
// (without colour).
func (s *Server) onBuffer(a args) (*result, error) {
	h, err := a.handle()
	if err != nil {
		return nil, err
	}
	if a.Addr == nil {
		return nil, errors.New("missing argument addr (the buffer's address)")
	}
	base := uint64(*a.Addr)
	count, err := a.count()
	if err != nil {
		return nil, err
	}
	limit, err := a.limit()
	if err != nil {
		return nil, err
	}
	start, err := a.start()
	if err != nil {
		return nil, err
	}
	snap, mem, err := s.snapshot(a)
	if err != nil {
		return nil, err
	}
	if h, err = datatypeArg(snap, a); err != nil {
		return nil, err
	}
	t, _, err := datatypeOf(snap, h)
	if err != nil {
		return nil, err
	}
	if n := t.NumElements(); n > 0 && count > math.MaxInt64/n {
		return nil, fmt.Errorf("%d instances of %s: too many elements to count", count, t.Label())
	}
	total := t.NumElements() * count
	var vals []datatype.Value
	if start < total {
		// no memory yet: Decode only locates the elements
		if vals, err = t.Decode(nil, 0, count, start, int64(limit)); err != nil {
			return nil, err
		}
	}
	errs := readValues(mem, base, vals)
	more := max(total-start-int64(len(vals)), 0)
	text := plain.Values(vals)
	switch {
	case total == 0:
		text = "no elements"
	case start >= total:
		text = fmt.Sprintf("no elements from element %d: there are %d", start, total)
	default:
		if start > 0 {
			text = fmt.Sprintf("… %d earlier elements\n", start) + text
		}
		if more > 0 {
			text += fmt.Sprintf("\n… %d more elements", more)
		}
	}
	// the reason once, not in every row: it would widen the table
	for _, err := range errs {
		if err != nil {
			text += "\nunreadable: " + err.Error()
			break
		}
	}
	els := make([]any, len(vals))
	for i, v := range vals {
		e := elementValue(v.Element)
		e["addr"] = hex(base + uint64(v.Offset))
		e["value"], e["raw"], e["error"] = nil, nil, nil
		if errs[i] != nil {
			e["error"] = errs[i].Error()
		} else {
			e["value"], e["raw"] = v.Text, fmt.Sprintf("%x", v.Raw)
		}
		els[i] = e
	}
	return &result{text: text, value: map[string]any{"handle": hex(h), "type": t.Label(), "addr": hex(base),
		"count": count, "start": start, "total": total, "more": more, "elements": els}}, nil
}

// readValues fills in the values' bytes and text, reading neighbouring
// elements in one piece. An element gdb cannot read gets the error and
// a text saying so; the others are still shown.
func readValues(mem *memory, base uint64, vals []datatype.Value) []error {
	errs := make([]error, len(vals))
	order := make([]int, len(vals))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return vals[order[i]].Offset < vals[order[j]].Offset })
	for i := 0; i < len(order); {
		lo, hi := vals[order[i]].Offset, vals[order[i]].Offset+vals[order[i]].Basic.Size()
		j := i + 1
		for ; j < len(order); j++ {
			v := vals[order[j]]
			if v.Offset > hi+mergeGap {
				break
			}
			hi = max(hi, v.Offset+v.Basic.Size())
		}
		b := make([]byte, hi-lo)
		if err := mem.ReadAt(b, base+uint64(lo)); err == nil {
			for _, k := range order[i:j] {
				fill(&vals[k], b[vals[k].Offset-lo:][:vals[k].Basic.Size()])
			}
		} else {
			// read element by element: part of the range may be mapped
			for _, k := range order[i:j] {
				raw := make([]byte, vals[k].Basic.Size())
				if err := mem.ReadAt(raw, base+uint64(vals[k].Offset)); err != nil {
					errs[k] = err
					vals[k].Raw, vals[k].Text = nil, "<unreadable>"
					continue
				}
				fill(&vals[k], raw)
			}
		}
		i = j
	}
	return errs
}

func fill(v *datatype.Value, raw []byte) {
	v.Raw = raw
	v.Text = datatype.FormatValue(v.Basic, raw)
}
