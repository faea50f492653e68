package pretty

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/shim/calls"
)

// Finding an MPI call and its arguments in a source file, for the report's
// source lines: C and C++ (MPI_Recv(...)), Fortran (call MPI_RECV(...),
// any case; mpif.h, use mpi and mpi_f08 have the C binding's argument
// order plus ierror) and Python (mpi4py: comm.Recv(...), whose arguments
// are not the C binding's: only keywords are matched).

// lang is a source language, by the file's suffix (checks.FileLanguage
// and checks.FixedForm), with Fortran's two forms apart.
type lang int

const (
	langC lang = iota
	langFortran
	langFixedFortran // fixed form: column 6 continues a statement, column 1 starts a comment
	langPython
)

func langOf(file string) lang {
	switch checks.FileLanguage(file) {
	case checks.LangFortran:
		if checks.FixedForm(file) {
			return langFixedFortran
		}
		return langFortran
	case checks.LangPython:
		return langPython
	}
	return langC
}

// srcSpan is a range of bytes [col, end) of one line (0-based line index).
type srcSpan struct {
	line, col, end int
}

// callSite is a call found in the source: where its name is, and its
// top-level arguments in order, each with the keyword it was passed by
// ("" for a positional one).
type callSite struct {
	name srcSpan
	args []srcSpan
	kw   []string
}

// maxCallLines bounds how far an argument list is followed over lines,
// and maxCallBack how many lines before the reported one a call may start
// (a debugger's line for a call that spans lines is any of them).
const (
	maxCallLines = 30
	maxCallBack  = 6
)

// findCall finds call on line (0-based) of lines, or on one of the few
// lines before it when its argument list reaches that line.
func findCall(lines []string, line int, call string, l lang) (callSite, bool) {
	if line < 0 || line >= len(lines) || call == "" {
		return callSite{}, false
	}
	for start := line; start >= 0 && start >= line-maxCallBack; start-- {
		for _, col := range nameAt(lines[start], call, l) {
			cs, end, ok := parseArgs(lines, start, col, len(callName(call, l)), l)
			if ok && (start == line || end >= line) {
				return cs, true
			}
			if start == line { // the name on the reported line, even with its arguments unreadable
				return callSite{name: srcSpan{start, col, col + len(callName(call, l))}}, true
			}
		}
	}
	return callSite{}, false
}

// callName is the name call has in the source: the same in C and Fortran,
// a method's in mpi4py ("Recv" for MPI_Recv, "Split" for MPI_Comm_split,
// "Create_struct" for MPI_Type_create_struct).
func callName(call string, l lang) string {
	if l != langPython {
		return call
	}
	n := strings.TrimPrefix(call, "MPI_")
	for _, class := range []string{"Comm_", "Win_", "Type_", "File_", "Group_", "Info_", "Request_", "Op_", "Errhandler_", "Status_", "Cart_", "Graph_", "Dist_graph_"} {
		if rest, ok := strings.CutPrefix(n, class); ok && rest != "" {
			return rest
		}
	}
	return n
}

// nameAt returns the byte offsets in s where call's name starts as a call:
// not inside a longer identifier, followed by "(" (spaces allowed); in
// Fortran in any case, in Python as a method or module attribute in any
// case (mpi4py has Recv and recv).
func nameAt(s, call string, l lang) []int {
	name := callName(call, l)
	hay, needle := s, name
	if l != langC {
		hay, needle = strings.ToLower(s), strings.ToLower(name)
	}
	var out []int
	for from := 0; from < len(hay); {
		i := strings.Index(hay[from:], needle)
		if i < 0 {
			break
		}
		i += from
		from = i + len(needle)
		if i > 0 && isIdent(rune(hay[i-1])) {
			continue
		}
		if l == langPython && (i == 0 || hay[i-1] != '.') {
			continue
		}
		rest := strings.TrimLeft(hay[i+len(needle):], " \t")
		if !strings.HasPrefix(rest, "(") {
			continue
		}
		out = append(out, i)
	}
	return out
}

func isIdent(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// parseArgs reads the argument list of the call whose name is at
// lines[line][col:col+n]: its top-level arguments, skipping comments,
// strings and continuation marks. It returns the last line it read and
// false when the list does not end within maxCallLines.
func parseArgs(lines []string, line, col, n int, l lang) (callSite, int, bool) {
	cs := callSite{name: srcSpan{line, col, col + n}}
	i := col + n
	for i < len(lines[line]) && lines[line][i] != '(' {
		i++
	}
	i++ // past "("
	depth := 1
	var cur *srcSpan // the argument being read
	var quote byte
	inBlock := false // C's /* */
	startArg := func() {
		cs.args = append(cs.args, srcSpan{line: -1})
		cs.kw = append(cs.kw, "")
		cur = &cs.args[len(cs.args)-1]
	}
	startArg()
	for ln := line; ln < len(lines) && ln < line+maxCallLines; ln++ {
		s := lines[ln]
		if ln > line {
			i = 0
			if l == langFixedFortran {
				if s != "" && strings.ContainsRune("cC*!", rune(s[0])) {
					continue // a comment line
				}
				i = min(6, len(s)) // columns 1-6: label and continuation mark
			}
		}
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case inBlock:
				if c == '*' && i+1 < len(s) && s[i+1] == '/' {
					inBlock = false
					i++
				}
				continue
			case quote != 0:
				if c == '\\' && l != langFortran && l != langFixedFortran {
					i++
				} else if c == quote {
					quote = 0
				}
				extend(cur, ln, i)
				continue
			}
			switch {
			case l == langC && c == '/' && i+1 < len(s) && s[i+1] == '/',
				(l == langFortran || l == langFixedFortran) && c == '!',
				l == langPython && c == '#':
				i = len(s) // the rest of the line is a comment
				continue
			case l == langC && c == '/' && i+1 < len(s) && s[i+1] == '*':
				inBlock = true
				i++
				continue
			case (l == langFortran || l == langFixedFortran) && c == '&':
				continue // a continuation mark
			case c == '"' || c == '\'':
				quote = c
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
				if depth == 0 {
					if len(cs.args) == 1 && cs.args[0].line < 0 {
						cs.args, cs.kw = nil, nil // no arguments
					}
					keywords(&cs, lines, l)
					return cs, ln, true
				}
			case c == ',' && depth == 1:
				startArg()
				continue
			case c == ' ' || c == '\t' || c == '\r':
				continue
			}
			extend(cur, ln, i)
		}
	}
	return cs, line, false
}

// extend makes the argument cover the byte at (ln, i): an argument is
// marked on the line it starts on, to its last byte there.
func extend(a *srcSpan, ln, i int) {
	switch {
	case a.line < 0:
		*a = srcSpan{ln, i, i + 1}
	case a.line == ln:
		a.end = i + 1
	}
}

// keywords finds the arguments passed by keyword (Fortran's and Python's
// name=value), and narrows their spans to the value.
func keywords(cs *callSite, lines []string, l lang) {
	if l == langC {
		return
	}
	for k, a := range cs.args {
		if a.line < 0 {
			continue
		}
		s := lines[a.line][a.col:a.end]
		j := 0
		for j < len(s) && isIdent(rune(s[j])) {
			j++
		}
		rest := strings.TrimLeft(s[j:], " \t")
		if j == 0 || !strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, "==") {
			continue
		}
		cs.kw[k] = strings.ToLower(s[:j])
		v := strings.TrimLeft(rest[1:], " \t")
		cs.args[k].col = a.end - len(v)
	}
}

// argSpan is where the argument param of call is in the call found, by
// keyword, else (C and Fortran) by its position in the standard's
// parameter list.
func (cs callSite) argSpan(lines []string, call, param string, l lang) (srcSpan, bool) {
	if param == "" {
		return srcSpan{}, false
	}
	for k, kw := range cs.kw {
		if kw != "" && kw == strings.ToLower(param) && cs.args[k].line >= 0 {
			return cs.args[k], true
		}
	}
	if l == langPython {
		return cs.pyType(lines, call, param)
	}
	for k, p := range calls.Params(call) {
		if p.Name != param {
			continue
		}
		if k < len(cs.args) && cs.kw[k] == "" && cs.args[k].line >= 0 {
			return cs.args[k], true
		}
		break
	}
	return srcSpan{}, false
}

// anyCallRe is an MPI call as C or Fortran writes it.
var anyCallRe = regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_])(MPI_[A-Za-z0-9_]+)\s*\(`)

// anyCall is the first MPI function called on line s as it is written
// there, for a related place whose call the report does not name (where a
// datatype was made); "" in Python, whose calls are methods.
func anyCall(s string, l lang) string {
	if l == langPython {
		return ""
	}
	m := anyCallRe.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[2]
}

// pyType finds a datatype argument in an mpi4py call, where it is the
// last entry of the buffer's list ([buf, MPI.INT], [buf, n, MPI.INT]):
// the buffer passed by its keyword (buf=, recvbuf=), or first when it is
// the C binding's first parameter.
func (cs callSite) pyType(lines []string, call, param string) (srcSpan, bool) {
	ps := calls.Params(call)
	buf := -1
	for i, p := range ps {
		if p.Type == param && p.Role != "" {
			buf = i
			break
		}
	}
	if buf < 0 {
		return srcSpan{}, false
	}
	var a srcSpan
	found := false
	for k, kw := range cs.kw {
		if kw == ps[buf].Name {
			a, found = cs.args[k], true
		}
	}
	if !found && buf == 0 && len(cs.args) > 0 && cs.kw[0] == "" {
		a, found = cs.args[0], true
	}
	if !found || a.line < 0 {
		return srcSpan{}, false
	}
	text := lines[a.line][a.col:a.end]
	if !strings.HasPrefix(text, "[") && !strings.HasPrefix(text, "(") {
		return srcSpan{}, false
	}
	// the last top-level entry of the list, when it is one of mpi4py's datatypes
	depth, last := 0, -1
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '[', '(', '{':
			depth++
			if depth == 1 {
				last = i + 1
			}
		case ']', ')', '}':
			depth--
			if depth == 0 {
				entry := strings.TrimSpace(text[last:i])
				if last < 0 || !strings.HasPrefix(entry, "MPI.") || last == 1 && !strings.Contains(text[:i], ",") {
					return srcSpan{}, false
				}
				col := a.col + last + (len(text[last:i]) - len(strings.TrimLeft(text[last:i], " \t")))
				return srcSpan{a.line, col, col + len(entry)}, true
			}
		case ',':
			if depth == 1 {
				last = i + 1
			}
		}
	}
	return srcSpan{}, false
}
