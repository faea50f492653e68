package datatype

import (
	"errors"
	"fmt"
)

// ErrInvalidArgument is wrapped by every ArgError, so callers can test
// errors.Is(err, ErrInvalidArgument) without caring which rule failed.
var ErrInvalidArgument = errors.New("invalid argument")

// ArgError reports a constructor argument that breaks an MPI rule, naming
// the constructor, the argument, the bad value and the rule, for example
// "vector: count -1 must be non-negative".
type ArgError struct {
	Func  string // constructor, e.g. "vector"
	Arg   string // argument, e.g. "count" or "blocklengths[3]"
	Value any    // the offending value
	Rule  string // the rule it breaks, e.g. "must be non-negative"
}

func (e *ArgError) Error() string {
	return fmt.Sprintf("%s: %s %v %s", e.Func, e.Arg, e.Value, e.Rule)
}

func (e *ArgError) Unwrap() error { return ErrInvalidArgument }

func argErr(fn, arg string, v any, rule string) error {
	return &ArgError{Func: fn, Arg: arg, Value: v, Rule: rule}
}
