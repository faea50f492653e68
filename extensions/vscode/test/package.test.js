'use strict';
// package.json is the extension's other half: the launch.json schema,
// the snippets and the settings. These tests keep it consistent with
// itself, with the adapter's contract and with src/.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const cfg = require('../src/config');

const ROOT = path.join(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const dbg = pkg.contributes.debuggers[0];
const schema = dbg.configurationAttributes;
const extensionSource = fs.readFileSync(path.join(ROOT, 'src', 'extension.js'), 'utf8');

// jsonTags: the attributes `mpidbg dap` reads (its contract, docs in
// README.md), from the json tags of a Go struct of the adapter's source.
function jsonTags(file, struct) {
	const src = fs.readFileSync(path.join(ROOT, '..', '..', 'dap', file), 'utf8');
	const body = new RegExp(`type ${struct} struct \\{([^}]*)\\}`).exec(src);
	assert.ok(body, `no struct ${struct} in dap/${file}`);
	return [...body[1].matchAll(/`json:"([^",]+)/g)].map((m) => m[1]);
}
const LAUNCH = jsonTags('launch.go', 'launchArgs');
const ATTACH = jsonTags('attach.go', 'attachArgs');
// What VS Code itself puts in every configuration.
const COMMON = ['type', 'request', 'name'];

// typeErrors checks value against the subset of JSON schema package.json
// uses: type (one or several), minimum, items, minItems,
// additionalProperties, enum, pattern.
function typeErrors(value, s, where) {
	const is = {
		string: (v) => typeof v === 'string',
		boolean: (v) => typeof v === 'boolean',
		integer: (v) => Number.isInteger(v),
		number: (v) => typeof v === 'number',
		array: (v) => Array.isArray(v),
		object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
		null: (v) => v === null,
	};
	const types = [].concat(s.type || []);
	const t = types.find((ty) => is[ty](value));
	if (types.length > 0 && !t) return [`${where}: ${JSON.stringify(value)} is not ${types.join(' or ')}`];
	const errs = [];
	if (s.enum && !s.enum.includes(value)) errs.push(`${where}: ${JSON.stringify(value)} not in ${s.enum}`);
	if (t === 'string' && s.pattern && !value.includes('${') && !new RegExp(s.pattern).test(value)) {
		errs.push(`${where}: ${JSON.stringify(value)} does not match ${s.pattern}`);
	}
	if ((t === 'integer' || t === 'number') && s.minimum !== undefined && value < s.minimum) errs.push(`${where}: ${value} < ${s.minimum}`);
	if (t === 'array' && s.minItems !== undefined && value.length < s.minItems) errs.push(`${where}: fewer than ${s.minItems} items`);
	if (t === 'array' && s.items) value.forEach((v, i) => errs.push(...typeErrors(v, s.items, `${where}[${i}]`)));
	if (t === 'object' && s.additionalProperties) {
		for (const [k, v] of Object.entries(value)) errs.push(...typeErrors(v, s.additionalProperties, `${where}.${k}`));
	}
	return errs;
}

// snippetValue: the JSON value a snippet body's value inserts. A string
// starting with ^ is raw JSON text with snippet placeholders (${1:a.out})
// and escaped dollars (\${workspaceFolder}).
function snippetValue(v) {
	if (typeof v !== 'string' || !v.startsWith('^')) return v;
	const text = v.slice(1).replace(/\$\{\d+:([^}]*)\}/g, '$1').replace(/\$\d+/g, '').replace(/\\\$/g, '$');
	return JSON.parse(text);
}

function checkConfig(c, where) {
	assert.equal(c.type, 'mpidbg', `${where}: type`);
	assert.ok(['launch', 'attach'].includes(c.request), `${where}: request ${c.request}`);
	assert.ok(typeof c.name === 'string' && c.name !== '', `${where}: name`);
	const s = schema[c.request];
	for (const req of s.required || []) assert.ok(req in c, `${where}: required "${req}" missing`);
	const errs = [];
	for (const [k, v] of Object.entries(c)) {
		if (COMMON.includes(k)) continue;
		assert.ok(k in s.properties, `${where}: "${k}" is not in the ${c.request} schema`);
		errs.push(...typeErrors(v, s.properties[k], `${where}.${k}`));
	}
	assert.deepEqual(errs, []);
}

test('the schema has exactly the adapter\'s attributes', () => {
	// a sample, in case the adapter's structs cannot be read as expected
	for (const a of ['program', 'np', 'mpi', 'mpiexec', 'ranks', 'attachTimeout']) assert.ok(LAUNCH.includes(a), a);
	for (const a of ['pid', 'pids', 'gdb']) assert.ok(ATTACH.includes(a), a);
	assert.ok(!ATTACH.includes('program'), 'attach takes no program: gdb reads the attached process\'s executable');
	assert.deepEqual(Object.keys(schema.launch.properties).sort(), [...LAUNCH].sort());
	assert.deepEqual(Object.keys(schema.attach.properties).sort(), [...ATTACH].sort());
	assert.deepEqual(schema.launch.required, ['program']);
	for (const [req, s] of Object.entries(schema)) {
		for (const [k, p] of Object.entries(s.properties)) {
			assert.ok(p.description || p.markdownDescription, `${req}.${k}: description`);
			assert.ok('default' in p, `${req}.${k}: default`);
			assert.deepEqual(typeErrors(p.default, p, `${req}.${k} default`), []);
		}
	}
});

test('"mpi" offers the libraries config.validate accepts', () => {
	assert.deepEqual(schema.launch.properties.mpi.enum, cfg.MPI_LIBRARIES);
	assert.deepEqual(cfg.MPI_LIBRARIES, ['mpich', 'openmpi']);
});

// The schema's checks and config.validate's take the same values: those
// the adapter (dap/launch.go, Go) takes. The schema cannot compare a
// range's ends ("3-2") nor a rank with np: those are left to validate.
test('the schema and config.validate agree on the adapter\'s forms', () => {
	const launch = schema.launch.properties;
	assert.equal(launch.ranks.pattern, cfg.RANK_LIST.source, 'ranks pattern');
	const samples = {
		ranks: ['all', '0', '0,2-3', '0, 2-3', ' 1 ', '+2', '0, 2 - 3', '2 -3', 'All', ' all', '0,', ',1', 'a', '-1', [0, 3], [], [-1], [1.5]],
		deadlockTimeout: ['2s', '0', '+0', '-0', '-0s', '0s', '.5s', '5.s', '1m30s', '1.5h', '1µs', '1\u03bcs', '+2s',
			'2', '', 's', '.s', '-2s', '1 s', '3S', '1e3s', '1h-2m'],
		attachTimeout: ['60s', '.5s', '+1m', '1h30m', '0', '0s', '-1s', '0.0s', '', '60'],
		env: [{ A: 'b' }, { A: null }, { A: 1 }, { A: ['x'] }],
	};
	for (const [attr, values] of Object.entries(samples)) {
		for (const v of values) {
			const bySchema = typeErrors(v, launch[attr], attr).length === 0;
			const byValidate = cfg.validate({ request: 'launch', program: 'app', np: 4, [attr]: v }).length === 0;
			assert.equal(bySchema, byValidate, `${attr} ${JSON.stringify(v)}: schema ${bySchema}, validate ${byValidate}`);
		}
	}
});

test('the schema\'s defaults pass config.validate', () => {
	const c = { type: 'mpidbg', request: 'launch', name: 'x' };
	for (const [k, p] of Object.entries(schema.launch.properties)) c[k] = p.default;
	assert.deepEqual(cfg.validate(c, { fileExists: () => true }), []);
});

test('initialConfigurations and snippets fit the schema', () => {
	assert.ok(dbg.initialConfigurations.length > 0);
	dbg.initialConfigurations.forEach((c, i) => checkConfig(c, `initialConfigurations[${i}]`));
	const labels = new Set();
	for (const sn of dbg.configurationSnippets) {
		assert.ok(sn.label && sn.description, 'label and description');
		assert.ok(!labels.has(sn.label), `duplicate snippet ${sn.label}`);
		labels.add(sn.label);
		const body = {};
		for (const [k, v] of Object.entries(sn.body)) {
			// An unescaped ${...} in a plain string is a snippet variable:
			// VS Code would insert "workspaceFolder", not ${workspaceFolder}.
			if (typeof v === 'string' && !v.startsWith('^')) assert.ok(!/(^|[^\\])\$\{/.test(v), `${sn.label}.${k}: unescaped \${`);
			body[k] = snippetValue(v);
		}
		checkConfig(body, sn.label);
	}
	const kinds = dbg.configurationSnippets.map((sn) => sn.body.request + (sn.body.pid ? ' pid' : sn.body.pids ? ' pids' : ''));
	assert.deepEqual(kinds.sort(), ['attach pid', 'attach pids', 'launch', 'launch']);
	assert.ok(dbg.configurationSnippets.some((sn) => sn.body.stopOnEntry === true), 'a stopOnEntry snippet');
	assert.ok(dbg.configurationSnippets.some((sn) => sn.body.np === 4), 'a 4-rank snippet');
});

test('manifest: activation, contributions and src agree', () => {
	assert.equal(pkg.name, 'mpidbg');
	assert.equal(pkg.publisher, 'mpidbg');
	assert.ok(fs.existsSync(path.join(ROOT, pkg.main)), pkg.main);
	assert.ok(fs.existsSync(path.join(ROOT, 'LICENSE')), 'LICENSE');
	assert.equal(dbg.type, cfg.DEBUG_TYPE);
	assert.equal(dbg.label, 'mpidbg (MPI)');
	assert.deepEqual(dbg.languages, cfg.SOURCE_LANGUAGES);
	assert.deepEqual(pkg.contributes.breakpoints.map((b) => b.language), cfg.SOURCE_LANGUAGES);
	for (const ev of ['onDebugResolve:mpidbg', 'onDebugDynamicConfigurations:mpidbg']) {
		assert.ok(pkg.activationEvents.includes(ev), ev);
	}
	// Every command named in the manifest is registered by extension.js.
	const commands = [
		...pkg.activationEvents.filter((e) => e.startsWith('onCommand:')).map((e) => e.slice('onCommand:'.length)),
		...pkg.contributes.commands.map((c) => c.command),
		...Object.values(dbg.variables || {}),
	];
	for (const c of commands) assert.ok(extensionSource.includes(`registerCommand('${c}'`), `${c} is not registered`);
	const props = pkg.contributes.configuration.properties;
	assert.deepEqual(Object.keys(props).sort(), ['mpidbg.gdb', 'mpidbg.logFile', 'mpidbg.path', 'mpidbg.trace']);
	assert.equal(props['mpidbg.path'].default, '');
	assert.equal(props['mpidbg.logFile'].type, 'string');
	assert.equal(props['mpidbg.logFile'].default, '');
	// every setting is read by extension.js
	for (const k of Object.keys(props)) assert.ok(extensionSource.includes(`get('${k.slice('mpidbg.'.length)}'`), `${k} is not read`);
	assert.equal(props['mpidbg.trace'].type, 'boolean');
	for (const dep of ['@vscode/vsce', '@vscode/debugadapter-testsupport', '@vscode/debugprotocol']) {
		assert.ok(pkg.devDependencies[dep], dep);
	}
	assert.equal(pkg.dependencies, undefined, 'no runtime dependencies: the .vsix is packed with --no-dependencies');
});
