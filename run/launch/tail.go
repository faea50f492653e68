package launch

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
)

// tailWriter keeps the last lines mpiexec wrote to its standard error, as
// they pass through to the user, for the launcher's own message when no
// rank started: "execvp error on file ring", Open MPI's "not enough
// slots". Its memory is bounded: tailLines lines of at most tailLineMax
// bytes each.
type tailWriter struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
}

const (
	tailLines   = 40
	tailLineMax = 512
)

// Write keeps p's lines; it never fails, so that it can sit in an
// io.MultiWriter beside the real standard error.
func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	data := p
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			t.partial = appendMax(t.partial, data)
			break
		}
		t.add(string(appendMax(t.partial, data[:i])))
		t.partial = t.partial[:0]
		data = data[i+1:]
	}
	return len(p), nil
}

func appendMax(b, p []byte) []byte {
	if room := tailLineMax - len(b); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(b, p...)
}

func (t *tailWriter) add(line string) {
	t.lines = append(t.lines, strings.TrimRight(line, "\r"))
	if len(t.lines) > 2*tailLines {
		t.lines = append(t.lines[:0], t.lines[len(t.lines)-tailLines:]...)
	}
}

// message is what mpiexec said last, made short: Hydra's own lines
// ("[proxy:0:0@vm] ...", "[mpiexec@vm] ...") when there are any, else
// the first paragraphs of Open MPI's first framed message (between lines
// of dashes) and what follows the last, else the last lines; repeated lines (one per
// rank) once, without blank lines and frames, at most maxMessageLines.
func (t *tailWriter) message() string {
	t.mu.Lock()
	lines := append([]string(nil), t.lines...)
	if len(t.partial) > 0 {
		lines = append(lines, string(t.partial))
	}
	t.mu.Unlock()
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	var hydra []string
	for _, l := range lines {
		if hydraOwn.MatchString(l) {
			hydra = append(hydra, l)
		}
	}
	if len(hydra) > 0 {
		lines = hydra
	} else if i := firstFrameStart(lines); i >= 0 {
		lines = framed(lines[i:])
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || frameLine.MatchString(l) || seen[l] {
			continue
		}
		seen[l] = true
		out = append(out, l)
	}
	if len(out) > maxMessageLines {
		out = append(out[:maxMessageLines-1], "...")
	}
	return strings.Join(out, "\n")
}

const maxMessageLines = 12

// launcherSaid reports whether mpiexec wrote a message of its own
// (Hydra's "[proxy:0:0@vm] ..." lines): a launch that failed, whatever
// mpiexec's exit status.
func (t *tailWriter) launcherSaid() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.lines {
		if hydraOwn.MatchString(l) {
			return true
		}
	}
	return false
}

var (
	// Hydra prefixes what it says itself with the component and host.
	hydraOwn = regexp.MustCompile(`^\[(proxy|mpiexec|mpirun)[^\]]*\] `)
	// Open MPI frames each help message with lines of dashes.
	frameLine = regexp.MustCompile(`^-{20,}$`)
)

// framed shortens Open MPI's framed messages, which open lines, to the
// first two paragraphs of the first (what failed, and for which program
// or node: the rest of Open MPI's help is advice, and a later message
// tends to be the generic consequence of the first), and keeps what
// follows the last frame ("2 total processes failed to start") but for
// Open MPI's count of the messages it left out.
func framed(lines []string) []string {
	var out []string
	paragraphs, i := 0, 1
	for ; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if frameLine.MatchString(l) {
			break
		}
		switch {
		case l == "" && len(out) > 0 && out[len(out)-1] != "":
			paragraphs++
			out = append(out, "")
		case l != "" && paragraphs < 2:
			out = append(out, l)
		}
	}
	last := i
	for k := i; k < len(lines); k++ {
		if frameLine.MatchString(strings.TrimSpace(lines[k])) {
			last = k
		}
	}
	for _, l := range lines[min(last+1, len(lines)):] {
		if !ompiHelpCount.MatchString(l) && !ompiAdvice.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// ompiHelpCount is Open MPI's count of the copies of a help message it
// left out.
var ompiHelpCount = regexp.MustCompile(`^\[[^\]]+\] \d+ more process(es)? ha(s|ve) sent help message`)

// firstFrameStart is the index of the first line of dashes in lines,
// or -1.
func firstFrameStart(lines []string) int {
	for i, l := range lines {
		if frameLine.MatchString(strings.TrimSpace(l)) {
			return i
		}
	}
	return -1
}
