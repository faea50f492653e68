'use strict';
// Client-level tests of `mpidbg dap`, driven like VS Code drives it, on the
// programs of testprogs/dap, built with each MPI (bin/testprogs/dap for
// MPICH, bin/testprogs/dap-openmpi for Open MPI): the adapter picks the shim
// and mpiexec from the program, as for a user. They need the adapter, the
// MPI and gdb: without bin/mpidbg (or a program) they are skipped, unless MPIDBG_REQUIRE_DAP=1 (make vscodetest)
// makes them fail. MPIDBG_DAP_STDERR=1 shows the adapter's stderr.

const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const { Client, MPIS, testprog, skip, requireAll, markerLine, rankOf, running, eventually } = require('./dap');
const fnd = require('../src/finding');

const TIMEOUT = 30000; // per test: np ranks start under gdb in a few seconds

// session: a started Client that is closed after the test, pass or fail.
async function session(t) {
	const dc = new Client();
	await dc.start();
	t.after(() => dc.close());
	return dc;
}

// stopEveryRank: take stopped events until each of ranks has stopped once,
// checking each stop with check(stopEvent, rank, topFrame) and resuming
// after it, as a user pressing Continue on each rank would.
async function stopEveryRank(dc, ranks, reason, check) {
	const seen = new Set();
	while (seen.size < ranks.length) {
		const ev = await dc.stopped(reason);
		const names = await dc.threadNames();
		const rank = rankOf(names.get(ev.body.threadId));
		assert.ok(ranks.includes(rank), `stopped thread ${ev.body.threadId} is ${JSON.stringify(names.get(ev.body.threadId))}, want one of rank ${ranks.join(', ')}`);
		check(ev, rank, await dc.topFrame(ev.body.threadId));
		seen.add(rank);
		await dc.continueRequest({ threadId: ev.body.threadId });
	}
}

// rankThreads: rank -> the id of its thread "rank R".
async function rankThreads(dc) {
	const names = await dc.threadNames();
	return new Map([...names].filter(([, n]) => rankOf(n) !== undefined).map(([id, n]) => [rankOf(n), id]));
}

// untilTerminated resumes whatever still stops until the job has ended.
async function untilTerminated(dc) {
	for (;;) {
		const ev = await dc.take((e) => e.event === 'stopped' || e.event === 'terminated', '"terminated" event');
		if (ev.event === 'terminated') return;
		await dc.continueRequest({ threadId: ev.body.threadId });
	}
}

test('initialize: capabilities and the MPI exception filters', { skip: skip('mpich'), timeout: TIMEOUT }, async (t) => {
	requireAll('mpich');
	const dc = await session(t);
	const { body } = await dc.initializeRequest();
	for (const cap of ['supportsConfigurationDoneRequest', 'supportsExceptionInfoRequest', 'supportsReadMemoryRequest',
		'supportsTerminateRequest', 'supportsEvaluateForHovers']) {
		assert.equal(body[cap], true, cap);
	}
	// An absent "default" is false in DAP (and Go's omitempty leaves it out).
	const filters = (body.exceptionBreakpointFilters || []).map(({ filter, label, default: def }) => ({ filter, label, default: def === true }));
	assert.deepEqual(filters, [
		{ filter: 'errors', label: 'MPI errors', default: true },
		{ filter: 'warnings', label: 'MPI warnings', default: false },
	]);
});

for (const mpi of MPIS) {
test(`${mpi}: breakpoints: a line breakpoint stops every rank`, { skip: skip(mpi, 'breakpoints'), timeout: TIMEOUT }, async (t) => {
	requireAll(mpi, 'breakpoints');
	const { source, program } = testprog('breakpoints', mpi);
	const brk = markerLine(source, 'BREAK').line;
	const dc = await session(t);
	const { bps } = await dc.run({ program, np: 3 }, { breakpoints: [{ path: source, lines: [brk] }] });
	const [bp] = bps[0].body.breakpoints;
	assert.ok(bp, 'setBreakpoints answered no breakpoint');
	if (bp.verified) assert.equal(bp.line, brk, 'verified breakpoint line');

	await stopEveryRank(dc, [0, 1, 2], 'breakpoint', (ev, rank, frame) => {
		assert.equal(ev.body.allThreadsStopped, true, `rank ${rank}: all-stop mode stops every rank`);
		assert.equal(path.basename(frame.source && frame.source.path || ''), 'breakpoints.c', `rank ${rank}: top frame source`);
		assert.equal(frame.line, brk, `rank ${rank}: top frame line`);
	});
	await untilTerminated(dc);
	await dc.event('exited', 5000);
});

test(`${mpi}: stopOnEntry: every rank stops at main`, { skip: skip(mpi, 'breakpoints'), timeout: TIMEOUT }, async (t) => {
	requireAll(mpi, 'breakpoints');
	const { program } = testprog('breakpoints', mpi);
	const dc = await session(t);
	await dc.run({ program, np: 2, stopOnEntry: true });
	// One stop for the job: all-stop mode holds every rank, each at main.
	const ev = await dc.stopped('entry');
	assert.equal(ev.body.allThreadsStopped, true, 'all-stop mode stops every rank');
	const threads = await rankThreads(dc);
	assert.deepEqual([...threads.keys()].sort((a, b) => a - b), [0, 1], 'rank threads');
	for (const [rank, threadId] of threads) {
		const frame = await dc.topFrame(threadId);
		assert.equal(frame.name.replace(/\(.*$/, ''), 'main', `rank ${rank}: top frame`);
	}
	await dc.continueRequest({ threadId: ev.body.threadId });
	await untilTerminated(dc);
});

test(`${mpi}: planted: the faulty rank stops at the faulty call, with the finding`, { skip: skip(mpi, 'planted'), timeout: TIMEOUT }, async (t) => {
	requireAll(mpi, 'planted');
	const { source, program } = testprog('planted', mpi);
	const fault = markerLine(source, 'FAULT');
	// "// FAULT buffer-overlap" names the finding the line plants.
	const wantId = (/\/\/\s*FAULT\s+([a-z][a-z0-9-]+)/.exec(fault.text) || [])[1];
	const dc = await session(t);
	await dc.run({ program, np: 4 });

	const ev = await dc.stopped('exception');
	const threadId = ev.body.threadId;
	const names = await dc.threadNames();
	assert.equal(names.get(threadId), 'rank 2', 'the stopped thread');
	const frame = await dc.topFrame(threadId);
	assert.equal(path.basename(frame.source && frame.source.path || ''), 'planted.c', 'top frame source (shim frames hidden)');
	assert.equal(frame.line, fault.line, 'top frame line');

	const info = (await dc.exceptionInfoRequest({ threadId })).body;
	assert.match(info.exceptionId, /^[a-z][a-z0-9-]+$/, 'exceptionId is a finding id');
	assert.ok(wantId, 'planted.c names its finding after // FAULT');
	assert.equal(info.exceptionId, wantId);
	assert.ok(info.description, 'description (the finding\'s message)');
	assert.equal(info.breakMode, 'always');
	assert.ok(info.details && info.details.message, 'details.message');
	assert.match(info.details.stackTrace || '', /planted\.c/, 'details.stackTrace');

	const finding = await dc.take((e) => e.event === 'mpidbg/finding' && e.body.rank === 2, '"mpidbg/finding" event of rank 2');
	assert.equal(finding.body.id, info.exceptionId, 'finding id');
	assert.equal(finding.body.message, info.description, 'finding message');
	assert.ok(['error', 'warning', 'info'].includes(finding.body.severity), `severity ${finding.body.severity}`);
	if (finding.body.site) {
		assert.equal(path.basename(finding.body.site.file), 'planted.c', 'finding site file');
		assert.equal(finding.body.site.line, fault.line, 'finding site line');
	}

	// The datatype `row` is shown as its constructor tree.
	const scopes = (await dc.scopesRequest({ frameId: frame.id })).body.scopes;
	const locals = scopes.find((s) => s.name === 'Locals');
	assert.ok(locals, `scopes ${scopes.map((s) => s.name).join(', ')} have no Locals`);
	const vars = (await dc.variablesRequest({ variablesReference: locals.variablesReference })).body.variables;
	const row = vars.find((v) => v.name === 'row');
	assert.ok(row, `locals ${vars.map((v) => v.name).join(', ')} have no row`);
	assert.match(row.type || '', /MPI_Datatype/, 'row type');
	assert.ok(row.variablesReference > 0, 'row can be expanded');
	const children = (await dc.variablesRequest({ variablesReference: row.variablesReference })).body.variables;
	const combiner = children.find((v) => v.name === 'combiner');
	assert.ok(combiner, `row's children ${children.map((v) => v.name).join(', ')} have no combiner`);
	// planted.c's row is an MPI_Type_vector: "VECTOR" or MPI_COMBINER_VECTOR.
	assert.match(combiner.value, /^"?(MPI_COMBINER_)?VECTOR"?$/, 'row.combiner');

	// The debug console runs gdb commands, mpidbg's among them.
	const errors = (await dc.evaluateRequest({ expression: 'mpi errors', context: 'repl', frameId: frame.id })).body;
	assert.ok(errors.result.includes(info.exceptionId), `"mpi errors" output ${JSON.stringify(errors.result)} does not name ${info.exceptionId}`);

	// Stopping the session while the ranks are stopped ends the job.
	await dc.disconnectRequest({ terminateDebuggee: true });
	assert.ok(await eventually(() => running(program).length === 0, 10000), `ranks still running after disconnect: ${running(program)}`);
});

test(`${mpi}: deadlock: every rank stops at its blocked receive`, { skip: skip(mpi, 'deadlock'), timeout: TIMEOUT }, async (t) => {
	requireAll(mpi, 'deadlock');
	const { source, program } = testprog('deadlock', mpi);
	const blocked = markerLine(source, 'BLOCKED').line;
	const dc = await session(t);
	await dc.run({ program, np: 3, deadlockTimeout: '2s' });

	const ev = await dc.stopped('exception');
	assert.equal(ev.body.allThreadsStopped, true, 'a deadlock stops every rank');
	const info = (await dc.exceptionInfoRequest({ threadId: ev.body.threadId })).body;
	assert.equal(info.exceptionId, 'deadlock');
	// The finding event names every rank of the cycle, as the notification
	// shows it.
	const finding = await dc.take((e) => e.event === 'mpidbg/finding' && e.body.id === 'deadlock', '"mpidbg/finding" event of the deadlock');
	assert.deepEqual(finding.body.ranks, [0, 1, 2], 'the deadlock\'s ranks');
	assert.match(fnd.notificationText(finding.body), /^mpidbg: deadlock \(ranks 0-2\): /);

	const threads = await rankThreads(dc);
	assert.deepEqual([...threads.keys()].sort((a, b) => a - b), [0, 1, 2], 'rank threads');
	for (const [rank, threadId] of threads) {
		const frame = await dc.topFrame(threadId);
		assert.equal(path.basename(frame.source && frame.source.path || ''), 'deadlock.c', `rank ${rank}: top frame source`);
		assert.equal(frame.line, blocked, `rank ${rank}: top frame line`);
	}

	await dc.disconnectRequest({ terminateDebuggee: true });
	assert.ok(await eventually(() => running(program).length === 0, 10000), `ranks still running after disconnect: ${running(program)}`);
});
}
