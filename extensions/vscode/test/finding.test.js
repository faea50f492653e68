'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fnd = require('../src/finding');

const full = {
	rank: 2,
	id: 'buffer-overlap',
	severity: 'error',
	message: 'the send buffer overlaps the receive buffer of a pending MPI_Irecv\nbytes 8-15 are in both',
	path: 'row(VECTOR)[1][0](DOUBLE)',
	site: { file: '/src/testprogs/dap/planted.c', line: 41 },
};

test('formatFinding', () => {
	assert.equal(fnd.formatFinding(full), [
		'error buffer-overlap (rank 2) at /src/testprogs/dap/planted.c:41',
		'    the send buffer overlaps the receive buffer of a pending MPI_Irecv',
		'    bytes 8-15 are in both',
		'    element: row(VECTOR)[1][0](DOUBLE)',
	].join('\n'));
	assert.equal(fnd.formatFinding({ id: 'request-leak', severity: 'warning', message: 'a request is never completed' }),
		'warning request-leak\n    a request is never completed');
	assert.equal(fnd.formatFinding({ id: 'deadlock', rank: [0, 1, 2], message: 'every rank waits' }),
		'error deadlock (ranks 0-2)\n    every rank waits');
	assert.equal(fnd.formatFinding({ id: 'x', rank: 0, site: { file: 'a.c' } }), 'error x (rank 0) at a.c');
	assert.equal(fnd.formatFinding(undefined), 'error finding');
	assert.equal(fnd.formatFinding({ ...full, call: 'MPI_Isend', related: 'planted.c:21 in main', path: undefined }), [
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
	assert.equal(fnd.notificationText({ id: 'deadlock', message: 'every rank waits' }), 'mpidbg: deadlock: every rank waits');
});

test('severity', () => {
	assert.equal(fnd.severity({ severity: 'warning' }), 'warning');
	assert.equal(fnd.severity({ severity: 'INFO' }), 'info');
	assert.equal(fnd.severity({ severity: 'fatal' }), 'error', 'unknown severities are errors');
	assert.equal(fnd.severity({}), 'error');
});

test('ranks and foldRanks', () => {
	assert.equal(fnd.ranks({ rank: 0 }), 'rank 0');
	assert.equal(fnd.ranks({ rank: [3] }), 'rank 3');
	assert.equal(fnd.ranks({ rank: [5, 0, 1, 2, 2] }), 'ranks 0-2,5');
	assert.equal(fnd.ranks({ rank: '0-3' }), 'ranks 0-3');
	assert.equal(fnd.ranks({ rank: '7' }), 'rank 7');
	assert.equal(fnd.ranks({}), '');
	assert.equal(fnd.foldRanks([1, 3, 4, 5, 7]), '1,3-5,7');
	assert.equal(fnd.foldRanks([]), '');
});

test('explainArgs', () => {
	assert.deepEqual(fnd.explainArgs('buffer-overlap'), ['explain', 'buffer-overlap']);
	assert.deepEqual(fnd.explainArgs('leak'), ['explain', 'leak']);
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
