'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fnd = require('../src/finding');

// Bodies of mpidbg/finding as the adapter sends them (dap/finding.go's
// findingBody): rank is always a number; a deadlock has ranks, the list
// whose first element is rank.
const full = {
	rank: 2,
	id: 'buffer-overlap',
	severity: 'error',
	category: 'overlap',
	call: 'MPI_Isend',
	message: 'the send buffer overlaps the receive buffer of a pending MPI_Irecv\nbytes 8-15 are in both',
	path: 'row(VECTOR)[1][0](DOUBLE)',
	site: { file: '/src/testprogs/dap/planted.c', line: 41 },
	text: 'error buffer-overlap in MPI_Isend (rank 2)\n  at /src/testprogs/dap/planted.c:41 in main',
};
const deadlock = {
	rank: 0,
	ranks: [0, 1, 2],
	id: 'deadlock',
	severity: 'error',
	category: 'deadlock',
	message: 'ranks 0-2 can never continue (a cycle): rank 0 MPI_Recv waits for rank 1; ...',
	text: 'error deadlock: ranks 0-2 can never continue\n  explain  mpidbg explain deadlock',
};

test('formatFinding', () => {
	assert.equal(fnd.formatFinding(full), [
		'error buffer-overlap in MPI_Isend (rank 2) at /src/testprogs/dap/planted.c:41',
		'    the send buffer overlaps the receive buffer of a pending MPI_Irecv',
		'    bytes 8-15 are in both',
		'    element: row(VECTOR)[1][0](DOUBLE)',
	].join('\n'));
	assert.equal(fnd.formatFinding({ id: 'request-leak', severity: 'warning', message: 'a request is never completed' }),
		'warning request-leak\n    a request is never completed');
	assert.equal(fnd.formatFinding({ ...deadlock, message: 'every rank waits' }),
		'error deadlock (ranks 0-2)\n    every rank waits');
	assert.equal(fnd.formatFinding({ ...deadlock, rank: 1, ranks: [1], message: 'm' }), 'error deadlock (rank 1)\n    m');
	assert.equal(fnd.formatFinding({ id: 'x', rank: 0, site: { file: 'a.c' } }), 'error x (rank 0) at a.c');
	assert.equal(fnd.formatFinding(undefined), 'error finding');
	assert.equal(fnd.formatFinding({ ...full, related: 'planted.c:21 in main', path: undefined }), [
		'error buffer-overlap in MPI_Isend (rank 2) at /src/testprogs/dap/planted.c:41',
		'    the send buffer overlaps the receive buffer of a pending MPI_Irecv',
		'    bytes 8-15 are in both',
		'    related: planted.c:21 in main',
	].join('\n'));
	assert.equal(fnd.formatFinding({ id: 'x', rank: 1, message: 'm' }, { count: 3 }), 'error x (rank 1)  [3 times]\n    m');
});

test('notificationText', () => {
	assert.equal(fnd.notificationText(full),
		'mpidbg: buffer-overlap (rank 2, planted.c:41): the send buffer overlaps the receive buffer of a pending MPI_Irecv');
	assert.equal(fnd.notificationText(deadlock),
		'mpidbg: deadlock (ranks 0-2): ranks 0-2 can never continue (a cycle): rank 0 MPI_Recv waits for rank 1; ...');
	assert.equal(fnd.notificationText({ ...deadlock, rank: -1, ranks: undefined, message: 'every rank waits' }),
		'mpidbg: deadlock: every rank waits', 'a deadlock without ranks (rank -1)');
});

test('severity', () => {
	assert.equal(fnd.severity({ severity: 'warning' }), 'warning');
	assert.equal(fnd.severity({ severity: 'INFO' }), 'info');
	assert.equal(fnd.severity({ severity: 'fatal' }), 'error', 'unknown severities are errors');
	assert.equal(fnd.severity({}), 'error');
});

test('ranks and foldRanks', () => {
	assert.equal(fnd.ranks({ rank: 0 }), 'rank 0');
	assert.equal(fnd.ranks(full), 'rank 2');
	assert.equal(fnd.ranks(deadlock), 'ranks 0-2', 'ranks, not rank (its first element)');
	assert.equal(fnd.ranks({ rank: 3, ranks: [3] }), 'rank 3');
	assert.equal(fnd.ranks({ rank: 0, ranks: [5, 0, 1, 2, 2] }), 'ranks 0-2,5');
	assert.equal(fnd.ranks({ rank: -1 }), '', 'no rank known');
	assert.equal(fnd.ranks({}), '');
	assert.equal(fnd.foldRanks([1, 3, 4, 5, 7]), '1,3-5,7');
	assert.equal(fnd.foldRanks([]), '');
});

test('explainArgs', () => {
	assert.deepEqual(fnd.explainArgs('buffer-overlap'), ['explain', 'buffer-overlap']);
	assert.deepEqual(fnd.explainArgs('leak'), ['explain', 'leak']);
	assert.deepEqual(fnd.explainArgs('type-mismatch', 'fortran'), ['explain', '--lang', 'fortran', 'type-mismatch']);
	assert.deepEqual(fnd.explainArgs('type-mismatch', 'python'), ['explain', '--lang', 'python', 'type-mismatch']);
	assert.deepEqual(fnd.explainArgs('leak', 'c'), ['explain', 'leak']);
	assert.deepEqual(fnd.explainArgs('leak', '--help'), ['explain', 'leak'], 'an unknown language is left out');
	for (const bad of ['--help', '-x', '', 'a b', 'Buffer', undefined, 3]) {
		assert.throws(() => fnd.explainArgs(bad), /not a finding id/, String(bad));
	}
});

test('FindingTracker: notified once per finding and site', () => {
	const t = new fnd.FindingTracker();
	assert.deepEqual(t.add(full), { first: true, count: 1 });
	assert.deepEqual(t.add({ ...full, rank: 3 }), { first: false, count: 2 }, 'same finding on another rank');
	assert.deepEqual(t.add({ ...full, site: { file: full.site.file, line: 42 } }), { first: true, count: 1 }, 'another line');
	assert.deepEqual(t.add({ ...full, id: 'type-not-committed' }), { first: true, count: 1 }, 'another id');
});

test('EVENT', () => assert.equal(fnd.EVENT, 'mpidbg/finding'));
