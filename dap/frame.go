package dap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The base protocol's framing (DAP specification, "Base Protocol"): a
// header of fields, each "Name: value" ended by CRLF, an empty line, then
// Content-Length bytes of JSON. Only Content-Length is defined today; a
// field the specification may add later (or that a client shares with
// LSP, such as Content-Type) is skipped, not a reason to hang up.
const (
	maxHeaderLine   = 1 << 10 // bytes in one header field, CRLF included
	maxHeaderFields = 32
	maxMessage      = 4 << 20 // bytes of JSON in one message
)

// A FrameError is a message whose framing the server cannot follow: the
// stream is lost after it. Offset is where the fault is, in bytes from
// the connection's start: the start of a faulty header line, or the end
// of what came when the connection ended too early.
type FrameError struct {
	Offset int64
	Msg    string
}

func (e *FrameError) Error() string {
	return fmt.Sprintf("at byte %d of the connection: %s", e.Offset, e.Msg)
}

// frameReader reads the base protocol's messages from one connection.
type frameReader struct {
	r   *bufio.Reader
	off int64 // bytes consumed so far
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next message's content. It returns io.EOF only when
// the connection ends between two messages; ending inside one is a
// FrameError.
func (f *frameReader) next() ([]byte, error) {
	start := f.off
	length := int64(-1)
	for fields := 0; ; fields++ {
		at := f.off // where this header line starts
		line, err := f.line()
		if err != nil {
			if errors.Is(err, io.EOF) && f.off == start {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return nil, &FrameError{f.off, fmt.Sprintf("the connection ended inside a message header (%d bytes of it read)", f.off-start)}
			}
			return nil, err
		}
		if line == "" {
			break
		}
		if fields == maxHeaderFields {
			return nil, &FrameError{at, fmt.Sprintf("more than %d header fields", maxHeaderFields)}
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, &FrameError{at, fmt.Sprintf("header field %q has no \":\"; want \"Content-Length: N\"", clip(line))}
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		switch {
		case err != nil || n < 0:
			return nil, &FrameError{at, fmt.Sprintf("Content-Length %q is not a number of bytes", clip(strings.TrimSpace(value)))}
		case n > maxMessage:
			return nil, &FrameError{at, fmt.Sprintf("Content-Length %d is over the limit of %d bytes", n, maxMessage)}
		case length >= 0 && n != length:
			return nil, &FrameError{at, "two Content-Length fields that differ"}
		}
		length = n
	}
	if length < 0 {
		return nil, &FrameError{f.off, "a message header without Content-Length"}
	}
	body := make([]byte, length)
	n, err := io.ReadFull(f.r, body)
	f.off += int64(n)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &FrameError{f.off, fmt.Sprintf("the connection ended inside a message: %d of its %d bytes came", n, length)}
		}
		return nil, err
	}
	return body, nil
}

// line reads one header field without its CRLF. A bare LF ends a line
// too, as some clients write it.
func (f *frameReader) line() (string, error) {
	var b []byte
	for {
		frag, err := f.r.ReadSlice('\n')
		f.off += int64(len(frag))
		b = append(b, frag...)
		if len(b) > maxHeaderLine {
			return "", &FrameError{f.off, fmt.Sprintf("a header line longer than %d bytes", maxHeaderLine)}
		}
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
}

// clip shortens a field quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
