package checks

import "fmt"

// The epoch lifecycle of one-sided communication (MPI-4.1 §12.5): RMA
// calls outside an access epoch, synchronisation calls that close an
// epoch that is not open or open one that is, fence assertions the
// program contradicts, and epochs still open when the window is freed or
// MPI finalized. shim/rma_lifecycle.c keeps each window's epochs at this
// process and reports before the call reaches MPI, whose default error
// handler would abort the job first.
//
// Common fields: Call is the call concerned; Val is a target rank, as a
// rank of the window's group (what the program passed); the related place
// is where the epoch concerned was opened (RelatedOpened) or closed
// (RelatedClosed), or the first RMA call of a fence epoch
// (RelatedStarted).

// openEpochs names the epoch a variant stands for: what is open, and the
// call that ends it.
var openEpochs = map[Variant]struct{ what, end string }{
	VariantLock:    {"the access epoch MPI_Win_lock opened on target rank %d", "MPI_Win_unlock"},
	VariantLockAll: {"the access epoch MPI_Win_lock_all opened", "MPI_Win_unlock_all"},
	VariantStart:   {"the access epoch MPI_Win_start opened", "MPI_Win_complete"},
	VariantPost:    {"the exposure epoch MPI_Win_post opened", "MPI_Win_wait"},
	VariantFence:   {"the fence epoch of %s issued since the last MPI_Win_fence", "MPI_Win_fence"},
}

// openEpoch describes the open epoch of the event's variant: Val is the
// locked target (VariantLock, with Count locked targets in all), Count
// the RMA calls of a fence epoch (VariantFence).
func openEpoch(m *Message) (what, end string) {
	e, ok := openEpochs[m.Variant]
	if !ok {
		return "an epoch", "the call that ends it"
	}
	switch m.Variant {
	case VariantLock:
		what = fmt.Sprintf(e.what, m.Val)
		if m.Count > 1 {
			what += fmt.Sprintf(" (and %d more targets)", m.Count-1)
		}
	case VariantFence:
		what = fmt.Sprintf(e.what, plural(m.Count, "RMA call", "RMA calls"))
	default:
		what = e.what
	}
	return what, e.end
}

// rmaOutsideEpoch (before the RMA call): Val is the target rank. PLAIN:
// no epoch covers the target; NOT_IN_GROUP: an MPI_Win_start epoch is
// open (related) whose group lacks the target; REQUEST_BASED: a
// request-based call in an active-target epoch (Epoch FENCE or PSCW).
var rmaOutsideEpoch = register(Check{
	Entry: Entry{ID: "rma-outside-epoch", Category: CatEpochLifecycle, Severity: SevError,
		Title: "an RMA communication call targets a process no access epoch of this process covers",
		Rule:  "MPI-4.1 §12.5: RMA communication calls with argument win must occur at a process only within an access epoch for win; §12.5.2: an MPI_Win_start epoch accesses only windows of processes in its group; §12.3.5: request-based RMA operations are only valid within a passive target epoch",
		Doc: `MPI_Put, MPI_Get, the accumulate family and their request-based forms move
data only inside an access epoch that covers their target: between two
MPI_Win_fence calls (the first without MPI_MODE_NOSUCCEED), between
MPI_Win_start and MPI_Win_complete when the start group holds the target,
between MPI_Win_lock and MPI_Win_unlock on that target, or between
MPI_Win_lock_all and MPI_Win_unlock_all. MPI_Rput, MPI_Rget,
MPI_Raccumulate and MPI_Rget_accumulate need a passive-target epoch (a
lock); MPICH and Open MPI take them in fence epochs, but the standard
does not.

Outside an epoch both MPICH and Open MPI fail the call with
MPI_ERR_RMA_SYNC, which the default error handler turns into an abort.
Typical causes: the first MPI_Win_fence forgotten before the first
MPI_Put, an operation left after MPI_Win_unlock, a target missing from the
group given to MPI_Win_start. The fix is the epoch: open it before the
call and close it after (the operation completes at the call that closes
it).`},
	Message: func(m *Message) {
		if m.Variant != VariantRequestBased {
			m.Mark("target_rank")
		}
		switch m.Variant {
		case VariantNotInGroup:
			m.Printf("target rank %d is not in the group of the access epoch MPI_Win_start opened (related): that epoch accesses only the windows of its group's processes; add the rank to the start group (and the origin to the target's post group) (MPI-4.1 §12.5.2)", m.Val)
		case VariantRequestBased:
			epoch := "a fence epoch"
			if m.Epoch == EpochPSCW {
				epoch = "an MPI_Win_start epoch"
			}
			m.Printf("request-based RMA calls are only valid in a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all), and this one to target rank %d is in %s: lock the target, or use the call without a request (MPI-4.1 §12.3.5)", m.Val, epoch)
		default:
			m.Printf("no access epoch of this process covers target rank %d: no fence epoch is open, no MPI_Win_start names it, it is not locked with MPI_Win_lock nor MPI_Win_lock_all; open an epoch before the call (MPI-4.1 §12.5)", m.Val)
		}
	},
})

// fenceAssertNosucceed (before the RMA call): Val is the target rank, the
// related place the fence that asserted MPI_MODE_NOSUCCEED.
var fenceAssertNosucceed = register(Check{
	Entry: Entry{ID: "fence-assert-nosucceed", Category: CatEpochLifecycle, Severity: SevError,
		Title: "an RMA call follows an MPI_Win_fence that asserted MPI_MODE_NOSUCCEED",
		Rule:  "MPI-4.1 §12.5.5: MPI_MODE_NOSUCCEED — the fence does not start any sequence of locally issued RMA calls; it is erroneous to provide incorrect information in assert; §12.5: RMA calls occur only within an access epoch",
		Doc: `MPI_MODE_NOSUCCEED tells MPI that no RMA call of this process follows the
fence before the next one, so the fence closes the epoch without opening
another. An MPI_Put after it (with no lock or MPI_Win_start epoch covering
its target) is outside any epoch: MPICH and Open MPI fail it with
MPI_ERR_RMA_SYNC. The assertion is typical of the last fence of a loop;
the bug is an iteration more than planned, or the assertion copied onto a
fence in the middle. Drop MPI_MODE_NOSUCCEED from that fence (every
process gives the same assertions), or move the call after the next
fence.`},
	Message: func(m *Message) {
		m.MarkRelated("assert")
		m.Printf("the last MPI_Win_fence (related) asserted MPI_MODE_NOSUCCEED, that no RMA call follows it before the next fence, and this call to target rank %d follows it outside any other epoch: drop the assertion from that fence or move the call after the next one (MPI-4.1 §12.5.5)", m.Val)
	},
})

// fenceAssertNoprecede (before MPI_Win_fence): Count RMA calls of this
// process were issued in the fence epoch, the first at the related place.
var fenceAssertNoprecede = register(Check{
	Entry: Entry{ID: "fence-assert-noprecede", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_fence asserts MPI_MODE_NOPRECEDE but RMA calls of this process precede it",
		Rule:  "MPI-4.1 §12.5.5: MPI_MODE_NOPRECEDE — the fence does not complete any sequence of locally issued RMA calls; if the assertion is given by any process in the window group, then it must be given by all; it is erroneous to provide incorrect information in assert",
		Doc: `MPI_MODE_NOPRECEDE tells MPI that the fence closes no epoch in which this
process issued RMA calls, so MPI may skip completing them (and the barrier
a fence usually is). Given on a fence that follows MPI_Put or MPI_Get calls
of the epoch, the operations may never complete, or complete after the
fence, and the target reads stale data. MPICH and Open MPI accept the call
silently. The assertion belongs on the first fence of a window, or on a
fence after one with MPI_MODE_NOSUCCEED; drop it from fences inside the
communication loop.`},
	Message: func(m *Message) {
		m.Mark("assert")
		m.Printf("MPI_MODE_NOPRECEDE asserts that this fence completes no RMA call of this process, but %s since the previous fence (the first related): drop the assertion, or give it only on a fence no RMA call precedes (MPI-4.1 §12.5.5)",
			plural(m.Count, "RMA call was issued", "RMA calls were issued"))
	},
})

// unlockWithoutLock (before MPI_Win_unlock, MPI_Win_unlock_all): Val is
// the target rank. MPI_Win_unlock: PLAIN, nothing locks it; LOCK_ALL, the
// window is locked with MPI_Win_lock_all (related). MPI_Win_unlock_all:
// PLAIN, no MPI_Win_lock_all epoch; LOCK, Count targets are locked with
// MPI_Win_lock, Val one of them (related).
var unlockWithoutLock = register(Check{
	Entry: Entry{ID: "unlock-without-lock", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_unlock or MPI_Win_unlock_all ends a lock epoch that is not open",
		Rule:  "MPI-4.1 §12.5.3: MPI_WIN_UNLOCK completes an RMA access epoch started by a call to MPI_WIN_LOCK; MPI_WIN_UNLOCK_ALL completes one started by MPI_WIN_LOCK_ALL; a window locked with MPI_WIN_LOCK_ALL must be unlocked with MPI_WIN_UNLOCK_ALL",
		Doc: `Each MPI_Win_unlock(rank) ends the epoch an earlier MPI_Win_lock on the same
rank and window opened, and MPI_Win_unlock_all the one MPI_Win_lock_all
opened. Unlocking a rank that is not locked (a second unlock, the wrong
rank, a lock on another window) or mixing the two forms is erroneous:
MPICH and Open MPI fail it with MPI_ERR_RMA_SYNC, which the default error
handler turns into an abort. Pair each lock with its unlock, on the same
rank and window, with the same form.`},
	Message: func(m *Message) {
		m.Mark("rank")
		switch {
		case m.Call == "MPI_Win_unlock_all" && m.Variant == VariantLock:
			m.Printf("the window was locked with MPI_Win_lock (target rank %d, related, %s in all), not MPI_Win_lock_all: end those epochs with MPI_Win_unlock on each rank (MPI-4.1 §12.5.3)",
				m.Val, plural(m.Count, "target", "targets"))
		case m.Call == "MPI_Win_unlock_all":
			m.Printf("no access epoch MPI_Win_lock_all opened is open on the window: MPI_Win_unlock_all ends only that one (MPI-4.1 §12.5.3)")
		case m.Variant == VariantLockAll:
			m.Printf("target rank %d was not locked with MPI_Win_lock: the window is locked with MPI_Win_lock_all (related), which only MPI_Win_unlock_all ends (MPI-4.1 §12.5.3)", m.Val)
		default:
			m.Printf("target rank %d is not locked by this process on this window: MPI_Win_unlock ends the epoch an MPI_Win_lock on the same rank opened, and there is none (MPI-4.1 §12.5.3)", m.Val)
		}
	},
})

// lockTwice (before MPI_Win_lock, MPI_Win_lock_all): Val is the target
// rank of MPI_Win_lock; the related place is the lock that holds it.
var lockTwice = register(Check{
	Entry: Entry{ID: "lock-twice", Category: CatEpochLifecycle, Severity: SevError,
		Title: "a target is locked again on the same window before it was unlocked",
		Rule:  "MPI-4.1 §12.5.3: multiple RMA access epochs (with calls to MPI_WIN_LOCK) can occur simultaneously; however, each access epoch must target a different process; §12.5: distinct access epochs for win at the same process must be disjoint",
		Doc: `A process may hold locks on several targets of a window at once, one
epoch per target, but not two on the same target (MPI locks do not nest),
and not two MPI_Win_lock_all epochs. MPICH fails the second lock with
MPI_ERR_RMA_SYNC (an abort under the default error handler); Open MPI 4.1
takes a second shared lock with some transports, and the unlocks no
longer pair with the locks. Typical cause: a helper that locks the target
itself, called inside a region that already holds the lock. Unlock before
locking again, or let the helper run inside the caller's epoch.`},
	Message: func(m *Message) {
		m.Mark("rank")
		m.MarkRelated("rank")
		if m.Call == "MPI_Win_lock_all" {
			m.Printf("the window is already locked with MPI_Win_lock_all (related): epochs of one window must be disjoint; call MPI_Win_unlock_all first (MPI-4.1 §12.5.3)")
			return
		}
		m.Printf("target rank %d is already locked by this process on this window (related): each MPI_Win_lock epoch must target a different process; unlock it first (MPI-4.1 §12.5.3)", m.Val)
	},
})

// lockAllMixed (before MPI_Win_lock, MPI_Win_lock_all): MPI_Win_lock with
// the window locked by MPI_Win_lock_all (LOCK_ALL, related: that call),
// Val its target; MPI_Win_lock_all with Count targets locked by
// MPI_Win_lock (LOCK), Val one of them (related).
var lockAllMixed = register(Check{
	Entry: Entry{ID: "lock-all-mixed", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_lock and MPI_Win_lock_all epochs are open on the same window at once",
		Rule:  "MPI-4.1 §12.5.3: MPI_WIN_LOCK_ALL starts an RMA access epoch to all processes in win; each access epoch must target a different process; §12.5: distinct access epochs for win at the same process must be disjoint",
		Doc: `MPI_Win_lock_all opens one access epoch to every process of the window, so
an MPI_Win_lock on any target while it is open (or an MPI_Win_lock_all
while some target is locked with MPI_Win_lock) opens a second epoch to the
same process. MPICH fails the call with MPI_ERR_RMA_SYNC; Open MPI 4.1
may take it and then fail the MPI_Win_unlock_all. A program that wants an
exclusive lock on one target inside a lock_all phase closes the phase
first (MPI_Win_unlock_all), or uses atomics (MPI_Compare_and_swap) as the
mutex inside it.`},
	Message: func(m *Message) {
		m.Mark("rank")
		if m.Variant == VariantLock {
			m.Printf("target rank %d is locked with MPI_Win_lock (related, %s in all), and MPI_Win_lock_all opens a second epoch to every process: unlock them first (MPI-4.1 §12.5.3)",
				m.Val, plural(m.Count, "locked target", "locked targets"))
			return
		}
		m.Printf("the window is locked with MPI_Win_lock_all (related), whose epoch already covers target rank %d: MPI_Win_lock opens a second epoch to it; end the lock_all epoch first, or stay inside it (MPI-4.1 §12.5.3)", m.Val)
	},
})

// startEpochOpen (before MPI_Win_start): the variant says which access
// epoch is open (openEpoch), the related place where it opened.
var startEpochOpen = register(Check{
	Entry: Entry{ID: "start-epoch-open", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_start while an access epoch is open on the window",
		Rule:  "MPI-4.1 §12.5: distinct access epochs for win at the same process must be disjoint; §12.5.2: an access epoch started by MPI_WIN_START is terminated by MPI_WIN_COMPLETE",
		Doc: `MPI_Win_start opens an access epoch; the previous one must be closed first:
an earlier MPI_Win_start by MPI_Win_complete, a lock by MPI_Win_unlock or
MPI_Win_unlock_all, a fence epoch in which this process issued RMA calls
by MPI_Win_fence. MPICH and Open MPI fail the call with MPI_ERR_RMA_SYNC.
Typical cause: MPI_Win_complete missing at the end of a loop iteration, or
a fence-synchronised phase switched to PSCW without its closing fence.`},
	Message: func(m *Message) {
		what, end := openEpoch(m)
		m.Printf("%s is still open (related): access epochs of one window must be disjoint; end it with %s first (MPI-4.1 §12.5)", what, end)
	},
})

// completeWithoutStart (before MPI_Win_complete): a related place
// (RelatedClosed) is the MPI_Win_complete that ended the last epoch.
var completeWithoutStart = register(Check{
	Entry: Entry{ID: "complete-without-start", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_complete without an access epoch MPI_Win_start opened",
		Rule:  "MPI-4.1 §12.5.2: MPI_WIN_COMPLETE completes an RMA access epoch on win started by a call to MPI_WIN_START",
		Doc: `MPI_Win_complete ends the access epoch of the last MPI_Win_start on the
window; called without one (a second MPI_Win_complete, MPI_Win_start
skipped on some path, the complete of a fence or lock epoch) it is
erroneous. MPICH fails it with MPI_ERR_RMA_SYNC; Open MPI 4.1 returns
success and does nothing. Pair each MPI_Win_start with one
MPI_Win_complete on the same window.`},
	Message: func(m *Message) {
		if m.RelatedKind == RelatedClosed {
			m.Printf("no access epoch MPI_Win_start opened is open on the window: the last one was already ended by the MPI_Win_complete related (MPI-4.1 §12.5.2)")
			return
		}
		m.Printf("no access epoch MPI_Win_start opened is open on the window: MPI_Win_complete ends only that one (MPI-4.1 §12.5.2)")
	},
})

// waitWithoutPost (before MPI_Win_wait, MPI_Win_test): a related place
// (RelatedClosed) is the MPI_Win_wait or MPI_Win_test that ended the last
// exposure epoch.
var waitWithoutPost = register(Check{
	Entry: Entry{ID: "wait-without-post", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_wait or MPI_Win_test without an exposure epoch MPI_Win_post opened",
		Rule:  "MPI-4.1 §12.5.2: MPI_WIN_WAIT completes an RMA exposure epoch started by a call to MPI_WIN_POST; MPI_WIN_TEST should be invoked only where MPI_WIN_WAIT can be invoked; once the call has returned flag = true, it must not be invoked anew, until the window is posted anew",
		Doc: `MPI_Win_wait ends the exposure epoch the last MPI_Win_post on the window
opened, and MPI_Win_test returning true does the same. Calling either
without an open exposure epoch — a second wait, MPI_Win_test polled again
after it returned true, a wait on a window that only started an access
epoch — is erroneous: MPICH and Open MPI fail it with MPI_ERR_RMA_SYNC.
Stop polling MPI_Win_test once it returned true, and pair each
MPI_Win_post with one MPI_Win_wait (or a successful MPI_Win_test).`},
	Message: func(m *Message) {
		if m.RelatedKind == RelatedClosed {
			m.Printf("no exposure epoch MPI_Win_post opened is open on the window: the last one was already ended by the %s related; after MPI_Win_test returned true, neither MPI_Win_test nor MPI_Win_wait may be called until the next MPI_Win_post (MPI-4.1 §12.5.2)", m.RelatedCall)
			return
		}
		m.Printf("no exposure epoch MPI_Win_post opened is open on the window: %s ends only that one (MPI-4.1 §12.5.2)", m.Call)
	},
})

// postTwice (before MPI_Win_post): the related place is the MPI_Win_post
// whose exposure epoch is still open.
var postTwice = register(Check{
	Entry: Entry{ID: "post-twice", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_post while an exposure epoch is open on the window",
		Rule:  "MPI-4.1 §12.5: distinct exposure epochs at a process on the same window must be disjoint; §12.5.2: an exposure epoch started by MPI_WIN_POST is completed by MPI_WIN_WAIT",
		Doc: `An exposure epoch opened by MPI_Win_post lasts until MPI_Win_wait (or
MPI_Win_test returning true); another MPI_Win_post before then is
erroneous. MPICH and Open MPI fail it with MPI_ERR_RMA_SYNC. Typical
cause: the wait of the previous iteration skipped, or a post meant to
widen the group of the open epoch. Wait first, then post with the whole
group.`},
	Message: func(m *Message) {
		m.Printf("the exposure epoch of an earlier MPI_Win_post (related) is still open: exposure epochs of one window must be disjoint; end it with MPI_Win_wait (or MPI_Win_test returning true) first (MPI-4.1 §12.5.2)")
	},
})

// epochLeftOpen (before MPI_Win_free, or at MPI_Finalize for a window
// never freed): the variant says which epoch is open (openEpoch), the
// related place where it opened.
var epochLeftOpen = register(Check{
	Entry: Entry{ID: "epoch-left-open", Category: CatEpochLifecycle, Severity: SevError,
		Title: "a window is freed, or MPI finalized, with an epoch of this process still open on it",
		Rule:  "MPI-4.1 §12.2.5: MPI_WIN_FREE can be invoked by a process only after it has completed its involvement in RMA communications on window win (MPI_WIN_FENCE, MPI_WIN_WAIT after MPI_WIN_POST, MPI_WIN_COMPLETE after MPI_WIN_START, MPI_WIN_UNLOCK after MPI_WIN_LOCK); §11.2.2: before MPI_FINALIZE a process must complete all communication it initiated",
		Doc: `Every epoch a process opens on a window must be closed before the window
is freed: MPI_Win_unlock for MPI_Win_lock, MPI_Win_unlock_all for
MPI_Win_lock_all, MPI_Win_complete for MPI_Win_start, MPI_Win_wait for
MPI_Win_post, and a closing MPI_Win_fence after the RMA calls of a fence
epoch. Until then the operations of the epoch may not have completed.
MPICH fails MPI_Win_free with MPI_ERR_RMA_SYNC (the window stays, and a
leaked window can make MPI_Finalize fail); Open MPI 4.1 frees it. At
MPI_Finalize the same applies to windows
never freed. Close the epoch, then free the window.`},
	Message: func(m *Message) {
		what, end := openEpoch(m)
		if m.Call == "MPI_Finalize" {
			m.Printf("%s (related) is still open on a window that was never freed: end it with %s and free the window before MPI_Finalize (MPI-4.1 §11.2.2, §12.2.5)", what, end)
			return
		}
		m.Printf("%s (related) is still open: end it with %s before freeing the window (MPI-4.1 §12.2.5)", what, end)
	},
})

// flushOutsideLock (before the flush calls): Val is the target rank of
// MPI_Win_flush and MPI_Win_flush_local. PLAIN: no passive-target epoch
// covers it; LOCK: Count other targets are locked with MPI_Win_lock.
var flushOutsideLock = register(Check{
	Entry: Entry{ID: "flush-outside-lock", Category: CatEpochLifecycle, Severity: SevError,
		Title: "MPI_Win_flush, MPI_Win_flush_local or their _all forms outside a passive-target epoch",
		Rule:  "MPI-4.1 §12.5.4: all flush and sync functions can be called only within passive target epochs; MPI_WIN_FLUSH completes the outstanding RMA operations initiated by the calling process to the target rank",
		Doc: `The flush calls complete the operations of a passive-target epoch without
ending it: MPI_Win_flush(rank) and MPI_Win_flush_local(rank) need an epoch
to that rank (MPI_Win_lock on it, or MPI_Win_lock_all), the _all forms
some passive-target epoch on the window. In fence and MPI_Win_start
epochs, operations complete at the MPI_Win_fence or MPI_Win_complete that
ends the epoch; there is nothing to flush. MPICH and Open MPI fail a flush
without any lock with MPI_ERR_RMA_SYNC; Open MPI also fails a flush to a
rank that is not locked while another is, which MPICH takes. Lock the
target before the operations, or drop the flush.`},
	Message: func(m *Message) {
		m.Mark("rank")
		all := m.Call == "MPI_Win_flush_all" || m.Call == "MPI_Win_flush_local_all"
		switch {
		case all:
			m.Printf("no passive-target epoch is open on the window (no MPI_Win_lock, no MPI_Win_lock_all): flushes complete the operations of such an epoch and are valid only inside one; fence and MPI_Win_start epochs complete at the call that ends them (MPI-4.1 §12.5.4)")
		case m.Variant == VariantLock:
			m.Printf("target rank %d is not locked by this process (%s with MPI_Win_lock, not this one, and there is no MPI_Win_lock_all): flush a rank inside its own lock epoch (MPI-4.1 §12.5.4)",
				m.Val, plural(m.Count, "other rank is locked", "other ranks are locked"))
		default:
			m.Printf("no passive-target epoch covers target rank %d (no MPI_Win_lock on it, no MPI_Win_lock_all): flushes complete the operations of such an epoch and are valid only inside one; fence and MPI_Win_start epochs complete at the call that ends them (MPI-4.1 §12.5.4)", m.Val)
		}
	},
})
