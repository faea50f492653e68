package report

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mpidbg/mpidbg/checks"
	"github.com/mpidbg/mpidbg/internal/ranklist"
)

// Folding: the ranks' reports become one finding per bug. A bug is what
// the finding's key says (foldKey): its id, the places it names (its own
// site and its related sites, as an unordered set, so that the two ends
// of a message or the two sides of a collective are one place set), the
// datatypes' shapes (the type-tree path and the message's text), but not
// the numbers of the ranks its texts name, nor the handles (Open MPI's
// are pointers, another value in each rank), nor the counts, tags and
// sizes its texts give (number). A program's access into a
// pending operation's buffer (checks.Entry.Access) is keyed by its places
// alone: where in the buffer it hit does not make another bug. "rank 0 sends (STRUCT)[0] where
// rank 1 receives MPI_DOUBLE[0]" from rank 1 and "rank 6 sends ... where
// rank 7 receives ..." from rank 7 are one bug; the numbers are what the
// folded finding's Pattern describes.
//
// Every rank of a communicator reports a collective mismatch, each at its
// own call: these reports are first made one (foldCollectives), with the
// places of the sides that called elsewhere as related places.

// instance is one collector entry with its places resolved.
type instance struct {
	f     checks.Finding
	own   int   // the rank whose finding it is; -1 when it names ranks as they are
	ranks []int // sorted: reporters and the finding's Ranks
	count int
}

// rankRef is a reference to ranks in a message: "rank 3", "ranks 0-2,5",
// "Rank 3", "process 3" (a window's target, in the RMA checks' words); or
// a handle or address, "0x8c000001", whose value may differ between
// ranks (Open MPI's handles are pointers) for the same bug.
var rankRef = regexp.MustCompile(`\b([Rr]anks?|process) (\d+(?:[-,]\d+)*)\b|\b0x[0-9a-fA-F]+\b`)

// number is a number in a message: counts, tags, sizes and offsets
// differ between the instances of one bug (a loop whose message grows
// sends a mismatched type with another count each time), so the key
// leaves them out; the places and the datatype path stay in it, and so
// do the digits of a name (MPI_INT32_T against MPI_INT64_T is another
// signature).
var number = regexp.MustCompile(`\b\d+\b`)

// isHandle reports whether a reference is a handle or address.
func isHandle(ref string) bool { return strings.HasPrefix(ref, "0x") }

// slotMark stands for a rank reference in a message's template; it
// cannot occur in text.
const slotMark = "\x00"

// template is a message with its rank references taken out: what stays
// is the bug's text, the references are where it happened.
type template struct {
	text   string
	refs   []string // "rank 3", in order
	before []string // the text before each reference
	after  []string // and after it
}

func templateOf(msg string) template {
	var t template
	idx := rankRef.FindAllStringIndex(msg, -1)
	var b strings.Builder
	last := 0
	for _, m := range idx {
		b.WriteString(msg[last:m[0]])
		b.WriteString(slotMark)
		t.refs = append(t.refs, msg[m[0]:m[1]])
		t.before = append(t.before, msg[:m[0]])
		t.after = append(t.after, msg[m[1]:])
		last = m[1]
	}
	b.WriteString(msg[last:])
	t.text = b.String()
	return t
}

// fill puts refs back into a template's text.
func fill(text string, refs []string) string {
	var b strings.Builder
	parts := strings.Split(text, slotMark)
	for i, p := range parts {
		b.WriteString(p)
		if i < len(refs) && i < len(parts)-1 {
			b.WriteString(refs[i])
		}
	}
	return b.String()
}

// refRank is the rank a reference names when it names one.
func refRank(ref string) (int, bool) {
	_, num, _ := strings.Cut(ref, " ")
	n, err := strconv.Atoi(num)
	return n, err == nil
}

// eachRef is what a reference to the finding's own rank becomes when
// several ranks reported it: "each rank", or "each of ranks 1,2" when
// the finding's ranks are more than those it is about (the destination
// that found a lost message).
func eachRef(ref string, owners, ranks []int) string {
	word, _, _ := strings.Cut(ref, " ")
	each := "each " + strings.ToLower(strings.TrimSuffix(word, "s"))
	if !slices.Equal(owners, ranks) {
		each = "each of " + ranklist.Phrase(owners)
	}
	if word == "Rank" {
		each = "E" + each[1:]
	}
	return each
}

// foldKey is the merge key of a finding: see the comment at the top.
type foldKey struct {
	id, path string
	message  string // template
	related  string // the related places' templates, in order
	places   string // the finding's and its related places, sorted
}

// place names a resolved location, or the site when it has none.
func place(l checks.Location, s checks.Site) string {
	if l != (checks.Location{}) {
		return fmt.Sprintf("L%s:%d:%s", l.File, l.Line, l.Function)
	}
	return fmt.Sprintf("S%s+%#x", s.Module, s.Offset)
}

// folding is one instance taken apart: its key and its references (the
// message's, then each related place's).
type folding struct {
	key  foldKey
	refs []string
	ctx  template // the message's template, for the words around refs
}

func foldingOf(x *instance) folding {
	t := templateOf(x.f.Message)
	fo := folding{ctx: t, refs: slices.Clone(t.refs)}
	places := []string{place(x.f.Location, x.f.Site)}
	var rel []string
	for _, r := range x.f.Related {
		rt := templateOf(r.Message)
		rel = append(rel, rt.text)
		fo.refs = append(fo.refs, rt.refs...)
		places = append(places, place(r.Location, r.Site))
	}
	slices.Sort(places)
	places = slices.Compact(places)
	fo.key = foldKey{id: x.f.ID, path: x.f.Path, message: number.ReplaceAllString(t.text, "#"),
		related: number.ReplaceAllString(strings.Join(rel, "\x01"), "#"), places: strings.Join(places, "\x01")}
	if access(x.f) {
		// where in the buffer each thread or rank hit it (the offset, the
		// element, the path) is not another bug: the access's line and
		// the operation's are the key; the example's text says one place
		fo.key.path = ""
		fo.key.message = fmt.Sprintf("access with %d references", len(fo.refs))
	}
	return fo
}

// access says whether a finding is the program's load or store into a
// buffer an operation in progress owns (checks.Entry.Access).
func access(f checks.Finding) bool {
	e, ok := checks.Lookup(f.ID)
	return ok && e.Access
}

// fold makes one finding per bug of the instances; size is the job's
// size (0 when unknown), for patterns that wrap around.
func fold(in []instance, size int) []*Finding {
	in = foldCollectives(in)
	type group struct {
		insts []*instance
		fos   []folding
	}
	groups := map[foldKey]*group{}
	var order []*group
	for i := range in {
		fo := foldingOf(&in[i])
		g := groups[fo.key]
		if g == nil {
			g = &group{}
			groups[fo.key] = g
			order = append(order, g)
		}
		g.insts = append(g.insts, &in[i])
		g.fos = append(g.fos, fo)
	}
	var out []*Finding
	for _, g := range order {
		out = append(out, foldGroup(g.insts, g.fos, size))
	}
	return out
}

// tuple is what varies between the instances of one bug: the rank the
// finding is about and the rank references.
type tuple struct {
	own  int
	refs []string
	i    int // the instance's index in its group
}

// foldGroup makes the finding of one bug.
func foldGroup(insts []*instance, fos []folding, size int) *Finding {
	out := &Finding{}
	var ranks []int
	seen := map[string]bool{}
	var tuples []tuple
	for i, x := range insts {
		ranks = append(ranks, x.ranks...)
		out.Count += x.count
		k := strconv.Itoa(x.own) + "\x01" + strings.Join(fos[i].refs, "\x01")
		if !seen[k] {
			seen[k] = true
			tuples = append(tuples, tuple{own: x.own, refs: fos[i].refs, i: i})
		}
	}
	slices.SortStableFunc(tuples, compareTuples)
	example := tuples[0]
	out.Finding = insts[example.i].f
	out.Related = slices.Clone(out.Related)
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)
	out.Ranks = ranks
	if len(tuples) == 1 {
		return out
	}

	n := len(example.refs)
	constant := make([]bool, n)
	self := make([]bool, n)
	for s := 0; s < n; s++ {
		constant[s], self[s] = true, true
		for _, t := range tuples {
			constant[s] = constant[s] && t.refs[s] == example.refs[s]
			r, one := refRank(t.refs[s])
			self[s] = self[s] && t.own >= 0 && one && r == t.own
		}
	}
	// Varying references that always name the same ranks are one variable
	// (the sender named in the message and in its related place). A
	// handle is not a variable: each rank may have its own value for it.
	var vars [][]int // slots of each variable
	for s := 0; s < n; s++ {
		if constant[s] || self[s] || isHandle(example.refs[s]) {
			continue
		}
		found := false
		for v := range vars {
			if sameColumn(tuples, vars[v][0], s) {
				vars[v] = append(vars[v], s)
				found = true
				break
			}
		}
		if !found {
			vars = append(vars, []int{s})
		}
	}
	// render gives the finding the texts of the instance of tuple t, with
	// each varying handle said to be t's own.
	render := func(t tuple, refs []string) {
		out.Finding = insts[t.i].f
		out.Related = slices.Clone(out.Related)
		out.Ranks = ranks
		for s := range refs {
			if isHandle(refs[s]) && !constant[s] {
				refs[s] = fmt.Sprintf("%s (rank %d's; it differs by rank)", refs[s], t.own)
			}
		}
		nm := len(fos[t.i].ctx.refs)
		out.Message = fill(fos[t.i].ctx.text, refs[:nm])
		refs = refs[nm:]
		for i := range out.Related {
			rt := templateOf(out.Related[i].Message)
			out.Related[i].Message = fill(rt.text, refs[:len(rt.refs)])
			refs = refs[len(rt.refs):]
		}
	}

	if len(vars) == 0 {
		// Only the finding's own rank varies: "each rank" says it.
		var owners []int
		for _, t := range tuples {
			owners = append(owners, t.own)
		}
		slices.Sort(owners)
		owners = slices.Compact(owners)
		refs := slices.Clone(example.refs)
		for s := range refs {
			if self[s] && !constant[s] {
				refs[s] = eachRef(refs[s], owners, ranks)
			}
		}
		render(example, refs)
		return out
	}
	if p, ok := pairs(tuples, vars, self, fos[example.i].ctx); ok {
		// The example is the first pair; Pattern says the rest.
		render(p.example, slices.Clone(p.example.refs))
		out.Pattern = p.describe(size)
		return out
	}
	render(example, slices.Clone(example.refs))
	out.Pattern = alsoList(tuples, vars, ranks)
	return out
}

// sameColumn reports whether slots a and b hold the same reference in
// every tuple.
func sameColumn(ts []tuple, a, b int) bool {
	for _, t := range ts {
		if t.refs[a] != t.refs[b] {
			return false
		}
	}
	return true
}

// compareTuples orders by own rank, then by the ranks the references
// name, so that the example a finding shows does not depend on which
// rank's report came first.
func compareTuples(a, b tuple) int {
	if c := cmp.Compare(a.own, b.own); c != 0 {
		return c
	}
	for s := range min(len(a.refs), len(b.refs)) {
		if c := cmp.Compare(firstRank(a.refs[s]), firstRank(b.refs[s])); c != 0 {
			return c
		}
		if c := cmp.Compare(a.refs[s], b.refs[s]); c != 0 {
			return c
		}
	}
	return 0
}

func firstRank(ref string) int {
	_, num, _ := strings.Cut(ref, " ")
	end := strings.IndexAny(num, "-,")
	if end < 0 {
		end = len(num)
	}
	n, _ := strconv.Atoi(num[:end])
	return n
}

// verb says how the rank a finding is about relates to its peer.
type verb struct {
	one, many string // "sends to", "send to"
}

var (
	verbSend   = verb{"sends to", "send to"}
	verbTarget = verb{"targets", "target"}
	verbWith   = verb{"with", "with"}
)

// pairing is a bug whose reports differ in one peer rank: (from, to)
// pairs, with the verb between them.
type pairing struct {
	pairs   [][2]int
	verb    verb
	example tuple
}

// pairs reads the tuples as (own rank, peer rank) pairs when exactly one
// variable names a single peer and every other reference is the own
// rank. The message's words around the peer give the direction: "rank 3
// sends" names the sender, "target rank 3" the target.
func pairs(ts []tuple, vars [][]int, self []bool, ctx template) (pairing, bool) {
	if len(vars) != 1 {
		return pairing{}, false
	}
	peer := vars[0][0]
	for s := range self {
		if !self[s] && !slices.Contains(vars[0], s) && !isHandle(ts[0].refs[s]) {
			return pairing{}, false // a third party: not a pair
		}
	}
	p := pairing{verb: verbWith}
	peerSends := false
	if peer < len(ctx.refs) {
		after, before := ctx.after[peer], ctx.before[peer]
		switch {
		case strings.HasPrefix(after, " sends") || strings.HasPrefix(after, " sent") || strings.HasSuffix(before, "message of "):
			p.verb, peerSends = verbSend, true
		case strings.HasPrefix(after, " receives") || strings.HasSuffix(before, "receive of "):
			p.verb = verbSend
		case strings.HasSuffix(before, "target ") || strings.HasSuffix(before, "operation to "):
			p.verb = verbTarget
		}
		for s := range ctx.refs {
			if self[s] && (strings.HasPrefix(ctx.after[s], " sends") || strings.HasPrefix(ctx.after[s], " sent")) && !peerSends {
				p.verb = verbSend
			}
		}
	}
	best := -1
	for i, t := range ts {
		r, one := refRank(t.refs[peer])
		if !one || t.own < 0 {
			return pairing{}, false
		}
		pr := [2]int{t.own, r}
		if peerSends {
			pr = [2]int{r, t.own}
		}
		p.pairs = append(p.pairs, pr)
		if best < 0 || pr[0] < p.pairs[best][0] || pr[0] == p.pairs[best][0] && pr[1] < p.pairs[best][1] {
			best = i
		}
	}
	p.example = ts[best]
	slices.SortFunc(p.pairs, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	p.pairs = slices.Compact(p.pairs)
	return p, true
}

// maxListed bounds the pairs or instances a pattern lists one by one.
const maxListed = 4

// describe says which ranks did what: a shift ("each rank r sends to
// r+1; ranks 0-63"), a fixed peer ("ranks 1-7 send to rank 0", "rank 0
// sends to ranks 1-7"), partners ("each rank r sends to r xor 1"), else
// the pairs ("rank 0 sends to 1, 2 to 5, 3 to 4, 6 to 0 and 12 more").
func (p pairing) describe(size int) string {
	var froms, tos []int
	for _, pr := range p.pairs {
		froms = append(froms, pr[0])
		tos = append(tos, pr[1])
	}
	slices.Sort(tos)
	tos = slices.Compact(tos)
	all := ranklist.Phrase(froms)
	switch {
	case len(p.pairs) < 2:
		return ""
	case len(tos) == 1:
		v := p.verb.one
		if strings.HasPrefix(all, "ranks ") {
			v = p.verb.many
		}
		return all + " " + v + " rank " + strconv.Itoa(tos[0])
	case !strings.HasPrefix(all, "ranks "):
		return all + " " + p.verb.one + " " + ranklist.Phrase(tos)
	}
	each := "each rank r " + p.verb.one + " "
	if d, ok := shift(p.pairs, 0); ok {
		return each + offset(d) + "; " + all
	}
	if size > 0 {
		if k, ok := shift(p.pairs, size); ok {
			if k > size/2 {
				k -= size
			}
			return each + offset(k) + fmt.Sprintf(" (mod %d); ", size) + all
		}
	}
	if xor := !slices.ContainsFunc(p.pairs, func(pr [2]int) bool { return pr[1] != pr[0]^1 }); xor {
		return each + "r xor 1; " + all
	}
	var b strings.Builder
	for i, pr := range p.pairs {
		if i == maxListed {
			fmt.Fprintf(&b, " and %d more", len(p.pairs)-i)
			break
		}
		switch i {
		case 0:
			fmt.Fprintf(&b, "rank %d %s %d", pr[0], p.verb.one, pr[1])
		default:
			fmt.Fprintf(&b, ", %d %s %d", pr[0], strings.Fields(p.verb.one)[len(strings.Fields(p.verb.one))-1], pr[1])
		}
	}
	return b.String()
}

// shift is the d with to = from+d for every pair (mod size when size >
// 0), if there is one.
func shift(ps [][2]int, size int) (int, bool) {
	d := ps[0][1] - ps[0][0]
	if size > 0 {
		d = ((d % size) + size) % size
	}
	for _, pr := range ps[1:] {
		e := pr[1] - pr[0]
		if size > 0 {
			e = ((e % size) + size) % size
		}
		if e != d {
			return 0, false
		}
	}
	return d, d != 0
}

func offset(d int) string {
	if d < 0 {
		return "r" + strconv.Itoa(d)
	}
	return "r+" + strconv.Itoa(d)
}

// alsoList names the ranks and the other instances of a bug whose
// reports differ in more than one peer: the references of each variable,
// in the message's order ("ranks 0-8; the same with rank 3 … ranks 4,5;
// rank 6 … ranks 7,8").
func alsoList(ts []tuple, vars [][]int, ranks []int) string {
	var items []string
	seen := map[string]bool{strings.Join(varRefs(ts[0], vars), " … "): true}
	for _, t := range ts[1:] {
		s := strings.Join(varRefs(t, vars), " … ")
		if seen[s] {
			continue
		}
		seen[s] = true
		items = append(items, s)
	}
	if len(items) == 0 {
		return ""
	}
	more := ""
	if len(items) > maxListed {
		more = fmt.Sprintf(" and %d more", len(items)-maxListed)
		items = items[:maxListed]
	}
	return ranklist.Phrase(ranks) + "; the same with " + strings.Join(items, "; ") + more
}

func varRefs(t tuple, vars [][]int) []string {
	var out []string
	for _, v := range vars {
		out = append(out, t.refs[v[0]])
	}
	return out
}

// foldCollectives makes the reports of one collective mismatch one: every
// rank of the communicator reports it at its own call with the same
// account of the groups (the text before "; here: ", which adds what
// this rank found), so they are one instance, at the place of the lowest
// rank's call, with the places of the other calls as related places
// ("ranks 1,2 called MPI_Bcast here") and each rank's own account after
// the groups'.
func foldCollectives(in []instance) []instance {
	idx := map[ckey][]int{}
	var keys []ckey
	for i, x := range in {
		if x.f.Category != checks.CatCollective {
			continue
		}
		text, _, _ := strings.Cut(x.f.Message, hereSep)
		k := ckey{x.f.ID, text}
		if idx[k] == nil {
			keys = append(keys, k)
		}
		idx[k] = append(idx[k], i)
	}
	done := map[int]bool{}
	var made []instance
	for _, k := range keys {
		if len(idx[k]) < 2 {
			continue
		}
		var xs []*instance
		for _, i := range idx[k] {
			xs = append(xs, &in[i])
			done[i] = true
		}
		made = append(made, collective(k.text, xs))
	}
	made = append(made, foldOwnAccounts(in, idx, keys, done)...)
	if len(made) == 0 {
		return in
	}
	var out []instance
	for i := range in {
		if !done[i] {
			out = append(out, in[i])
		}
	}
	return append(out, made...)
}

// foldOwnAccounts makes one the reports of a collective mismatch whose
// ranks each give an account naming only themselves ("rank 2 found a
// block whose count or type signature differs", from rank 2): what is
// left of them after the same accounts were made one (groups of one
// instance in idx), with the same id, call and account once the own
// rank is taken out, from different ranks (a rank reports a mismatch
// once: two reports of one rank are two bugs).
func foldOwnAccounts(in []instance, idx map[ckey][]int, keys []ckey, done map[int]bool) []instance {
	type okey struct{ id, call, text string }
	groups := map[okey][]int{}
	var order []okey
	for _, k := range keys {
		if len(idx[k]) != 1 {
			continue
		}
		i := idx[k][0]
		x := &in[i]
		if x.own < 0 {
			continue
		}
		ok := okey{x.f.ID, x.f.Call, ownOut(k.text, x.own)}
		if groups[ok] == nil {
			order = append(order, ok)
		}
		groups[ok] = append(groups[ok], i)
	}
	var made []instance
	for _, ok := range order {
		is := groups[ok]
		if len(is) < 2 || !disjoint(in, is) {
			continue
		}
		var xs []*instance
		var owners, all []int
		for _, i := range is {
			xs = append(xs, &in[i])
			owners = append(owners, in[i].own)
			all = append(all, in[i].ranks...)
			done[i] = true
		}
		slices.Sort(owners)
		slices.Sort(all)
		all = slices.Compact(all)
		text := strings.ReplaceAll(ok.text, ownMark, eachRef("rank", owners, all))
		made = append(made, collective(text, xs))
	}
	return made
}

// ownMark stands for the own rank's reference in ownOut's text.
const ownMark = "rank \x01"

// ownOut replaces the references to rank own in text by ownMark.
func ownOut(text string, own int) string {
	t := templateOf(text)
	for j, ref := range t.refs {
		if r, one := refRank(ref); one && r == own && !isHandle(ref) {
			t.refs[j] = ownMark
		}
	}
	return fill(t.text, t.refs)
}

func disjoint(in []instance, is []int) bool {
	seen := map[int]bool{}
	for _, i := range is {
		for _, r := range in[i].ranks {
			if seen[r] {
				return false
			}
			seen[r] = true
		}
	}
	return true
}

// ckey groups the reports of a collective mismatch: its id and the
// account of the groups.
type ckey struct{ id, text string }

const hereSep = "; here: "

// collective makes one instance of the sides of one collective mismatch.
func collective(text string, xs []*instance) instance {
	type side struct {
		ranks []int
		first *instance
	}
	var sides []*side
	byPlace := map[string]*side{}
	here := map[string][]int{} // each rank's own account, by text
	var heres []string
	var all []int
	count := 0
	sameText := true
	for _, x := range xs {
		all = append(all, x.ranks...)
		count += x.count
		sameText = sameText && x.f.Message == xs[0].f.Message
		k := place(x.f.Location, x.f.Site) + "\x01" + x.f.Call
		s := byPlace[k]
		if s == nil {
			s = &side{first: x}
			byPlace[k] = s
			sides = append(sides, s)
		}
		s.ranks = append(s.ranks, x.ranks...)
		if _, h, ok := strings.Cut(x.f.Message, hereSep); ok {
			if here[h] == nil {
				heres = append(heres, h)
			}
			here[h] = append(here[h], x.ranks...)
		}
	}
	for _, s := range sides {
		slices.Sort(s.ranks)
		s.ranks = slices.Compact(s.ranks)
	}
	slices.SortStableFunc(sides, func(a, b *side) int { return cmp.Compare(a.ranks[0], b.ranks[0]) })
	first := sides[0].first
	f := first.f
	f.Related = nil
	for _, s := range sides[1:] {
		f.Related = append(f.Related, checks.Related{
			Message:  ranklist.Phrase(s.ranks) + " called " + s.first.f.Call + " here",
			Location: s.first.f.Location, Site: s.first.f.Site})
	}
	f.Related = append(f.Related, first.f.Related...)
	if !sameText {
		slices.SortStableFunc(heres, func(a, b string) int { return cmp.Compare(slices.Min(here[a]), slices.Min(here[b])) })
		var parts []string
		for i, h := range heres {
			if i == maxListed {
				parts = append(parts, fmt.Sprintf("and %d more", len(heres)-i))
				break
			}
			who := ranklist.Phrase(here[h])
			if strings.HasPrefix(who, "ranks ") {
				who = "each of " + who
			}
			parts = append(parts, strings.ReplaceAll(h, "this rank", who))
		}
		f.Message = text
		if len(parts) > 0 {
			f.Message += "; " + strings.Join(parts, "; ")
		}
	}
	slices.Sort(all)
	f.Ranks = nil
	return instance{f: f, own: -1, ranks: slices.Compact(all), count: count}
}
