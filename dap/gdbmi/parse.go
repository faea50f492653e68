package gdbmi

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SyntaxError is a line that is not MI output.
type SyntaxError struct {
	Offset int // byte of the line where parsing stopped
	Msg    string
	Line   string
}

func (e *SyntaxError) Error() string {
	line := e.Line
	if len(line) > 120 {
		line = line[:120] + "…"
	}
	return fmt.Sprintf("gdb/mi: byte %d: %s in %q", e.Offset, e.Msg, line)
}

// maxDepth bounds nesting: gdb's deepest outputs (varobj children, frame
// lists) stay far below it; a line beyond it is rejected, not recursed on.
const maxDepth = 256

type parser struct {
	s     string
	i     int
	depth int
}

// Parse decodes one line of MI output, without its newline (a trailing
// "\r\n" or "\n" is ignored).
func Parse(line string) (Record, error) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	p := &parser{s: line}
	r, err := p.record()
	if err != nil {
		return Record{}, err
	}
	if p.i != len(p.s) {
		return Record{}, p.fail("unexpected %q after the record", p.s[p.i])
	}
	return r, nil
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...), Line: p.s}
}

func (p *parser) record() (Record, error) {
	if strings.TrimRight(p.s, " ") == "(gdb)" {
		p.i = len(p.s)
		return Record{Kind: PromptRecord}, nil
	}
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	r := Record{Token: p.s[start:p.i]}
	if p.i == len(p.s) {
		return Record{}, p.fail("no record after the token")
	}
	c := p.s[p.i]
	p.i++
	switch c {
	case '~', '@', '&':
		if r.Token != "" {
			return Record{}, p.fail("a stream record has no token")
		}
		r.Kind = ConsoleStream
		if c == '@' {
			r.Kind = TargetStream
		} else if c == '&' {
			r.Kind = LogStream
		}
		text, err := p.cstring()
		if err != nil {
			return Record{}, err
		}
		r.Text = text
		return r, nil
	case '^':
		r.Kind = ResultRecord
	case '*':
		r.Kind = ExecRecord
	case '+':
		r.Kind = StatusRecord
	case '=':
		r.Kind = NotifyRecord
	default:
		p.i--
		return Record{}, p.fail("%q does not start an MI record", c)
	}
	r.Class = p.word()
	if r.Class == "" {
		return Record{}, p.fail("missing class after %q", c)
	}
	for p.i < len(p.s) {
		if p.s[p.i] != ',' {
			return Record{}, p.fail("want ',' between results, have %q", p.s[p.i])
		}
		p.i++
		res, err := p.result()
		if err != nil {
			return Record{}, err
		}
		r.Results = append(r.Results, res)
	}
	return r, nil
}

// word reads a class or a variable: letters, digits, '-' and '_'.
func (p *parser) word() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '-' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

func (p *parser) result() (Result, error) {
	name := p.word()
	if name == "" {
		return Result{}, p.fail("want a variable name")
	}
	if p.i == len(p.s) || p.s[p.i] != '=' {
		return Result{}, p.fail("want '=' after %q", name)
	}
	p.i++
	v, err := p.value()
	if err != nil {
		return Result{}, err
	}
	return Result{Name: name, Value: v}, nil
}

func (p *parser) value() (Value, error) {
	if p.i == len(p.s) {
		return nil, p.fail("want a value")
	}
	switch p.s[p.i] {
	case '"':
		s, err := p.cstring()
		return Const(s), err
	case '{':
		return p.tuple()
	case '[':
		return p.list()
	}
	return nil, p.fail("%q does not start a value", p.s[p.i])
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.fail("nested deeper than %d", maxDepth)
	}
	return nil
}

func (p *parser) tuple() (Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // {
	t := Tuple{}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return t, nil
	}
	for {
		r, err := p.result()
		if err != nil {
			return nil, err
		}
		t = append(t, r)
		if p.i == len(p.s) {
			return nil, p.fail("unterminated tuple")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return t, nil
		default:
			return nil, p.fail("want ',' or '}' in a tuple, have %q", p.s[p.i])
		}
	}
}

func (p *parser) list() (Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	p.i++ // [
	var l List
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return l, nil
	}
	// a list of results starts with a name, a list of values with " { [
	results := p.i < len(p.s) && p.s[p.i] != '"' && p.s[p.i] != '{' && p.s[p.i] != '['
	for {
		if results {
			r, err := p.result()
			if err != nil {
				return nil, err
			}
			l.Results = append(l.Results, r)
		} else {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			l.Values = append(l.Values, v)
		}
		if p.i == len(p.s) {
			return nil, p.fail("unterminated list")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return l, nil
		default:
			return nil, p.fail("want ',' or ']' in a list, have %q", p.s[p.i])
		}
	}
}

// cstring decodes a C string as gdb writes it (printchar in gdb's
// utils.c): backslash escapes for quotes, backslashes and control
// characters, and three octal digits for any other byte gdb does not
// print as is (the bytes of UTF-8 text in a non-UTF-8 host charset).
// Invalid UTF-8 in the result is replaced, so that the text can go into
// JSON as it is.
func (p *parser) cstring() (string, error) {
	if p.i == len(p.s) || p.s[p.i] != '"' {
		return "", p.fail("want '\"'")
	}
	p.i++
	var b strings.Builder
	for {
		if p.i == len(p.s) {
			return "", p.fail("unterminated string")
		}
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			s := b.String()
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			return s, nil
		case '\\':
			if p.i == len(p.s) {
				return "", p.fail("unterminated escape")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'f':
				b.WriteByte('\f')
			case 'v':
				b.WriteByte('\v')
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 'e':
				b.WriteByte(0x1b)
			case '"', '\\', '\'':
				b.WriteByte(e)
			default:
				if e < '0' || e > '7' {
					p.i--
					return "", p.fail("unknown escape \\%c", e)
				}
				v := int(e - '0')
				for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
					v = v*8 + int(p.s[p.i]-'0')
					p.i++
				}
				if v > 0xff {
					return "", p.fail("octal escape above \\377")
				}
				b.WriteByte(byte(v))
			}
		default:
			b.WriteByte(c)
		}
	}
}
