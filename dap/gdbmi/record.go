// Package gdbmi parses gdb's machine interface output (gdb manual, "GDB/MI
// Output Syntax"), one line at a time, as mpidbg dap reads it from
// gdb --interpreter=mi3.
//
//	output             → ( out-of-band-record )* [ result-record ] "(gdb)" nl
//	result-record      → [ token ] "^" result-class ( "," result )* nl
//	async-record       → [ token ] ( "*" | "+" | "=" ) async-class ( "," result )* nl
//	stream-record      → ( "~" | "@" | "&" ) c-string nl
//	result             → variable "=" value
//	value              → const | tuple | list
//	tuple              → "{}" | "{" result ( "," result )* "}"
//	list               → "[]" | "[" value ( "," value )* "]" | "[" result ( "," result )* "]"
//
// The parser trusts nothing: a malformed line gives a *SyntaxError with
// the byte offset, never a panic.
package gdbmi

// Kind says what a record is.
type Kind int

const (
	PromptRecord  Kind = iota // "(gdb)": the end of one output
	ResultRecord              // ^done, ^running, ^connected, ^error, ^exit
	ExecRecord                // *stopped, *running: the target's state
	StatusRecord              // +download: progress of a slow operation
	NotifyRecord              // =thread-group-added, =breakpoint-modified, ...
	ConsoleStream             // ~: what the CLI would print
	TargetStream              // @: the program's output (remote targets)
	LogStream                 // &: gdb's own messages
)

var kindNames = [...]string{"prompt", "result", "exec", "status", "notify", "console", "target", "log"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// Record is one line of MI output.
type Record struct {
	Kind    Kind
	Token   string // the digits before ^, *, +, =; "" when none
	Class   string // done, error, stopped, thread-group-added, ...
	Results Tuple  // result and async records
	Text    string // stream records: the decoded c-string
}

// Value is a Const, a Tuple or a List.
type Value interface{ isValue() }

// Const is a decoded c-string.
type Const string

// Result is one name=value pair.
type Result struct {
	Name  string
	Value Value
}

// Tuple is an ordered set of results; names may repeat (gdb repeats
// "frame=" in some lists of results).
type Tuple []Result

// List holds values or, in some of gdb's outputs, results; Results is
// set for the latter.
type List struct {
	Values  []Value
	Results []Result
}

func (Const) isValue() {}
func (Tuple) isValue() {}
func (List) isValue()  {}

// Get returns the first value named name, or nil.
func (t Tuple) Get(name string) Value {
	for _, r := range t {
		if r.Name == name {
			return r.Value
		}
	}
	return nil
}

// String returns the const named name, "" when it is absent or not a
// const.
func (t Tuple) String(name string) string {
	c, _ := t.Get(name).(Const)
	return string(c)
}

// Tuple returns the tuple named name, nil when absent or not a tuple.
func (t Tuple) Tuple(name string) Tuple {
	v, _ := t.Get(name).(Tuple)
	return v
}

// List returns the list named name; the zero List when absent.
func (t Tuple) List(name string) List {
	v, _ := t.Get(name).(List)
	return v
}
