'use strict';
// extension.js against a stand-in for the `vscode` module: what it
// registers, and what it does with a configuration and a finding event.
// The stand-in records calls; it is only as large as extension.js needs.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');

function fakeVscode() {
	const calls = [];
	const record = (name, ret) => (...args) => { calls.push([name, ...args]); return ret; };
	const reg = {};
	const channels = {};
	const vscode = {
		calls, reg, channels,
		answers: { input: undefined, choice: undefined },
		DebugAdapterExecutable: class { constructor(command, args, options) { Object.assign(this, { command, args, options }); } },
		DebugConfigurationProviderTriggerKind: { Initial: 1, Dynamic: 2 },
		workspace: {
			workspaceFolders: [],
			settings: {},
			getConfiguration: () => ({ get: (k, d) => (k in vscode.workspace.settings ? vscode.workspace.settings[k] : d) }),
		},
		window: {
			activeTextEditor: undefined,
			createOutputChannel(name) {
				const ch = { text: '', appendLine(s) { this.text += s + '\n'; }, append(s) { this.text += s; }, show() {}, dispose() {} };
				channels[name] = ch;
				return ch;
			},
			showErrorMessage: (...a) => { calls.push(['error', ...a]); return Promise.resolve(vscode.answers.choice); },
			showWarningMessage: (...a) => { calls.push(['warning', ...a]); return Promise.resolve(vscode.answers.choice); },
			showInformationMessage: (...a) => { calls.push(['info', ...a]); return Promise.resolve(vscode.answers.choice); },
			showInputBox: (o) => { calls.push(['input', o]); return Promise.resolve(vscode.answers.input); },
			showQuickPick: record('quickPick', Promise.resolve(undefined)),
		},
		debug: {},
		commands: { registerCommand: (id, fn) => { reg[`command:${id}`] = fn; return { dispose() {} }; } },
	};
	for (const name of ['registerDebugAdapterDescriptorFactory', 'registerDebugAdapterTrackerFactory']) {
		vscode.debug[name] = (type, obj) => { reg[name] = obj; return { dispose() {} }; };
	}
	vscode.debug.registerDebugConfigurationProvider = (type, p, kind) => {
		reg[kind === 2 ? 'dynamicProvider' : 'provider'] = p;
		return { dispose() {} };
	};
	vscode.debug.onDidReceiveDebugSessionCustomEvent = (fn) => { reg.customEvent = fn; return { dispose() {} }; };
	vscode.debug.onDidTerminateDebugSession = (fn) => { reg.terminate = fn; return { dispose() {} }; };
	return vscode;
}

// load: a fresh extension.js activated with a fresh stand-in.
function load() {
	const vscode = fakeVscode();
	const resolve = Module._resolveFilename;
	Module._resolveFilename = function (request, ...rest) {
		return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
	};
	require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };
	const file = require.resolve('../src/extension');
	delete require.cache[file];
	try {
		const ext = require(file);
		ext.activate({ subscriptions: [] });
	} finally {
		Module._resolveFilename = resolve;
		delete require.cache.vscode;
	}
	return vscode;
}

test('activate registers the debug type\'s parts and the commands', () => {
	const { reg } = load();
	for (const k of ['registerDebugAdapterDescriptorFactory', 'registerDebugAdapterTrackerFactory', 'provider',
		'dynamicProvider', 'customEvent', 'terminate', 'command:mpidbg.explain', 'command:mpidbg.pickProcess']) {
		assert.ok(reg[k], k);
	}
	assert.equal(reg.provider.provideDebugConfigurations, undefined, 'package.json\'s initialConfigurations stay in charge');
});

test('the adapter executable: mpidbg.path, mpidbg.gdb and mpidbg.logFile', () => {
	const vscode = load();
	const exe = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mpidbg-')), 'mpidbg');
	fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
	vscode.workspace.settings = { path: exe, gdb: '/opt/gdb' };
	const d = vscode.reg.registerDebugAdapterDescriptorFactory.createDebugAdapterDescriptor({ workspaceFolder: undefined });
	assert.equal(d.command, exe);
	assert.deepEqual(d.args, ['dap', '--gdb', '/opt/gdb']);
	// mpidbg.logFile: the adapter's --log, relative to the workspace folder
	vscode.workspace.settings = { path: exe, logFile: 'dap.log' };
	const ws = { uri: { fsPath: '/ws' } };
	assert.deepEqual(vscode.reg.registerDebugAdapterDescriptorFactory.createDebugAdapterDescriptor({ workspaceFolder: ws }).args,
		['dap', '--log', '/ws/dap.log']);
	vscode.workspace.settings = { path: exe + '-missing' };
	assert.throws(() => vscode.reg.registerDebugAdapterDescriptorFactory.createDebugAdapterDescriptor({}), /cannot find the executable/);
});

test('F5 without launch.json debugs the active C file\'s program', async () => {
	const vscode = load();
	vscode.window.activeTextEditor = { document: { languageId: 'c' } };
	const c = vscode.reg.provider.resolveDebugConfiguration(undefined, {});
	assert.equal(c.program, '${fileDirname}/${fileBasenameNoExtension}');
	vscode.window.activeTextEditor = { document: { languageId: 'markdown' } };
	assert.equal(vscode.reg.provider.resolveDebugConfiguration(undefined, {}), undefined);
	assert.equal(vscode.calls.at(-1)[0], 'error');

	// The program is not built: ask; cancelling starts nothing.
	const missing = { type: 'mpidbg', request: 'launch', name: 'x', program: '/nonexistent/app' };
	assert.equal(await vscode.reg.provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, missing), undefined);
	assert.equal(vscode.calls.at(-1)[0], 'input');
	vscode.answers.input = process.execPath;
	const got = await vscode.reg.provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, missing);
	assert.equal(got.program, process.execPath);

	// A bad attribute: an error, and null (open launch.json).
	const bad = { ...missing, program: process.execPath, np: 0 };
	assert.equal(await vscode.reg.provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, bad), null);
	assert.match(vscode.calls.at(-1)[1], /"np"/);

	// ${command:pickProcess} gives a string; the adapter gets a number.
	const attach = { type: 'mpidbg', request: 'attach', name: 'a', pid: '4242' };
	assert.deepEqual(await vscode.reg.provider.resolveDebugConfigurationWithSubstitutedVariables(undefined, attach), { ...attach, pid: 4242 });
});

test('a finding event: the channel each time, a notification once', () => {
	const vscode = load();
	const session = { id: 's1', type: 'mpidbg' };
	const body = { rank: 2, id: 'buffer-overlap', severity: 'error', message: 'overlap', site: { file: '/p/planted.c', line: 22 } };
	vscode.reg.customEvent({ session, event: 'mpidbg/finding', body });
	vscode.reg.customEvent({ session, event: 'mpidbg/finding', body: { ...body, rank: 3 } });
	vscode.reg.customEvent({ session, event: 'mpidbg/finding', body: { ...body, id: 'type-leak', severity: 'warning' } });
	vscode.reg.customEvent({ session, event: 'other', body });
	vscode.reg.customEvent({ session: { id: 's2', type: 'cppdbg' }, event: 'mpidbg/finding', body });
	const notes = vscode.calls.filter((c) => c[0] === 'error' || c[0] === 'warning');
	assert.deepEqual(notes.map((c) => [c[0], c[1], c[2]]), [
		['error', 'mpidbg: buffer-overlap (rank 2, planted.c:22): overlap', 'Explain'],
		['warning', 'mpidbg: type-leak (rank 2, planted.c:22): overlap', 'Explain'],
	]);
	const lines = vscode.channels.mpidbg.text.split('\n').filter((l) => !l.startsWith('    ') && l !== '');
	assert.deepEqual(lines, [
		'error buffer-overlap (rank 2) at /p/planted.c:22',
		'error buffer-overlap (rank 3) at /p/planted.c:22  [2 times]',
		'warning type-leak (rank 2) at /p/planted.c:22',
	]);
});
