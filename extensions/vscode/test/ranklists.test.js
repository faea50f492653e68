'use strict';
// internal/ranklist/testdata/ranklists.json: rank lists as the adapter
// (Go's package ranklist, the reference) takes and refuses them; dap's
// TestRankListTable holds the adapter to the same cases.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const cfg = require('../src/config');

const TABLE = path.join(__dirname, '..', '..', '..', 'internal', 'ranklist', 'testdata', 'ranklists.json');

test('validate takes the rank lists the adapter takes', () => {
	const table = JSON.parse(fs.readFileSync(TABLE, 'utf8'));
	assert.ok(table.launch.length >= 20, 'ranklists.json is not read right');
	for (const c of table.launch) {
		const conf = { type: 'mpidbg', request: 'launch', name: 'x', program: '/bin/true', np: c.np, ranks: c.list };
		const got = cfg.validate(conf, { fileExists: () => true });
		assert.equal(got.length === 0, c.ranks !== null, `ranks ${JSON.stringify(c.list)}, np ${c.np}: ${JSON.stringify(got)}`);
	}
});
