'use strict';
// Support for adapter.test.js: a DebugClient that keeps every event, the
// paths of the repository's mpidbg and test programs, and why a test cannot
// run. Not a test file itself (node --test runs test/*.test.js).

const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const REPO = path.resolve(__dirname, '..', '..', '..');
const MPIDBG = path.join(REPO, 'bin', 'mpidbg');
const STEP_TIMEOUT = 25000; // one wait: ranks start under gdb in a few seconds

// MPIS are the MPI libraries the tests run with, each program built with
// each (make vscodetest): bin/testprogs/dap for MPICH, dap-openmpi for Open MPI.
const MPIS = ['mpich', 'openmpi'];

function testprog(name, mpi = 'mpich') {
	return {
		source: path.join(REPO, 'testprogs', 'dap', `${name}.c`),
		program: path.join(REPO, 'bin', 'testprogs', mpi === 'mpich' ? 'dap' : `dap-${mpi}`, name),
	};
}

// Open MPI's mpiexec, which the adapter starts with this environment,
// refuses root and more ranks than cores unless told: settings of the test
// machine (internal/testenv does the same for the Go tests).
process.env.OMPI_MCA_rmaps_base_oversubscribe ||= '1';
if (process.getuid && process.getuid() === 0) {
	process.env.OMPI_ALLOW_RUN_AS_ROOT ||= '1';
	process.env.OMPI_ALLOW_RUN_AS_ROOT_CONFIRM ||= '1';
}

// missing says what a test needs and is not there ('' when all is), for
// the skip reason or, under MPIDBG_REQUIRE_DAP=1, the failure.
function missing(mpi, ...names) {
	if (!fs.existsSync(MPIDBG)) return `${MPIDBG} does not exist (make build)`;
	for (const name of names) {
		const { source, program } = testprog(name, mpi);
		if (!fs.existsSync(source)) return `${source} does not exist`;
		if (!fs.existsSync(program)) return `${program} does not exist (build the DAP test programs)`;
	}
	return '';
}

// skip: the value of a test's skip option. Without MPIDBG_REQUIRE_DAP=1 a
// test whose adapter or program is missing is skipped; with it, it runs
// and fails on requireAll.
function skip(mpi, ...names) {
	if (process.env.MPIDBG_REQUIRE_DAP === '1') return false;
	return missing(mpi, ...names) || false;
}

function requireAll(mpi, ...names) {
	const why = missing(mpi, ...names);
	if (why) throw new Error(`MPIDBG_REQUIRE_DAP=1: ${why}`);
}

// markerLine: the 1-based line of the source that carries `// MARKER`, so
// that the tests follow the programs when they are edited.
function markerLine(source, marker) {
	const lines = fs.readFileSync(source, 'utf8').split('\n');
	const re = new RegExp(`//\\s*${marker}\\b`);
	const i = lines.findIndex((l) => re.test(l));
	if (i < 0) throw new Error(`${source} has no "// ${marker}" line`);
	return { line: i + 1, text: lines[i] };
}

// Client records every event as it arrives, so that a test can wait for
// one that came before it asked (initialized races the launch response;
// several ranks stop at once) and take each event once.
class Client extends DebugClient {
	constructor() {
		super(MPIDBG, 'dap', 'mpidbg', { cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
		this.defaultTimeout = STEP_TIMEOUT;
		this.log = [];
		this.taken = new Set();
		this.waiters = new Set();
		this.stderr = '';
	}

	async start() {
		await super.start();
		// Keep the adapter's stderr for the failure messages.
		const proc = this._adapterProcess;
		if (proc) {
			this.exited = false;
			this.exit = new Promise((resolve) => proc.on('exit', () => { this.exited = true; resolve(); }));
			// A request written after the adapter exited must fail the test
			// through its timeout, not crash node with EPIPE.
			proc.stdin.on('error', () => {});
			proc.stderr.on('data', (d) => {
				this.stderr = (this.stderr + d.toString()).slice(-4000);
				if (process.env.MPIDBG_DAP_STDERR === '1') process.stderr.write(d);
			});
		}
	}

	emit(name, msg) {
		if (msg && msg.type === 'event') {
			this.log.push(msg);
			for (const w of [...this.waiters]) w();
		}
		return super.emit(name, msg);
	}

	// take resolves to the first event not taken yet for which pred holds,
	// waiting for it up to timeout ms.
	take(pred, what, timeout = STEP_TIMEOUT) {
		return new Promise((resolve, reject) => {
			let timer;
			const check = () => {
				const ev = this.log.find((e) => !this.taken.has(e) && pred(e));
				if (!ev) return false;
				this.taken.add(ev);
				this.waiters.delete(check);
				clearTimeout(timer);
				resolve(ev);
				return true;
			};
			if (check()) return;
			this.waiters.add(check);
			timer = setTimeout(() => {
				this.waiters.delete(check);
				reject(new Error(`no ${what} within ${timeout} ms; events: ${this.summary()}` +
					(this.stderr ? `\nadapter stderr:\n${this.stderr}` : '')));
			}, timeout);
		});
	}

	event(name, timeout) {
		return this.take((e) => e.event === name, `"${name}" event`, timeout);
	}

	stopped(reason, timeout) {
		return this.take((e) => e.event === 'stopped' && (!reason || e.body.reason === reason),
			`"stopped" event${reason ? ` (reason ${reason})` : ''}`, timeout);
	}

	summary() {
		return this.log.map((e) => e.event + (e.body && e.body.reason ? `(${e.body.reason})` : '')).join(' ') || 'none';
	}

	// run: initialize, launch, then the configuration requests between the
	// initialized event and configurationDone, as VS Code sends them. The
	// launch response may come before or after configurationDone.
	async run(launchArgs, { breakpoints = [], filters = ['errors'] } = {}) {
		const init = await this.initializeRequest();
		const launched = this.launchRequest(launchArgs);
		const failed = launched.then(() => new Promise(() => {}));
		await Promise.race([this.event('initialized'), failed]);
		const bps = [];
		for (const { path: p, lines } of breakpoints) {
			bps.push(await this.setBreakpointsRequest({ source: { path: p }, lines, breakpoints: lines.map((line) => ({ line })) }));
		}
		await this.setExceptionBreakpointsRequest({ filters });
		await this.configurationDoneRequest();
		await launched;
		return { init, bps };
	}

	// threadNames: thread id -> name, from a threads request.
	async threadNames() {
		const r = await this.threadsRequest();
		return new Map(r.body.threads.map((t) => [t.id, t.name]));
	}

	async topFrame(threadId) {
		const r = await this.stackTraceRequest({ threadId, startFrame: 0, levels: 20 });
		if (r.body.stackFrames.length === 0) throw new Error(`thread ${threadId} has no frames`);
		return r.body.stackFrames[0];
	}

	// close ends the session and the job whatever state the test left them
	// in; an adapter still there 5 s after disconnect is killed.
	async close() {
		const wait = (p) => Promise.race([p, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
		if (!this.disconnected && !this.exited) await wait(this.disconnectRequest({ terminateDebuggee: true }).catch(() => {}));
		// Give the adapter the time to end gdb and the job before SIGTERM.
		if (this.exit) await wait(this.exit);
		this.stopAdapter();
	}

	disconnectRequest(args) {
		this.disconnected = true;
		return super.disconnectRequest(args);
	}
}

// rankOf: "rank 2" -> 2; "rank 2 thread 3" and others -> undefined.
function rankOf(threadName) {
	const m = /^rank (\d+)$/.exec(threadName || '');
	return m ? Number(m[1]) : undefined;
}

// running: the PIDs of the processes that run program.
function running(program) {
	const pids = [];
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		try {
			if (fs.readlinkSync(`/proc/${d}/exe`) === program) pids.push(Number(d));
		} catch {
			// gone meanwhile
		}
	}
	return pids;
}

async function eventually(cond, timeout, step = 200) {
	const end = Date.now() + timeout;
	while (Date.now() < end) {
		if (cond()) return true;
		await new Promise((r) => setTimeout(r, step));
	}
	return cond();
}

module.exports = { REPO, MPIDBG, MPIS, Client, testprog, missing, skip, requireAll, markerLine, rankOf, running, eventually };
