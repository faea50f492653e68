package nshosts

import (
	"fmt"
	"strings"
)

// The remote shell: what the launchers run instead of ssh. Hydra runs
// `ssh -x HOST COMMAND...`, Open MPI's rsh launcher `ssh HOST COMMAND`
// (its orted with its arguments in one word); ssh joins the words with
// spaces and the remote login shell runs them, in an environment of its
// own. The script does the same with sh -c on the host named, with PATH
// and HOME only, so that nothing reaches the remote side that ssh would
// not carry (the launchers pass the ranks' variables themselves).

// script is the remote shell for nt's hosts.
func (nt *Net) script() string {
	var b strings.Builder
	b.WriteString(`#!/bin/sh
# A remote shell for test hosts made of network namespaces (package
# nshosts): rsh [SSH-OPTIONS] HOST COMMAND...
while [ $# -gt 0 ]; do
	case "$1" in
	-[bcDEeFIiJLlmOoPpQRSWw]) shift 2 ;; # ssh's options with an argument
	-*) shift ;;
	*) break ;;
	esac
done
if [ $# -lt 2 ]; then
	echo "rsh: usage: rsh [OPTIONS] HOST COMMAND..." >&2
	exit 255
fi
host=$1
shift
case "$host" in
`)
	for _, h := range nt.all() {
		fmt.Fprintf(&b, "%s|%s) ns=%s name=%s ;;\n", h.Name, h.Addr, h.NS, h.Name)
	}
	b.WriteString(`*) echo "rsh: $host: no such test host" >&2; exit 255 ;;
esac
exec ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && cd "$2" && exec env -i PATH="$1" HOME="$2" sh -c "$3"' "$name" "$PATH" "${HOME:-/}" "$*"
`)
	return b.String()
}
