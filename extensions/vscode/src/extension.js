'use strict';
// The VS Code side of mpidbg: the debug type "mpidbg" runs `mpidbg dap`
// over stdio; everything about MPI, gdb and the ranks is in that adapter.
// This file only wires VS Code to it: where the executable is, launch.json
// defaults and checks, the findings the adapter reports (custom event
// mpidbg/finding), and an optional trace of the protocol.

const vscode = require('vscode');
const cp = require('child_process');
const path = require('path');
const cfg = require('./config');
const fnd = require('./finding');

let channel; // "mpidbg": findings and `mpidbg explain` output
let traceChannel; // "mpidbg DAP": the protocol, when mpidbg.trace is on
const trackers = new Map(); // debug session id -> FindingTracker

function settings(folder) {
	return vscode.workspace.getConfiguration('mpidbg', folder);
}

function folderPaths(folder) {
	if (folder) return [folder.uri.fsPath];
	return (vscode.workspace.workspaceFolders || []).map((f) => f.uri.fsPath);
}

// mpidbgPath: the executable to run, or an Error that says what to do.
function mpidbgPath(folder) {
	const exe = cfg.resolveMpidbgPath({ setting: settings(folder).get('path', ''), folders: folderPaths(folder) });
	const found = exe.includes('/') ? (cfg.isExecutable(exe) ? exe : undefined) : cfg.onPath(exe);
	if (!found) {
		throw new Error(`mpidbg: cannot find the executable "${exe}". Build it (make build gives bin/mpidbg), ` +
			'install it (make install), or set "mpidbg.path".');
	}
	return found;
}

const descriptorFactory = {
	createDebugAdapterDescriptor(session) {
		const folder = session.workspaceFolder;
		const options = folder ? { cwd: folder.uri.fsPath } : {};
		const args = cfg.adapterArgs({ gdb: settings(folder).get('gdb', ''), logFile: settings(folder).get('logFile', ''),
			folder: folder ? folder.uri.fsPath : '' });
		return new vscode.DebugAdapterExecutable(mpidbgPath(folder), args, options);
	},
};

const configurationProvider = {
	// Without a launch.json, F5 calls this with an empty configuration:
	// debug the active source file's program.
	resolveDebugConfiguration(folder, config) {
		if (!config.type && !config.request && !config.name) {
			const editor = vscode.window.activeTextEditor;
			const def = editor && cfg.defaultLaunchConfig(editor.document.languageId);
			if (!def) {
				vscode.window.showErrorMessage('mpidbg: open the C, C++ or Fortran source of the MPI program, or add an mpidbg configuration to launch.json.');
				return undefined;
			}
			return def;
		}
		return config;
	},

	// After ${...} substitution: the values the adapter will see, checked
	// here so that a typo is reported as such and not as a gdb error.
	async resolveDebugConfigurationWithSubstitutedVariables(folder, config) {
		let c = cfg.normalize(config);
		const problem = c.request === 'launch' && cfg.programProblem(c);
		if (problem) {
			const program = await askProgram(c, folder, problem);
			if (!program) return undefined; // cancelled: no session, no message
			c = { ...c, program };
		}
		const errs = cfg.validate(c);
		if (errs.length > 0) {
			vscode.window.showErrorMessage(`mpidbg: ${errs.join(' ')}`);
			return null; // null: do not start, open launch.json
		}
		return c;
	},
};

// The "mpidbg (MPI)..." entry of the Run and Debug view's picker. Apart
// from configurationProvider: an initial-trigger provider's
// provideDebugConfigurations would replace package.json's
// initialConfigurations when VS Code creates launch.json.
const dynamicProvider = {
	provideDebugConfigurations() {
		const out = [];
		const editor = vscode.window.activeTextEditor;
		const def = editor && cfg.defaultLaunchConfig(editor.document.languageId);
		if (def) out.push(def);
		out.push({ type: cfg.DEBUG_TYPE, request: 'attach', name: 'mpidbg: attach to a job', pid: '${command:pickProcess}' });
		return out;
	},
};

// askProgram: the program is not set or does not exist (not built yet, or
// the guess from the file name is wrong): ask for it rather than fail in
// mpiexec.
function askProgram(c, folder, problem) {
	const guess = c.program || path.join(folderPaths(folder)[0] || '', 'a.out');
	return vscode.window.showInputBox({
		title: 'mpidbg: which MPI program?',
		prompt: `${problem} Give the program to run (built with mpicc -g).`,
		value: guess,
		ignoreFocusOut: true,
		validateInput: (v) => cfg.programProblem({ program: v, cwd: c.cwd }) || undefined,
	});
}

const traceFactory = {
	createDebugAdapterTracker(session) {
		if (!settings(session.workspaceFolder).get('trace', false)) return undefined;
		if (!traceChannel) traceChannel = vscode.window.createOutputChannel('mpidbg DAP');
		const log = (s) => traceChannel.appendLine(`${new Date().toISOString()} ${s}`);
		log(`session ${session.name} (${session.id})`);
		return {
			onWillReceiveMessage: (m) => log(`-> ${JSON.stringify(m)}`),
			onDidSendMessage: (m) => log(`<- ${JSON.stringify(m)}`),
			onError: (e) => log(`error: ${e.message}`),
			onExit: (code, signal) => log(`mpidbg dap exited (code ${code}, signal ${signal})`),
		};
	},
};

function onCustomEvent(e) {
	if (e.session.type !== cfg.DEBUG_TYPE || e.event !== fnd.EVENT) return;
	const body = e.body || {};
	if (!trackers.has(e.session.id)) trackers.set(e.session.id, new fnd.FindingTracker());
	const { first, count } = trackers.get(e.session.id).add(body);
	channel.appendLine(fnd.formatFinding(body, { count }));
	if (!first) return;
	const show = {
		error: (...a) => vscode.window.showErrorMessage(...a),
		warning: (...a) => vscode.window.showWarningMessage(...a),
		info: (...a) => vscode.window.showInformationMessage(...a),
	}[fnd.severity(body)];
	show(fnd.notificationText(body), 'Explain', 'Show all').then((choice) => {
		if (choice === 'Explain') explain(body.id, e.session.workspaceFolder, body.language);
		else if (choice === 'Show all') channel.show(true);
	});
}

// explain runs `mpidbg explain [--lang LANGUAGE] ID` and shows its
// output in the channel.
function explain(id, folder, language) {
	let exe, args;
	try {
		args = fnd.explainArgs(id, language);
		exe = mpidbgPath(folder);
	} catch (err) {
		vscode.window.showErrorMessage(err.message);
		return;
	}
	// NO_COLOR: the channel shows escape codes verbatim.
	cp.execFile(exe, args, { env: { ...process.env, NO_COLOR: '1' }, timeout: 10000 }, (err, stdout, stderr) => {
		channel.appendLine(`\n$ mpidbg ${args.join(' ')}`);
		if (stdout) channel.append(stdout);
		if (err) channel.appendLine(stderr || err.message);
		channel.show(true);
	});
}

// pickProcess: ${command:pickProcess} in an attach configuration; the
// user's processes, launchers (mpiexec, mpidbg run) first.
function pickProcess() {
	return new Promise((resolve) => {
		const args = ['-o', 'pid=,args='];
		if (process.getuid) args.push('-u', String(process.getuid()));
		cp.execFile('ps', args, { maxBuffer: 16 << 20 }, (err, stdout) => {
			if (err) {
				vscode.window.showErrorMessage(`mpidbg: ps failed: ${err.message}`);
				resolve(undefined);
				return;
			}
			const items = cfg.parseProcesses(stdout)
				.filter((p) => p.pid !== process.pid)
				.map((p) => ({
					label: path.basename(p.command.split(/\s+/)[0]),
					description: `${p.pid}${p.launcher ? '  MPI launcher' : ''}`,
					detail: p.command,
					pid: p.pid,
				}));
			vscode.window.showQuickPick(items, {
				title: 'mpidbg: attach to a job',
				placeHolder: 'the job\'s launcher: mpiexec or mpidbg run',
				matchOnDescription: true,
				matchOnDetail: true,
			}).then((pick) => resolve(pick ? String(pick.pid) : undefined));
		});
	});
}

function activate(context) {
	channel = vscode.window.createOutputChannel('mpidbg');
	const type = cfg.DEBUG_TYPE;
	context.subscriptions.push(
		channel,
		{ dispose: () => traceChannel && traceChannel.dispose() },
		vscode.debug.registerDebugAdapterDescriptorFactory(type, descriptorFactory),
		vscode.debug.registerDebugConfigurationProvider(type, configurationProvider),
		vscode.debug.registerDebugConfigurationProvider(type, dynamicProvider, vscode.DebugConfigurationProviderTriggerKind.Dynamic),
		vscode.debug.registerDebugAdapterTrackerFactory(type, traceFactory),
		vscode.debug.onDidReceiveDebugSessionCustomEvent(onCustomEvent),
		vscode.debug.onDidTerminateDebugSession((s) => trackers.delete(s.id)),
		vscode.commands.registerCommand('mpidbg.explain', async (id) => {
			const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
			const pick = id || await vscode.window.showInputBox({ title: 'mpidbg explain', prompt: 'A finding id, e.g. buffer-overlap' });
			if (pick) explain(pick.trim().toLowerCase(), folder);
		}),
		vscode.commands.registerCommand('mpidbg.pickProcess', pickProcess),
	);
}

function deactivate() {}

module.exports = { activate, deactivate };
