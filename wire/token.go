package wire

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
)

// A job's token proves that a connection comes from one of its ranks:
// the launcher makes a new one for every job and gives it to the ranks
// in their environment only (internal/envvar.Token), never on a command
// line, where any user of the machine could read it. A rank that has one
// sends it before anything else, as the connection's first line:
//
//	<TokenLen hexadecimal digits>\n
//
// The launcher reads exactly that many bytes (no buffering, so that the
// messages after it are read as usual), within a short deadline, and
// closes a connection whose first line is not the job's token without
// reading anything else from it.

// TokenLen is the length of a token in hexadecimal digits (32 random
// bytes).
const TokenLen = 64

// KindRefused is the launcher's answer to a connection it will not read
// (a wrong or missing token, or all the job's ranks already connected),
// sent once before it closes the connection, so that a rank knows it was
// turned away rather than that the launcher is gone.
const KindRefused Kind = "refused"

// Refused says why the launcher closes the connection.
type Refused struct {
	Why string `json:"why"`
}

// NewToken returns a new random token.
func NewToken() (string, error) {
	b := make([]byte, TokenLen/2)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("wire: make a job token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// TokenLine is the first line a rank with token sends.
func TokenLine(token string) []byte { return []byte(token + "\n") }

// ReadTokenLine reads exactly the bytes of a token line from r, and not
// one more: what it returns is to be compared with the job's token
// (line[:TokenLen]) and a newline.
func ReadTokenLine(r io.Reader) ([]byte, error) {
	line := make([]byte, TokenLen+1)
	if _, err := io.ReadFull(r, line); err != nil {
		return nil, err
	}
	return line, nil
}
