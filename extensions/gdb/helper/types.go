package helper

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/mpidbg/mpidbg/datatype"
	"github.com/mpidbg/mpidbg/pretty"
	"github.com/mpidbg/mpidbg/shim/registry"
)

// onType shows one datatype the way `mpidbg inspect` does; view picks
// which of its renderings.
func (s *Server) onType(a args) (*result, error) {
	h, err := a.handle()
	if err != nil {
		return nil, err
	}
	limit, err := a.limit()
	if err != nil {
		return nil, err
	}
	view := a.View
	if view == "" {
		view = "summary"
	}
	snap, _, err := s.snapshot(a)
	if err != nil {
		return nil, err
	}
	if h, err = datatypeArg(snap, a); err != nil {
		return nil, err
	}
	t, rec, err := datatypeOf(snap, h)
	var null *NullHandleError
	if errors.As(err, &null) {
		// what a variable holds after MPI_Type_free: no error to show
		text := null.Name
		if view != "print" {
			text += ": the null datatype handle, which names no datatype"
		}
		return &result{text: text, value: map[string]any{"handle": hex(h), "name": null.Name, "label": null.Name,
			"null": true, "predefined": false}}, nil
	}
	if err != nil {
		return nil, err
	}
	if rec != nil {
		s.nameSites(rec.Site, rec.FreeSite)
	}
	v := s.typeValue(h, t, rec)
	var text string
	switch view {
	case "print":
		text = printLine(t, rec)
	case "summary":
		text = plain.Summary(t, 1)
		if rec != nil {
			text += "\n\n" + plain.Fields(s.recordFields(*rec))
		}
	case "tree":
		text = plain.MetaTree(t.MetaTree())
		v["tree"] = nodeValue(t.MetaTree())
	case "expanded":
		n := t.ExpandedTree(1, limit)
		text = plain.ExpandedTree(n)
		v["expanded"] = nodeValue(n)
	case "typemap":
		text = plain.TypeMap(t, 1, limit)
		v["typemap"] = typeMapValue(t, limit)
	case "signature":
		text = t.Signature().String()
	default:
		return nil, fmt.Errorf("unknown view %q (want print, summary, tree, expanded, typemap or signature)", view)
	}
	return &result{text: text, value: v}, nil
}

// printLine is the pretty printer's form of an MPI_Datatype: one label,
// and the record's state when it is not the usual committed one.
func printLine(t *datatype.Type, rec *registry.Type) string {
	line := plain.TypeLabel(t)
	switch {
	case rec == nil:
	case rec.State.Has(registry.Freed) || !rec.State.Has(registry.Live):
		line += "  (freed)"
	case !rec.State.Has(registry.Committed):
		line += "  (not committed)"
	}
	return line
}

// recordFields is what the registry knows of a derived type beyond its
// layout: the handle, state and where it was made.
func (s *Server) recordFields(rec registry.Type) []pretty.Field {
	fs := []pretty.Field{{Key: "handle", Value: hex(rec.Handle)}, {Key: "state", Value: stateText(rec.State)},
		{Key: "created at", Value: s.siteText(rec.Site)}}
	if rec.FreeSite != 0 {
		fs = append(fs, pretty.Field{Key: "freed at", Value: s.siteText(rec.FreeSite)})
	}
	return fs
}

func (s *Server) typeValue(h uint64, t *datatype.Type, rec *registry.Type) map[string]any {
	v := map[string]any{
		"handle": hex(h), "name": t.Name, "label": t.Label(), "combiner": t.Combiner.String(), "args": t.Args(),
		"expr": t.Expr(), "predefined": t.IsPredefined(), "size": t.TypeSize(), "lb": t.LB(), "extent": t.Extent(),
		"true_lb": t.TrueLB(), "true_extent": t.TrueExtent(), "elements": t.NumElements(),
		"signature": t.Signature().String(), "state": nil, "site": nil, "free_site": nil,
	}
	params := []map[string]any{}
	for _, p := range t.Params() {
		params = append(params, map[string]any{"name": p.Name, "value": p.Value})
	}
	v["params"] = params
	// the old types, with their handles as MPI_Type_get_contents gives
	// them: a debugger shows a derived one through its own printer, and
	// names a predefined one without asking again
	olds := t.Types
	if t.Old != nil {
		olds = []*datatype.Type{t.Old}
	}
	old := []map[string]any{}
	if rec != nil {
		v["state"], v["site"], v["free_site"] = states(rec.State), s.siteValue(rec.Site), s.siteValue(rec.FreeSite)
		for i, h := range rec.Types {
			o := map[string]any{"handle": hex(h), "label": nil, "predefined": nil}
			if i < len(olds) {
				o["label"], o["predefined"] = olds[i].Label(), olds[i].IsPredefined()
			}
			old = append(old, o)
		}
	}
	v["oldtypes"] = old
	return v
}

// nodeValue is a type tree as data: the constructor tree's edges, or the
// instance tree's indices and offsets.
func nodeValue(n *datatype.Node) map[string]any {
	v := map[string]any{"type": n.Type.Label(), "combiner": n.Type.Combiner.String(), "args": n.Type.Args(),
		"size": n.Type.TypeSize(), "extent": n.Type.Extent(), "lb": n.Type.LB(),
		"edge": n.Edge, "index": n.Index, "offset": n.Offset, "more": n.More}
	if n.Index == nil {
		v["index"] = []int64{}
	}
	kids := make([]any, 0, len(n.Children))
	for _, c := range n.Children {
		kids = append(kids, nodeValue(c))
	}
	v["children"] = kids
	return v
}

func typeMapValue(t *datatype.Type, limit int) map[string]any {
	total := t.NumElements()
	shown := min(total, int64(limit))
	els := make([]any, 0, shown)
	for i := int64(0); i < shown; i++ {
		el, err := t.ElementAt(1, i)
		if err != nil {
			break
		}
		els = append(els, elementValue(el))
	}
	return map[string]any{"elements": els, "total": total, "more": total - int64(len(els))}
}

func elementValue(el datatype.Element) map[string]any {
	return map[string]any{"index": el.Index, "offset": el.Offset, "packed": el.Packed,
		"type": el.Basic.String(), "path": el.Path.String(), "short": el.Path.Short()}
}

// onTypes lists the derived datatypes the registry holds, in the order
// they were made.
func (s *Server) onTypes(a args) (*result, error) {
	var re *regexp.Regexp
	if a.Regexp != "" {
		var err error
		if re, err = regexp.Compile(a.Regexp); err != nil {
			return nil, fmt.Errorf("regexp %q: %v", a.Regexp, err)
		}
	}
	snap, _, err := s.snapshot(a)
	if err != nil {
		return nil, err
	}
	recs := append([]registry.Type(nil), snap.Types...)
	// oldest first: Open MPI's handles are heap addresses, whose order
	// says nothing to the user and changes with the heap's layout
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Serial < recs[j].Serial })
	if re != nil {
		recs = slices.DeleteFunc(recs, func(r registry.Type) bool {
			label := r.Name
			if label == "" {
				label = r.Combiner.String()
			}
			return !re.MatchString(label)
		})
	}
	var sites []uint64
	for _, r := range recs {
		sites = append(sites, r.Site, r.FreeSite)
	}
	s.nameSites(sites...)
	rows := [][]string{}
	vals := []any{}
	for _, r := range recs {
		name := r.Name
		if name == "" {
			name = "-"
		}
		rows = append(rows, []string{hex(r.Handle), name, r.Combiner.String(), fmt.Sprint(r.Size), fmt.Sprint(r.Extent),
			stateText(r.State), s.siteText(r.Site)})
		vals = append(vals, map[string]any{"handle": hex(r.Handle), "name": r.Name, "combiner": r.Combiner.String(),
			"size": r.Size, "lb": r.LB, "extent": r.Extent, "true_lb": r.TrueLB, "true_extent": r.TrueExt,
			"state": states(r.State), "serial": r.Serial, "site": s.siteValue(r.Site), "free_site": s.siteValue(r.FreeSite)})
	}
	var text string
	switch {
	case len(rows) > 0:
		text = table([]string{"handle", "name", "constructor", "size", "extent", "state", "created at"}, rows)
	case re != nil:
		text = fmt.Sprintf("no datatype matches %q", a.Regexp)
	default:
		text = "no derived datatypes recorded"
	}
	if snap.Torn {
		text += "\n" + tornNote
	}
	return &result{text: text, value: map[string]any{"types": vals, "torn": snap.Torn}}, nil
}

// onPath says which element a path names in count instances of a type.
func (s *Server) onPath(a args) (*result, error) {
	h, err := a.handle()
	if err != nil {
		return nil, err
	}
	count, err := a.count()
	if err != nil {
		return nil, err
	}
	if a.Path == "" {
		return nil, errors.New("missing argument path (such as \"s_type[2][5]\")")
	}
	p, err := datatype.ParsePath(a.Path)
	if err != nil {
		return nil, err
	}
	snap, _, err := s.snapshot(a)
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
	el, err := t.Resolve(count, p)
	if err != nil {
		return nil, err
	}
	return &result{text: plain.Element(el), value: elementValue(el)}, nil
}
