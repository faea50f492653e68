/*
 * Message races (checks/messages.go): a wildcard receive R that took one
 * rank's message while another rank's message, not sent after R by any
 * chain of messages, could have matched it. What matters is what the
 * other order does, decided here from what this rank knows: R's datatype
 * and count, the signatures and counts both messages' shadows carried,
 * and the later receive that took the other message (R2):
 *
 *   - the other message does not fit R (type mismatch, truncation) where
 *     it fits R2, which took it: message-race;
 *   - R2 is a wildcard receive that accepts R's message, and R's message
 *     does not fit R2 where it fits R: message-race (LATER_RECV);
 *   - R2 accepts only the other rank: under the other order R2 waits for
 *     a second message of that rank, unless a later wildcard receive took
 *     one of its messages (which could take R's message instead); decided
 *     at MPI_Finalize, when no such receive came: message-race (STARVED).
 *     Only when R ignored its status (MPI_STATUS_IGNORE): a program that
 *     reads R's MPI_SOURCE may have chosen R2's source from it ("receive
 *     from anyone, then from the other one"), which the other order
 *     changes with it; that is message-race-info. So is it when a
 *     wildcard probe whose status the program saw (MPI_Probe,
 *     MPI_Iprobe that matched, MPI_Mprobe, MPI_Improbe) completed on the
 *     communicator after R and before R2 was posted: R2's source may be
 *     the probe's MPI_SOURCE ("receive from anyone, then probe for the
 *     next one"), which under the other order names the other rank too.
 *     A source chosen from the message's data instead is not told apart
 *     (docs/cross-rank.md);
 *   - otherwise every candidate fits and the order is the program's:
 *     message-race-info, off unless asked for.
 * A message that fails where it was taken is type-mismatch or
 * message-truncated already (xr_p2p.c): the race adds nothing then.
 *
 * Candidates follow MPI's non-overtaking rule (MPI-4.1 §3.5): of another
 * rank's messages R accepts, only the first one received after R could
 * have matched R; a later one would have had to overtake it. A message
 * taken by a receive posted before R was never R's to take.
 *
 * Every function here wants mpidbg_xr_mu held (xr_p2p.c takes it).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"
#include "xr_race.h"

#define NRACE 8   /* wildcard receives remembered per communicator */
#define NPASSED 8 /* other ranks whose first candidate a note has seen */
#define SIGMAX 48 /* signature bytes a note keeps of the message it took */
#define NSTARVE 16

struct mpidbg_xrace {
    struct xrace_note {
        uint64_t clock, site, site_off;
        uint32_t site_mod;
        int32_t src, rtag, call, scall, used;
        uint32_t tslot, tcount; /* the receive as a thread-clock event (tclock.h); tcount 0: none */
        /* the receive's datatype: its blob, never freed (xr_p2p.c), so
         * the type may be freed or its handle reused meanwhile */
        const uint8_t *rsig;
        uint32_t rsiglen;
        int32_t ttag; /* the message it took: tag, count, signature */
        int64_t rcount, tcount_msg;
        uint32_t tsiglen;
        int32_t tknown, tfits; /* the signature is kept; it fits the receive */
        uint8_t tsig[SIGMAX];
        int32_t passed[NPASSED], npassed;
        uint64_t post; /* when the receive was posted, 0 unknown */
        uint64_t probed; /* when the first wildcard probe with a status completed after it, 0 none */
        int32_t blind; /* the program could not see which rank it took (MPI_STATUS_IGNORE) */
    } r[NRACE];
    unsigned next;
    uint64_t lost; /* the latest posting of a note the ring overwrote */
};

/* a receive the other order leaves waiting (STARVED), until a later
 * wildcard receive takes a message of the other rank */
static struct starve {
    int used;
    uint64_t comm;
    int32_t other; /* the other rank, in the communicator */
    uint64_t site, rsite;
    int32_t call, rcall;
    int32_t val;
    int32_t rank[2], scall[2];
    uint32_t mod[2];
    uint64_t off[2];
} starving[NSTARVE];

/* after is the clock above which a send came after the noted receive:
 * its own clock, or under thread clocks the first clock with which a
 * thread that knew the receive sent anything (a message another thread
 * sent later in time, without knowing of the receive, does not order
 * it: MPI-4.1 §3.5). */
static uint64_t after(const struct xrace_note *n)
{
    if (!n->tcount || !mpidbg_tc_running())
        return n->clock;
    return mpidbg_tc_published(n->tslot, n->tcount);
}

/* fit says whether scount x ssig fits a receive of rcount x rsig: 0 yes,
 * 1 no (text says how), -1 unknown. Equal signatures and a count no
 * larger settle it without the model. */
static int fit(const uint8_t *ssig, uint32_t ssiglen, int64_t scount, const uint8_t *rsig, uint32_t rsiglen, int64_t rcount,
               char *text, size_t n)
{
    if (!ssig || !rsig || !ssiglen || !rsiglen)
        return -1;
    if (ssiglen == rsiglen && memcmp(ssig, rsig, ssiglen) == 0 && scount <= rcount)
        return 0;
    struct mpidbg_xrfit f;
    memset(&f, 0, sizeof f);
    f.ssig = ssig;
    f.ssiglen = (int32_t)ssiglen;
    f.scount = scount;
    f.rsig = rsig;
    f.rsiglen = (int32_t)rsiglen;
    f.rcount = rcount;
    mpidbg_depth++;
    int r = mpidbg_go_race_fit(&f);
    mpidbg_depth--;
    if (r == 1 && text)
        snprintf(text, n, "%s", f.text);
    return r;
}

static int passed(struct xrace_note *n, int src)
{
    for (int i = 0; i < n->npassed && i < NPASSED; i++)
        if (n->passed[i] == src)
            return 1;
    if (n->npassed >= NPASSED)
        return 1; /* too many ranks to follow: no more candidates, rather than wrong ones */
    n->passed[n->npassed++] = src;
    return 0;
}

static void report(struct mpidbg_cobj *co, const struct xrace_note *n, const struct mpidbg_xr_msg *m, int fid, int variant,
                   const char *text, uint64_t rsite, int rcall)
{
    struct mpidbg_cx cx;
    memset(&cx, 0, sizeof cx);
    cx.call = n->call;
    cx.site = n->site;
    mpidbg_depth++;
    struct mpidbg_ev ev;
    mpidbg_ev_init(&ev, &cx, fid, "source");
    ev.variant = variant;
    ev.val = m->tag;
    ev.text = text;
    ev.nremote = 2;
    ev.remote_rank[0] = mpidbg_xr_world_of(co, n->src);
    ev.remote_mod[0] = n->site_mod;
    ev.remote_off[0] = n->site_off;
    ev.remote_call[0] = n->scall;
    ev.remote_rank[1] = m->world;
    ev.remote_mod[1] = m->site_mod;
    ev.remote_off[1] = m->site_off;
    ev.remote_call[1] = m->call;
    if (rsite) {
        ev.related_site = rsite;
        ev.related_call = rcall;
        ev.related_kind = MPIDBG_REL_LATER_RECV;
    }
    mpidbg_report(&cx, &ev);
    mpidbg_depth--;
}

/* a later receive R2, the one that took the other candidate message */
struct later {
    int32_t source, tag, call;
    uint64_t site, post;
    const uint8_t *rsig; /* its datatype's blob */
    uint32_t rsiglen;
    int64_t rcount;
};

static void starve(struct mpidbg_cobj *co, const struct xrace_note *n, const struct mpidbg_xr_msg *m, const struct later *r)
{
    for (int i = 0; i < NSTARVE; i++) {
        struct starve *s = &starving[i];
        if (s->used)
            continue;
        *s = (struct starve){1, co->handle, m->src, n->site, r->site, n->call, r->call, m->tag,
                             {mpidbg_xr_world_of(co, n->src), m->world}, {n->scall, m->call},
                             {n->site_mod, m->site_mod}, {n->site_off, m->site_off}};
        return;
    }
    /* no room: not reported, rather than guessed */
}

/* judge decides what the other order does: the wildcard receive R (n)
 * taking m, which R2 (r) took instead. */
static void judge(struct mpidbg_cobj *co, const struct xrace_note *n, const struct mpidbg_xr_msg *m, const struct later *r)
{
    char text[512] = "";
    int variant = MPIDBG_V_PLAIN, fid = MPIDBG_F_MESSAGE_RACE_INFO;
    uint64_t rsite = 0;
    /* the other message where it was taken, and in R */
    int here = fit(m->sig, m->siglen, m->count, r->rsig, r->rsiglen, r->rcount, NULL, 0);
    int there = fit(m->sig, m->siglen, m->count, n->rsig, n->rsiglen, n->rcount, text, sizeof text);
    int unknown = here < 0 || there < 0;
    if (there == 1 && here == 0) {
        fid = MPIDBG_F_MESSAGE_RACE;
    } else if (r->source == MPI_ANY_SOURCE && (r->tag == MPI_ANY_TAG || r->tag == n->ttag)) {
        /* R2 takes R's message instead */
        int later = n->tknown ? fit(n->tsig, n->tsiglen, n->tcount_msg, r->rsig, r->rsiglen, r->rcount, text, sizeof text) : -1;
        unknown = unknown || later < 0 || n->tfits < 0;
        if (later == 1 && n->tfits == 0) {
            fid = MPIDBG_F_MESSAGE_RACE;
            variant = MPIDBG_V_LATER_RECV;
            rsite = r->site;
        }
    } else if (r->source == m->src && n->blind && !(n->probed && (!r->post || n->probed < r->post)) &&
               mpidbg_enabled(MPIDBG_F_MESSAGE_RACE)) {
        starve(co, n, m, r);
        return; /* decided at MPI_Finalize */
    }
    if (fid == MPIDBG_F_MESSAGE_RACE_INFO) {
        if (!mpidbg_enabled(MPIDBG_F_MESSAGE_RACE_INFO))
            return;
        if (unknown)
            variant = MPIDBG_V_UNKNOWN;
    } else if (!mpidbg_enabled(fid)) {
        return;
    }
    if (mpidbg_seen_pair(n->site ^ (uint64_t)fid << 56,
                         m->site_off ^ ((uint64_t)m->site_mod << 40) ^ (uint64_t)m->world << 20))
        return;
    report(co, n, m, fid, variant, text, rsite, r->call);
}

/* fill notes the wildcard receive r, which took m, as a race's R */
static void fill(struct xrace_note *n, const struct mpidbg_xr_msg *m, const struct mpidbg_xr_recv *r)
{
    memset(n, 0, sizeof *n);
    n->clock = mpidbg_xr_clock;
    n->site = r->site;
    n->site_off = m->site_off;
    n->site_mod = m->site_mod;
    n->src = m->src;
    n->rtag = r->tag;
    n->call = r->call;
    n->scall = m->call;
    n->tcount = mpidbg_tc_running() ? mpidbg_tc_tick(&n->tslot) : 0;
    uint32_t exprlen = 0;
    n->rsig = mpidbg_xr_type_blob(r->type, &n->rsiglen, &exprlen);
    n->rcount = r->count;
    n->post = r->post;
    n->blind = r->blind;
    n->ttag = m->tag;
    n->tcount_msg = m->count;
    if (m->sig && m->siglen <= SIGMAX) {
        memcpy(n->tsig, m->sig, m->siglen);
        n->tsiglen = m->siglen;
        n->tknown = 1;
    }
    n->tfits = fit(m->sig, m->siglen, m->count, n->rsig, n->rsiglen, n->rcount, NULL, 0);
    n->used = 1;
}

/* mpidbg_xr_race looks at receive r, which took message m, against the
 * wildcard receives noted before it, then notes r if it is one.
 *
 * Noted before r means completed before it as this process saw it, not
 * matched before it: two threads' blocking receives can come back in the
 * other order. When r was posted first, m could not have been the noted
 * receive's (r had it first), but the noted receive's message could have
 * been r's: r had already matched m when that message came, so the
 * other order is that message arriving first. It is a candidate unless
 * sent after r, which nothing can be when r is a blocking receive whose
 * completion the program learns only now, and whose message was not a
 * synchronous send (the sender of one learns of the match when its send
 * completes, and could have told the other sender): so only then. A
 * nonblocking r is not judged this way (MPI_Request_get_status could
 * have told the program of its completion long before), nor is it when
 * the ring overwrote a note posted after r (the first message of that
 * rank may be the lost one). The check wants m itself not sent after the
 * noted receive too, since postings are numbered before MPI sees them,
 * and two threads' numbers may be in the other order than MPI's: a
 * receive that only seems posted first, whose message was sent after the
 * noted receive, is no race. Notes are visited oldest first, so that of
 * one rank's messages the first a receive could have taken is judged
 * (MPI-4.1 §3.5: the later ones would have had to overtake it). */
static int blocking_recv(int call)
{
    return call == MPIDBG_CALL_MPI_Recv || call == MPIDBG_CALL_MPI_Sendrecv || call == MPIDBG_CALL_MPI_Sendrecv_replace;
}

static int synchronous_send(int call)
{
    return call == MPIDBG_CALL_MPI_Ssend || call == MPIDBG_CALL_MPI_Issend || call == MPIDBG_CALL_MPI_Ssend_init;
}

void mpidbg_xr_race(struct mpidbg_cobj *co, const struct mpidbg_xr_msg *m, const struct mpidbg_xr_recv *r)
{
    int wild = r->source == MPI_ANY_SOURCE;
    /* a later wildcard receive took a message of the other rank: it could
     * take the first message instead, so nothing need wait */
    if (wild)
        for (int i = 0; i < NSTARVE; i++)
            if (starving[i].used && starving[i].comm == co->handle && starving[i].other == m->src)
                starving[i].used = 0;
    if (wild && !co->races && !(co->races = calloc(1, sizeof *co->races)))
        return;
    struct mpidbg_xrace *rs = co->races;
    if (!rs)
        return;
    struct xrace_note self;
    if (wild)
        fill(&self, m, r);
    struct later r2 = {r->source, r->tag, r->call, r->site, r->post, NULL, 0, r->count};
    int r2_done = 0;
    int reverse = wild && blocking_recv(r->call) && !synchronous_send(m->call) && !(r->post && rs->lost > r->post);
    for (unsigned k = 0; k < NRACE; k++) {
        struct xrace_note *n = &rs->r[(rs->next + k) % NRACE]; /* oldest first */
        if (!n->used || n->src == m->src)
            continue;
        if (r->post && n->post && r->post < n->post) {
            if (!reverse || (r->tag != MPI_ANY_TAG && r->tag != n->ttag) || passed(&self, n->src) || !m->clock_ok ||
                m->clock > after(n))
                continue;
            struct mpidbg_xr_msg o = {n->src, mpidbg_xr_world_of(co, n->src), n->ttag, n->scall, 0, n->site_off,
                                      n->site_mod, 0, n->tcount_msg, NULL, 1, 0};
            if (n->tknown) {
                o.sig = n->tsig;
                o.siglen = n->tsiglen;
            }
            struct later nr = {MPI_ANY_SOURCE, n->rtag, n->call, n->site, n->post, n->rsig, n->rsiglen, n->rcount};
            judge(co, &self, &o, &nr);
            continue;
        }
        if (n->rtag != MPI_ANY_TAG && n->rtag != m->tag)
            continue;
        if (passed(n, m->src) || !m->clock_ok || m->clock > after(n))
            continue;
        if (!r2_done) {
            uint32_t exprlen = 0;
            r2.rsig = mpidbg_xr_type_blob(r->type, &r2.rsiglen, &exprlen);
            r2_done = 1;
        }
        judge(co, n, m, &r2);
    }
    if (wild) {
        struct xrace_note *slot = &rs->r[rs->next++ % NRACE];
        if (slot->used && slot->post > rs->lost)
            rs->lost = slot->post;
        *slot = self;
    }
}

/* mpidbg_xr_race_probed says a wildcard probe with a visible status
 * completed on co: the receives noted before it keep the first such
 * time, in postings' order (mpidbg_next_post), to compare with when a
 * later receive was posted. */
void mpidbg_xr_race_probed(struct mpidbg_cobj *co)
{
    struct mpidbg_xrace *rs = co->races;
    if (!rs)
        return;
    uint64_t now = 0;
    for (int i = 0; i < NRACE; i++) {
        struct xrace_note *n = &rs->r[i];
        if (!n->used || n->probed)
            continue;
        if (!now)
            now = mpidbg_next_post();
        n->probed = now;
    }
}

void mpidbg_xr_race_finalize(void)
{
    for (int i = 0; i < NSTARVE; i++) {
        struct starve *s = &starving[i];
        if (!s->used)
            continue;
        s->used = 0;
        if (!mpidbg_enabled(MPIDBG_F_MESSAGE_RACE) ||
            mpidbg_seen_pair(s->site ^ (uint64_t)MPIDBG_F_MESSAGE_RACE << 56 ^ 0x5354u,
                             s->off[1] ^ ((uint64_t)s->mod[1] << 40) ^ (uint64_t)s->rank[1] << 20))
            continue;
        struct mpidbg_cx cx;
        memset(&cx, 0, sizeof cx);
        cx.call = s->call;
        cx.site = s->site;
        mpidbg_depth++;
        struct mpidbg_ev ev;
        mpidbg_ev_init(&ev, &cx, MPIDBG_F_MESSAGE_RACE, "source");
        ev.variant = MPIDBG_V_STARVED;
        ev.val = s->val;
        ev.nremote = 2;
        for (int k = 0; k < 2; k++) {
            ev.remote_rank[k] = s->rank[k];
            ev.remote_mod[k] = s->mod[k];
            ev.remote_off[k] = s->off[k];
            ev.remote_call[k] = s->scall[k];
        }
        ev.related_site = s->rsite;
        ev.related_call = s->rcall;
        ev.related_kind = MPIDBG_REL_LATER_RECV;
        mpidbg_report(&cx, &ev);
        mpidbg_depth--;
    }
}
