package dap

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// TestFrames: what the base protocol's framing accepts, and where it
// says the stream is lost.
func TestFrames(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		bodies   []string
		err      string // in the error after the bodies; "" for a clean end
	}{
		{"two messages", "Content-Length: 2\r\n\r\n{}Content-Length: 3\r\n\r\n[1]", []string{"{}", "[1]"}, ""},
		{"other fields skipped", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", []string{"{}"}, ""},
		{"name in any case, bare LF", "content-length:2\n\n{}", []string{"{}"}, ""},
		{"empty stream", "", nil, ""},
		{"truncated header", "Content-Len", nil, "ended inside a message header (11 bytes"},
		{"header without its blank line", "Content-Length: 2\r\n", nil, "ended inside a message header"},
		{"truncated body", "Content-Length: 50\r\n\r\n{\"seq\":1", nil, "8 of its 50 bytes came"},
		{"second message truncated", "Content-Length: 2\r\n\r\n{}Content-Length: 9\r\n\r\n{", []string{"{}"}, "at byte 45 of the connection"},
		{"no length", "Content-Type: x\r\n\r\n{}", nil, "without Content-Length"},
		{"not a number", "Content-Length: ten\r\n\r\n", nil, `"ten" is not a number`},
		{"negative", "Content-Length: -5\r\n\r\n", nil, `"-5" is not a number`},
		{"too long", "Content-Length: 99999999999999\r\n\r\n{}", nil, "over the limit of 4194304 bytes"},
		{"two lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", nil, "differ"},
		{"no colon", "hello\r\n\r\n", nil, `"hello" has no ":"`},
		{"long line", "X-A: " + strings.Repeat("a", 2000) + "\r\n\r\n", nil, "longer than 1024 bytes"},
		{"many fields", strings.Repeat("X: y\r\n", 40) + "\r\n", nil, "more than 32 header fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFrameReader(strings.NewReader(tc.in))
			for _, want := range tc.bodies {
				got, err := f.next()
				if err != nil || string(got) != want {
					t.Fatalf("next() = %q, %v; want %q", got, err, want)
				}
			}
			_, err := f.next()
			if tc.err == "" {
				if err != io.EOF {
					t.Fatalf("at the end: %v, want io.EOF", err)
				}
				return
			}
			var fe *FrameError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("at the end: %v, want a FrameError with %q", err, tc.err)
			}
		})
	}
}

// FuzzFrames: any input ends in io.EOF or an error, never a panic, and a
// body is never longer than the limit.
func FuzzFrames(f *testing.F) {
	for _, s := range []string{"Content-Length: 2\r\n\r\n{}", "Content-Length: 5\r\nX: y\r\n\r\nabc", "content-length:0\n\n", ":\r\n\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newFrameReader(bytes.NewReader(in))
		for i := 0; ; i++ {
			b, err := r.next()
			if err != nil {
				return
			}
			if len(b) > maxMessage || i > len(in) {
				t.Fatalf("message %d: %d bytes from %d of input", i, len(b), len(in))
			}
		}
	})
}
