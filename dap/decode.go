package dap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/google/go-dap"
)

// A message the server cannot take still gets an answer: a client that
// sent a request waits for its response, and one that gets none hangs.
// The answer says what was wrong in the protocol's words (the request's
// fields, JSON's types), never in Go's.

// header is what can be read of a message that did not decode.
type header struct {
	seq     int
	typ     string
	command string
}

// readHeader reads seq, type and command from a message, each when it
// is there with the right type.
func readHeader(body []byte) header {
	var m map[string]json.RawMessage
	var h header
	if json.Unmarshal(body, &m) != nil {
		return h
	}
	json.Unmarshal(m["seq"], &h.seq)
	json.Unmarshal(m["type"], &h.typ)
	json.Unmarshal(m["command"], &h.command)
	return h
}

// refuse answers a message that could not be decoded: an error response
// to the request, with its seq and command when they can be read, else
// one with request_seq 0 and the same words in an output event, for a
// client that matches responses by seq only.
func (s *Server) refuse(body []byte, err error) {
	h := readHeader(body)
	msg := decodeError(h, body, err)
	resp := &dap.ErrorResponse{Response: dap.Response{
		ProtocolMessage: dap.ProtocolMessage{Type: "response"},
		RequestSeq:      h.seq, Command: h.command, Success: false, Message: msg,
	}}
	resp.Body.Error = &dap.ErrorMessage{Id: errDecode, Format: "{message}", Variables: map[string]string{"message": msg}, ShowUser: true}
	s.send(resp)
	if h.seq == 0 || h.typ != "request" {
		s.output("stderr", "mpidbg dap: "+msg+"\n")
	}
}

// decodeError says why body is not a request the server can take.
func decodeError(h header, body []byte, err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) || !json.Valid(body) {
		at := ""
		if syn != nil {
			at = fmt.Sprintf(" (at byte %d: %s)", syn.Offset, strings.TrimPrefix(syn.Error(), "invalid character "))
		}
		return fmt.Sprintf("the message is not valid JSON%s: %s", at, excerpt(body, 80))
	}
	var fe *dap.DecodeProtocolMessageFieldError
	if errors.As(err, &fe) {
		switch {
		case fe.FieldName == "command" && h.command == "":
			return "the request has no \"command\""
		case fe.FieldName == "command":
			return fmt.Sprintf("mpidbg dap does not support the %q request", h.command)
		case fe.FieldName == "type" && h.typ == "":
			return "the message has no \"type\": mpidbg dap takes requests ({\"type\": \"request\", \"command\": ...})"
		case fe.FieldName == "type":
			return fmt.Sprintf("the message's \"type\" is %q: mpidbg dap takes requests", h.typ)
		}
	}
	if errors.Is(err, errNotRequest) || (h.typ != "request" && h.typ != "") {
		return fmt.Sprintf("mpidbg dap takes requests, not a message of type %q", h.typ)
	}
	if h.command == "" {
		return argError(body, err)
	}
	return h.command + ": " + argError(body, err)
}

// argError says what was wrong with a request's (or a launch
// configuration's) fields, from json's error decoding raw into Go.
func argError(raw []byte, err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return fmt.Sprintf("not valid JSON (at byte %d): %s", syn.Offset, excerpt(raw, 80))
		}
		return err.Error()
	}
	path := jsonPath(te.Field)
	want, got := kindName(te.Type), jsonKind(te.Value)
	if want == "a number" && got == "a number" {
		want = "a whole number" // 2.5 ranks
	}
	if path == "" {
		return fmt.Sprintf("the message must be a JSON object ({\"seq\": 1, \"type\": \"request\", \"command\": ...}), got %s", got)
	}
	v, ok := lookup(raw, path)
	if ok && !sameKind(v, te.Value) {
		// json names a list or an object whose element was wrong
		if k, e, found := element(v, te.Value); found {
			path, v = path+k, e
		}
	}
	if ok && sameKind(v, te.Value) {
		got = excerpt(v, 40)
	}
	return fmt.Sprintf("%q must be %s, got %s", strings.TrimPrefix(path, "arguments."), want, got)
}

// jsonPath is json's field path without the Go struct names that an
// embedded struct adds ("ProtocolMessage.seq" is "seq"): DAP's keys
// begin in lower case.
func jsonPath(field string) string {
	var keep []string
	for _, k := range strings.Split(field, ".") {
		if k != "" && !(k[0] >= 'A' && k[0] <= 'Z') {
			keep = append(keep, k)
		}
	}
	return strings.Join(keep, ".")
}

// element finds the first element of a list ("[1]") or value of an
// object (".X") of JSON kind kind.
func element(raw json.RawMessage, kind string) (string, json.RawMessage, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for i, e := range list {
			if sameKind(e, kind) {
				return fmt.Sprintf("[%d]", i), e, true
			}
		}
		return "", nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sameKind(m[k], kind) {
				return "." + k, m[k], true
			}
		}
	}
	return "", nil, false
}

// unmarshalArgs decodes a launch or attach configuration; none is an
// empty one.
func unmarshalArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	return json.Unmarshal(raw, v)
}

// lookup finds the value at a dotted path of object keys.
func lookup(raw []byte, path string) (json.RawMessage, bool) {
	v := json.RawMessage(raw)
	for _, k := range strings.Split(path, ".") {
		if i := strings.IndexByte(k, '['); i >= 0 {
			k = k[:i] // a list's element: the list is as far as lookup goes
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return nil, false
		}
		var ok bool
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// sameKind tells whether raw is a JSON value of the kind json names
// ("string", "number", "bool", "array", "object"): when a list's element
// was wrong, the path names the list.
func sameKind(raw json.RawMessage, kind string) bool {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '"':
		return kind == "string"
	case '[':
		return kind == "array"
	case '{':
		return kind == "object"
	case 't', 'f':
		return kind == "bool"
	case 'n':
		return false
	}
	return strings.HasPrefix(kind, "number")
}

// jsonKind is json's name of a value's kind, in words.
func jsonKind(kind string) string {
	switch {
	case kind == "array":
		return "a list"
	case kind == "object":
		return "an object"
	case kind == "bool":
		return "true or false"
	case strings.HasPrefix(kind, "number"):
		return "a number"
	}
	return "a " + kind
}

// kindName is what a Go type takes, in JSON's words.
func kindName(t reflect.Type) string {
	if t == nil {
		return "something else"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list of " + plural(kindName(t.Elem()))
	case reflect.Map:
		return "an object whose values are " + plural(kindName(t.Elem()))
	}
	return "an object"
}

// plural turns "a string" into "strings".
func plural(s string) string {
	switch s {
	case "true or false":
		return "true or false values"
	case "an object":
		return "objects"
	}
	s = strings.TrimPrefix(s, "a ")
	if strings.HasPrefix(s, "list") || strings.HasPrefix(s, "object") {
		return s
	}
	return s + "s"
}

// excerpt is raw input for a message: one line, at most n bytes.
func excerpt(b []byte, n int) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
