'use strict';
// The parts of the extension that do not need VS Code: where mpidbg is,
// what `mpidbg dap` is started with, and the launch/attach configuration
// defaults and checks. extension.js passes VS Code's state in, so that
// these functions can be tested with plain node.

const fs = require('fs');
const os = require('os');
const path = require('path');

const DEBUG_TYPE = 'mpidbg';
const SOURCE_LANGUAGES = ['c', 'cpp', 'fortran'];

function isExecutable(file) {
	try {
		fs.accessSync(file, fs.constants.X_OK);
		return fs.statSync(file).isFile();
	} catch {
		return false;
	}
}

// resolveMpidbgPath: the mpidbg.path setting if set (~ and relative paths
// taken from the first workspace folder), else bin/mpidbg of the first
// workspace folder that has one (the state of a source checkout after
// `make build`), else "mpidbg" for the adapter to be found on PATH.
function resolveMpidbgPath({ setting = '', folders = [], exists = isExecutable } = {}) {
	const s = (setting || '').trim();
	if (s !== '') {
		if (s === '~' || s.startsWith('~/')) return path.join(os.homedir(), s.slice(1));
		if (path.isAbsolute(s) || folders.length === 0 || !s.includes('/')) {
			// A bare name ("mpidbg") is for PATH lookup, like the default.
			return s;
		}
		return path.resolve(folders[0], s);
	}
	for (const folder of folders) {
		const candidate = path.join(folder, 'bin', 'mpidbg');
		if (exists(candidate)) return candidate;
	}
	return 'mpidbg';
}

// onPath: the first executable `name` in the PATH string, or undefined.
function onPath(name, pathEnv = process.env.PATH || '', exists = isExecutable) {
	for (const dir of pathEnv.split(path.delimiter)) {
		if (dir === '') continue;
		const candidate = path.join(dir, name);
		if (exists(candidate)) return candidate;
	}
	return undefined;
}

// adapterArgs: the command line after the mpidbg executable. logFile (the
// mpidbg.logFile setting) becomes --log FILE, the adapter's record of every
// message and gdb/MI line; ~ is the home directory, and a relative path is
// taken from folder (the workspace folder), else left to the adapter's
// working directory.
function adapterArgs({ gdb = '', logFile = '', folder = '' } = {}) {
	const args = ['dap'];
	if (gdb && gdb.trim() !== '') args.push('--gdb', gdb.trim());
	const log = (logFile || '').trim();
	if (log !== '') {
		let file = log;
		if (log === '~' || log.startsWith('~/')) file = path.join(os.homedir(), log.slice(1));
		else if (!path.isAbsolute(log) && folder) file = path.resolve(folder, log);
		args.push('--log', file);
	}
	return args;
}

// defaultLaunchConfig: what F5 runs without a launch.json. The usual build
// of an MPI program is `mpicc -g -o prog prog.c`, so the program is the
// active source file without its extension, next to it.
function defaultLaunchConfig(languageId) {
	if (!SOURCE_LANGUAGES.includes(languageId)) return undefined;
	return {
		type: DEBUG_TYPE,
		request: 'launch',
		name: 'mpidbg: launch the current file\'s program',
		program: '${fileDirname}/${fileBasenameNoExtension}',
		np: 2,
		cwd: '${fileDirname}',
	};
}

// The forms below are the adapter's (dap/launch.go), which is the
// reference: what it accepts is accepted here, what it refuses is refused
// here, before a launch that would fail.

// Units of Go's time.ParseDuration, in nanoseconds (µ is U+00B5 or U+03BC).
const DURATION_UNITS = { ns: 1, us: 1e3, '\u00b5s': 1e3, '\u03bcs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

// parseDuration: a duration in nanoseconds as the adapter reads it (Go's
// time.ParseDuration: "2s", "1m30s", ".5s", "+1.5h", "0"), or undefined
// when it is not one.
function parseDuration(text) {
	if (typeof text !== 'string') return undefined;
	let s = text;
	let sign = 1;
	if (s[0] === '-' || s[0] === '+') {
		sign = s[0] === '-' ? -1 : 1;
		s = s.slice(1);
	}
	if (s === '0') return 0;
	if (s === '') return undefined;
	let total = 0;
	while (s !== '') {
		// [0-9]*(.[0-9]*)? with a digit somewhere, then the unit: what
		// follows up to the next digit or dot
		const m = /^([0-9]*)(?:\.([0-9]*))?([^0-9.]*)/.exec(s);
		const [all, int, frac = '', unit] = m;
		if (int === '' && frac === '') return undefined;
		if (!(unit in DURATION_UNITS)) return undefined;
		total += Number(`${int || '0'}.${frac || '0'}`) * DURATION_UNITS[unit];
		s = s.slice(all.length);
	}
	if (total > 2 ** 63) return undefined; // Go's int64 nanoseconds
	return sign * total || 0;
}

// The MPI libraries the adapter knows ("mpi"): the shim is built for one.
const MPI_LIBRARIES = ['mpich', 'openmpi'];
// Ranks as a string: "all", or ranks and ranges separated by commas
// ("0,2-3", "0, 2-3"); no space inside a range, as the adapter's
// strconv.Atoi takes no space ("2 - 3" is refused). The adapter's reader
// (Go, internal/ranklist) is the reference: test/ranklists.test.js holds
// this copy to the cases of internal/ranklist/testdata/ranklists.json.
const RANK_LIST = /^(all|\s*\+?\d+(-\+?\d+)?(\s*,\s*\+?\d+(-\+?\d+)?)*\s*)$/;

function isStringArray(v) {
	return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isPid(v) {
	return Number.isInteger(v) && v > 0;
}

// ranksProblem: why "ranks" is not what the adapter takes from a job of
// np ranks (2 when not given), or ''.
function ranksProblem(ranks, np) {
	const size = Number.isInteger(np) && np >= 1 ? np : 2;
	const want = `"ranks" must be an array of ranks, "all" or a list such as "0,2-3", got ${JSON.stringify(ranks)}.`;
	let list = [];
	if (Array.isArray(ranks)) {
		if (!ranks.every((r) => Number.isInteger(r) && r >= 0)) return want;
		if (ranks.length === 0) return '"ranks" selects no rank: leave it out for every rank.';
		list = ranks;
	} else if (typeof ranks !== 'string' || !RANK_LIST.test(ranks)) {
		return want;
	} else if (ranks !== 'all') {
		for (const item of ranks.split(',')) {
			const [lo, hi = lo] = item.trim().split('-').map(Number);
			if (hi < lo) return `"ranks": ${item.trim()} is not a range (want low-high, such as 2-3).`;
			list.push(hi);
		}
	}
	const out = list.find((r) => r >= size);
	return out === undefined ? '' : `"ranks": rank ${out} is not in the job (np ${size}: ranks 0-${size - 1}).`;
}

// normalize returns a copy of config with what the variable substitution
// leaves as strings made numbers: ${command:pickProcess} gives "1234".
function normalize(config) {
	const c = { ...config };
	if (typeof c.pid === 'string' && /^\s*\d+\s*$/.test(c.pid)) c.pid = Number(c.pid);
	if (Array.isArray(c.pids)) c.pids = c.pids.map((p) => (typeof p === 'string' && /^\s*\d+\s*$/.test(p) ? Number(p) : p));
	if (typeof c.np === 'string' && /^\s*\d+\s*$/.test(c.np)) c.np = Number(c.np);
	return c;
}

// programProblem: why a launch's program cannot be run, or ''. A bare name
// is looked up on PATH by mpiexec; a path is checked here, from cwd as the
// ranks will see it. Unsubstituted ${...} is left for VS Code.
function programProblem({ program, cwd } = {}, { fileExists = (f) => fs.existsSync(f) } = {}) {
	if (typeof program !== 'string' || program.trim() === '') {
		return '"program" is missing: the MPI program to run, e.g. "${workspaceFolder}/a.out".';
	}
	if (!program.includes('/') || program.includes('${')) return '';
	const prog = path.resolve(typeof cwd === 'string' ? cwd : '', program);
	if (fileExists(prog)) return '';
	const base = path.basename(prog);
	return `program ${prog} does not exist: build it first (e.g. mpicc.mpich -g -o ${base} ${base}.c).`;
}

// validate returns the problems of a configuration, as sentences for an
// error notification; empty when the adapter can be given it. It checks
// what a launch.json typo would otherwise turn into a gdb or mpiexec error
// far from its cause. fileExists is for `program`, after substitution.
function validate(config, { fileExists = (f) => fs.existsSync(f) } = {}) {
	const errs = [];
	const c = config || {};
	if (c.request === 'launch') {
		const p = programProblem(c, { fileExists });
		if (p) errs.push(p);
		if (c.args !== undefined && !isStringArray(c.args)) errs.push('"args" must be an array of strings.');
		if (c.mpiexecArgs !== undefined && !isStringArray(c.mpiexecArgs)) errs.push('"mpiexecArgs" must be an array of strings.');
		if (c.np !== undefined && !(Number.isInteger(c.np) && c.np >= 1)) errs.push(`"np" must be a positive integer, got ${JSON.stringify(c.np)}.`);
		// null unsets a variable
		if (c.env !== undefined && (typeof c.env !== 'object' || c.env === null || Array.isArray(c.env) ||
			!Object.values(c.env).every((v) => typeof v === 'string' || v === null))) {
			errs.push('"env" must be an object of strings (or null, to unset one), e.g. {"UCX_TLS": "self,sysv,posix"}.');
		}
		if (c.ranks !== undefined) {
			const p = ranksProblem(c.ranks, c.np);
			if (p) errs.push(p);
		}
		if (c.deadlockTimeout !== undefined && !(parseDuration(c.deadlockTimeout) >= 0)) {
			errs.push(`"deadlockTimeout" must be a duration such as "2s" or "0", got ${JSON.stringify(c.deadlockTimeout)}.`);
		}
		if (c.attachTimeout !== undefined && !(parseDuration(c.attachTimeout) > 0)) {
			errs.push(`"attachTimeout" must be a duration such as "60s", got ${JSON.stringify(c.attachTimeout)}.`);
		}
		if (c.buffering !== undefined && !['eager', 'zero'].includes(c.buffering)) {
			errs.push(`"buffering" must be "eager" or "zero", got ${JSON.stringify(c.buffering)}.`);
		}
		if (c.sysroot !== undefined && typeof c.sysroot !== 'string') {
			errs.push(`"sysroot" must be a directory such as "/", got ${JSON.stringify(c.sysroot)}.`);
		}
		if (c.listen !== undefined && typeof c.listen !== 'string') {
			errs.push(`"listen" must be an address of this machine such as "10.0.0.1", got ${JSON.stringify(c.listen)}.`);
		}
		if (c.gdbserver !== undefined && (typeof c.gdbserver !== 'string' || c.gdbserver === '')) {
			errs.push(`"gdbserver" must be a program name or path, got ${JSON.stringify(c.gdbserver)}.`);
		}
		if (c.mpi !== undefined && !MPI_LIBRARIES.includes(c.mpi)) {
			errs.push(`"mpi" must be "mpich" or "openmpi", got ${JSON.stringify(c.mpi)}.`);
		}
	} else if (c.request === 'attach') {
		const hasPid = c.pid !== undefined;
		const hasPids = c.pids !== undefined && !(Array.isArray(c.pids) && c.pids.length === 0);
		if (hasPid === hasPids) {
			errs.push('give either "pid" (the launcher\'s PID: mpiexec or mpidbg run) or "pids" (the ranks\' PIDs).');
		} else if (hasPid && !isPid(c.pid)) {
			errs.push(`"pid" must be a process id, got ${JSON.stringify(c.pid)}.`);
		} else if (hasPids && !(Array.isArray(c.pids) && c.pids.every(isPid))) {
			errs.push('"pids" must be an array of process ids.');
		}
	} else {
		errs.push(`"request" must be "launch" or "attach", got ${JSON.stringify(c.request)}.`);
	}
	return errs;
}

// Launchers whose PID an attach by "pid" wants: mpiexec and its variants,
// MPICH's hydra proxy's parent, Open MPI's mpirun/prterun, and `mpidbg run`.
const LAUNCHER = /(^|\/)(mpiexec(\.\w+)?|mpirun(\.\w+)?|prterun|orterun)(\s|$)|(^|\/)mpidbg\s+run(\s|$)/;

// parseProcesses reads `ps -eo pid=,args=` output; launchers first, since
// they are what an attach by "pid" wants.
function parseProcesses(text) {
	const procs = [];
	for (const line of text.split('\n')) {
		const m = /^\s*(\d+)\s+(.*\S)\s*$/.exec(line);
		if (!m) continue;
		procs.push({ pid: Number(m[1]), command: m[2], launcher: LAUNCHER.test(m[2]) });
	}
	return procs.sort((a, b) => Number(b.launcher) - Number(a.launcher) || a.pid - b.pid);
}

module.exports = {
	DEBUG_TYPE,
	SOURCE_LANGUAGES,
	MPI_LIBRARIES,
	RANK_LIST,
	parseDuration,
	resolveMpidbgPath,
	onPath,
	adapterArgs,
	defaultLaunchConfig,
	normalize,
	programProblem,
	validate,
	parseProcesses,
	isExecutable,
};
