'use strict';
// The custom DAP event `mpidbg/finding`, which mpidbg dap sends for every
// finding of every rank, turned into text: a block for the "mpidbg" output
// channel and a line for a notification. No VS Code here, so it is tested
// with plain node.
//
// Body (dap/finding.go's findingBody): {rank, ranks?, id, severity,
// category?, call?, message, path?, site?: {file, line}, related?,
// language, text};
// rank is a number (-1 when none is known), ranks the list of a finding of
// several ranks (a deadlock), path the type-tree path of the element
// concerned (s_type(STRUCT)[2][5](CHAR)), call the MPI call and related
// where the other object or operation was made; they are shown when
// present. language (c, fortran, python) is the site's, for explain.

const path = require('path');

const EVENT = 'mpidbg/finding';
const SEVERITIES = ['error', 'warning', 'info'];

function severity(body) {
	const s = body && typeof body.severity === 'string' ? body.severity.toLowerCase() : '';
	return SEVERITIES.includes(s) ? s : 'error';
}

// ranks: "rank 2" or, for a finding of several ranks (a deadlock's
// cycle), "ranks 0-3". The adapter sends rank (a number, -1 when it knows
// none) and, for a deadlock, ranks (the list, of which rank is the first).
function ranks(body) {
	const b = body || {};
	const list = Array.isArray(b.ranks) ? [...new Set(b.ranks.filter(Number.isInteger))] : [];
	if (list.length > 1) return `ranks ${foldRanks(list)}`;
	if (list.length === 1) return `rank ${list[0]}`;
	return Number.isInteger(b.rank) && b.rank >= 0 ? `rank ${b.rank}` : '';
}

// foldRanks: [0,1,2,5] -> "0-2,5", the way mpidbg run's report shows them.
function foldRanks(list) {
	const rs = [...new Set(list.filter(Number.isInteger))].sort((a, b) => a - b);
	const parts = [];
	for (let i = 0; i < rs.length;) {
		let j = i;
		while (j + 1 < rs.length && rs[j + 1] === rs[j] + 1) j++;
		parts.push(i === j ? `${rs[i]}` : `${rs[i]}-${rs[j]}`);
		i = j + 1;
	}
	return parts.join(',');
}

function site(body, { full = true } = {}) {
	const s = body && body.site;
	if (!s || typeof s.file !== 'string' || s.file === '') return '';
	const file = full ? s.file : path.basename(s.file);
	return Number.isInteger(s.line) && s.line > 0 ? `${file}:${s.line}` : file;
}

// formatFinding: the output channel's block, e.g.
//   error buffer-overlap in MPI_Isend (rank 2) at /src/planted.c:41
//     the receive buffer ...
//     element: row(VECTOR)[1][0](DOUBLE)
//     related: planted.c:40 in main
// count > 1 (from FindingTracker) is shown on the first line.
function formatFinding(body, { count = 1 } = {}) {
	const b = body || {};
	const where = site(b);
	const head = [severity(b), b.id || 'finding'];
	if (b.call) head.push('in', b.call);
	const who = ranks(b);
	let text = head.join(' ') + (who ? ` (${who})` : '') + (where ? ` at ${where}` : '') + (count > 1 ? `  [${count} times]` : '');
	for (const line of String(b.message || '').split('\n')) {
		if (line.trim() !== '') text += `\n    ${line}`;
	}
	if (b.path) text += `\n    element: ${b.path}`;
	if (b.related) text += `\n    related: ${b.related}`;
	return text;
}

// notificationText: one line; notifications cut long text, so the file
// is shown by base name only.
function notificationText(body) {
	const b = body || {};
	const who = ranks(b);
	const where = site(b, { full: false });
	const ctx = [who, where].filter(Boolean).join(', ');
	return `mpidbg: ${b.id || 'finding'}${ctx ? ` (${ctx})` : ''}: ${String(b.message || '').split('\n')[0]}`;
}

// explainArgs: the mpidbg command line for the Explain button, in the
// language of the finding's code (mpidbg explain --lang) when it is one
// explain speaks other than C. Finding ids are lower-case words with
// dashes; anything else (a leading "-" would be read as a flag) is
// refused, and an unknown language is left out.
function explainArgs(id, language) {
	if (typeof id !== 'string' || !/^[a-z0-9][a-z0-9-]*$/.test(id)) {
		throw new Error(`not a finding id: ${JSON.stringify(id)}`);
	}
	if (language === 'fortran' || language === 'python') return ['explain', '--lang', language, id];
	return ['explain', id];
}

// FindingTracker folds repeats: the same finding at the same site on
// several ranks (every rank of a collective mismatch, a loop that repeats
// a mistake) is shown in the channel each time but notified once per
// debug session, with a count in the channel instead of a flood of popups.
class FindingTracker {
	constructor() {
		this.seen = new Map();
	}

	key(body) {
		const b = body || {};
		return `${b.id}|${site(b)}|${b.path || ''}`;
	}

	// add records a finding and says whether it is the first of its kind
	// and how often it has been seen.
	add(body) {
		const k = this.key(body);
		const n = (this.seen.get(k) || 0) + 1;
		this.seen.set(k, n);
		return { first: n === 1, count: n };
	}
}

module.exports = {
	EVENT,
	severity,
	ranks,
	foldRanks,
	formatFinding,
	notificationText,
	explainArgs,
	FindingTracker,
};
