package dap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/go-dap"
	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/dap/gdbmi"
)

// findingInfo is a finding as the client sees it.
type findingInfo struct {
	id, severity, category, call, message, path string
	lang                                        checks.Language // of the site's file: how explain spells the entry
	rank                                        int
	ranks                                       []int // a deadlock's ranks
	file                                        string
	line                                        int
	where, related                              string // "file:line in func" as the extension names them
	siteAddr                                    uint64 // the site as the registry has it (a return address)
	details                                     string // the full text (exceptionInfo's stack trace field)
	elsewhere                                   string // why the stop is not at the site (findingFrame), or ""
}

func (f *findingInfo) involves(rank int) bool {
	if len(f.ranks) == 0 {
		return f.rank == rank
	}
	for _, r := range f.ranks {
		if r == rank {
			return true
		}
	}
	return false
}

// newestFinding reads the newest finding of tid's rank from its
// registry through the extension's -mpi-errors.
func (ss *session) newestFinding(tid int) (*findingInfo, error) {
	r, err := ss.mi("-mpi-errors --thread %d", tid)
	if err != nil {
		return nil, err
	}
	list := r.Results.Tuple("value").List("findings").Values
	if len(list) == 0 {
		return nil, fmt.Errorf("the registry's ring of findings is empty")
	}
	v, _ := list[len(list)-1].(gdbmi.Tuple)
	f := &findingInfo{id: v.String("id"), severity: v.String("severity"), category: v.String("category"),
		call: v.String("call"), message: v.String("message"), path: v.String("path"), rank: atoi(v.String("rank"))}
	site := v.Tuple("site")
	f.where = site.String("where")
	f.siteAddr, _ = strconv.ParseUint(site.String("addr"), 0, 64)
	f.file, f.line = splitWhere(f.where)
	f.lang = checks.FileLanguage(f.file)
	f.related = v.Tuple("related-site").String("where")
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s in %s (rank %d)\n", f.severity, f.id, f.call, f.rank)
	if f.where != "" {
		fmt.Fprintf(&b, "  at %s\n", f.where)
	}
	if f.path != "" {
		fmt.Fprintf(&b, "  path     %s\n", f.path)
	}
	if f.related != "" {
		fmt.Fprintf(&b, "  related  %s\n", f.related)
	}
	fmt.Fprintf(&b, "  explain  %s", f.lang.ExplainCommand(f.id))
	f.details = b.String()
	return f, nil
}

// splitWhere takes file and line out of "file.c:22 in main".
func splitWhere(w string) (string, int) {
	loc, _, _ := strings.Cut(w, " ")
	i := strings.LastIndexByte(loc, ':')
	if i < 0 {
		return "", 0
	}
	n, err := strconv.Atoi(loc[i+1:])
	if err != nil {
		return "", 0
	}
	return loc[:i], n
}

// deadlockInfo turns the launcher's deadlock finding into findingInfo.
func deadlockInfo(f checks.Finding) *findingInfo {
	fi := &findingInfo{id: f.ID, severity: string(f.Severity), category: string(f.Category), call: f.Call,
		message: f.Message, ranks: f.Ranks, rank: -1, lang: checks.FileLanguage(f.Location.File)}
	if len(f.Ranks) > 0 {
		fi.rank = f.Ranks[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: %s\n", fi.severity, fi.id, f.Message)
	for _, r := range f.Related {
		fmt.Fprintf(&b, "  related  %s\n", r.Message)
	}
	if f.Rule != "" {
		fmt.Fprintf(&b, "  rule     %s\n", f.Rule)
	}
	fmt.Fprintf(&b, "  explain  %s", fi.lang.ExplainCommand(fi.id))
	fi.details = b.String()
	return fi
}

// findingEvent is the custom event mpidbg/finding.
type findingEvent struct {
	dap.Event
	Body findingBody `json:"body"`
}

type findingBody struct {
	Rank     int    `json:"rank"`
	Ranks    []int  `json:"ranks,omitempty"`
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Category string `json:"category,omitempty"`
	Call     string `json:"call,omitempty"`
	Message  string `json:"message"`
	Path     string `json:"path,omitempty"`
	Site     *site  `json:"site,omitempty"`
	Related  string `json:"related,omitempty"`
	Language string `json:"language"` // c, fortran or python: the site's, for mpidbg explain --lang
	Text     string `json:"text"`
}

type site struct {
	File string `json:"file"`
	Line int    `json:"line"`
}

func (e *findingEvent) GetEvent() *dap.Event { return &e.Event }

func (s *Server) sendFinding(f *findingInfo) {
	ev := &findingEvent{Event: event("mpidbg/finding")}
	ev.Body = findingBody{Rank: f.rank, Ranks: f.ranks, ID: f.id, Severity: f.severity, Category: f.category,
		Call: f.call, Message: f.message, Path: f.path, Related: f.related, Language: f.lang.String(), Text: f.details}
	if f.file != "" {
		ev.Body.Site = &site{File: f.file, Line: f.line}
	}
	s.send(ev)
}

// onExceptionInfoRequest gives the finding (or signal) a thread stopped
// on.
func (s *Server) onExceptionInfoRequest(req *dap.ExceptionInfoRequest) {
	ss := s.session()
	if ss == nil {
		s.fail(req, errNoSession, "no job is being debugged")
		return
	}
	info := ss.stopOf(req.Arguments.ThreadId)
	if info == nil || (info.exception == nil && info.signal == "") {
		s.fail(req, errNoException, "thread %d did not stop on an mpidbg finding or a signal", req.Arguments.ThreadId)
		return
	}
	resp := &dap.ExceptionInfoResponse{Response: response(req)}
	if f := info.exception; f != nil {
		desc := f.message
		if f.elsewhere != "" {
			desc += " (" + f.elsewhere + ")"
		}
		resp.Body = dap.ExceptionInfoResponseBody{ExceptionId: f.id, Description: desc, BreakMode: "always",
			Details: &dap.ExceptionDetails{Message: f.message, TypeName: f.category, FullTypeName: "mpidbg " + f.severity + " " + f.id,
				StackTrace: f.details}}
	} else {
		resp.Body = dap.ExceptionInfoResponseBody{ExceptionId: info.signal, Description: "the program received " + info.signal,
			BreakMode: "always"}
	}
	s.send(resp)
}

// filterSet is the exception filters the client chose.
type filterSet struct{ errors, warnings bool }

func defaultFilters() filterSet { return filterSet{errors: true} }

func exceptionFilters() []dap.ExceptionBreakpointsFilter {
	return []dap.ExceptionBreakpointsFilter{
		{Filter: "errors", Label: "MPI errors", Description: "Stop when mpidbg finds an error (mpidbg explain lists them)", Default: true},
		{Filter: "warnings", Label: "MPI warnings", Description: "Stop on mpidbg's warnings too (leaks, potential deadlocks, ...)", Default: false},
	}
}

func (f filterSet) wants(severity string) bool {
	switch severity {
	case "error":
		return f.errors
	case "warning":
		return f.warnings
	}
	return false
}

func (f filterSet) any() bool { return f.errors || f.warnings }
