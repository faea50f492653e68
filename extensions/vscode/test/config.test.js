'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const cfg = require('../src/config');

test('resolveMpidbgPath', () => {
	const has = (...files) => (f) => files.includes(f);
	const cases = [
		{ name: 'absolute setting', in: { setting: '/opt/mpidbg/bin/mpidbg', folders: ['/ws'] }, want: '/opt/mpidbg/bin/mpidbg' },
		{ name: 'relative setting from the folder', in: { setting: 'build/mpidbg', folders: ['/ws'] }, want: '/ws/build/mpidbg' },
		{ name: 'a name is for PATH', in: { setting: 'mpidbg-dev', folders: ['/ws'] }, want: 'mpidbg-dev' },
		{ name: 'home', in: { setting: '~/bin/mpidbg' }, want: path.join(os.homedir(), 'bin/mpidbg') },
		{ name: 'blank setting is the default', in: { setting: '  ', folders: ['/ws'], exists: has('/ws/bin/mpidbg') }, want: '/ws/bin/mpidbg' },
		{ name: 'second folder has it', in: { folders: ['/a', '/b'], exists: has('/b/bin/mpidbg') }, want: '/b/bin/mpidbg' },
		{ name: 'no build: PATH', in: { folders: ['/ws'], exists: has() }, want: 'mpidbg' },
		{ name: 'no folder: PATH', in: {}, want: 'mpidbg' },
	];
	for (const c of cases) assert.equal(cfg.resolveMpidbgPath(c.in), c.want, c.name);
});

test('onPath', () => {
	const exists = (f) => f === '/usr/bin/mpidbg';
	assert.equal(cfg.onPath('mpidbg', ['/usr/local/bin', '', '/usr/bin'].join(path.delimiter), exists), '/usr/bin/mpidbg');
	assert.equal(cfg.onPath('mpidbg', '/nowhere', exists), undefined);
});

test('adapterArgs', () => {
	assert.deepEqual(cfg.adapterArgs(), ['dap']);
	assert.deepEqual(cfg.adapterArgs({ gdb: '' }), ['dap']);
	assert.deepEqual(cfg.adapterArgs({ gdb: ' /opt/gdb/bin/gdb ' }), ['dap', '--gdb', '/opt/gdb/bin/gdb']);
	// mpidbg.logFile: --log FILE, ~ expanded, relative to the workspace folder
	assert.deepEqual(cfg.adapterArgs({ logFile: '  ' }), ['dap']);
	assert.deepEqual(cfg.adapterArgs({ logFile: '/tmp/dap.log' }), ['dap', '--log', '/tmp/dap.log']);
	assert.deepEqual(cfg.adapterArgs({ logFile: '~/dap.log' }), ['dap', '--log', path.join(os.homedir(), 'dap.log')]);
	assert.deepEqual(cfg.adapterArgs({ logFile: 'logs/dap.log', folder: '/ws' }), ['dap', '--log', '/ws/logs/dap.log']);
	assert.deepEqual(cfg.adapterArgs({ logFile: 'dap.log' }), ['dap', '--log', 'dap.log']);
	assert.deepEqual(cfg.adapterArgs({ gdb: 'gdb-13', logFile: '/tmp/x.log', folder: '/ws' }),
		['dap', '--gdb', 'gdb-13', '--log', '/tmp/x.log']);
});

test('defaultLaunchConfig', () => {
	for (const lang of ['c', 'cpp', 'fortran']) {
		const c = cfg.defaultLaunchConfig(lang);
		assert.equal(c.type, 'mpidbg', lang);
		assert.equal(c.request, 'launch', lang);
		assert.equal(c.program, '${fileDirname}/${fileBasenameNoExtension}', lang);
		assert.deepEqual(cfg.validate(c), [], lang);
	}
	assert.equal(cfg.defaultLaunchConfig('python'), undefined);
	assert.equal(cfg.defaultLaunchConfig(undefined), undefined);
});

test('normalize: numbers from variable substitution', () => {
	assert.deepEqual(cfg.normalize({ request: 'attach', pid: ' 1234 ' }), { request: 'attach', pid: 1234 });
	assert.deepEqual(cfg.normalize({ pids: ['12', 13, 'x'] }), { pids: [12, 13, 'x'] });
	assert.deepEqual(cfg.normalize({ np: '4' }), { np: 4 });
	const c = { pid: 'abc' };
	assert.deepEqual(cfg.normalize(c), { pid: 'abc' });
	assert.notEqual(cfg.normalize(c), c, 'a copy');
});

test('validate', () => {
	const exists = (f) => f === '/ws/app' || f === '/ws/sub/app';
	const launch = (extra) => ({ type: 'mpidbg', request: 'launch', name: 'x', program: '/ws/app', ...extra });
	const cases = [
		{ name: 'minimal launch', c: launch({}), want: [] },
		{
			name: 'every launch attribute', c: launch({
				args: ['-n', '3'], cwd: '/ws', env: { A: 'b' }, np: 4, mpiexec: 'mpiexec.mpich', mpiexecArgs: ['-bind-to', 'none'],
				stopOnEntry: true, stopOnError: false, ranks: '0,2-3', checks: '-leak,-overlap', nonStop: true,
				deadlockTimeout: '1m30s', gdb: '/usr/bin/gdb', shim: '/ws/lib/libmpidbg.so', buffering: 'zero',
				mpi: 'openmpi',
			}), want: [],
		},
		{ name: 'program relative to cwd', c: launch({ program: 'sub/app', cwd: '/ws' }), want: [] },
		{ name: 'program on PATH', c: launch({ program: 'hostname' }), want: [] },
		{ name: 'program not substituted yet', c: launch({ program: '${workspaceFolder}/app' }), want: [] },
		{ name: 'ranks as array', c: launch({ ranks: [0, 3], np: 4 }), want: [] },
		{ name: 'deadlock detection off', c: launch({ deadlockTimeout: '0' }), want: [] },
		// the forms the adapter (Go) takes and refuses
		{ name: 'ranks all', c: launch({ ranks: 'all' }), want: [] },
		{ name: 'ranks with spaces after commas', c: launch({ ranks: '0, 2-3', np: 4 }), want: [] },
		{ name: 'ranks with spaces in a range', c: launch({ ranks: '0, 2 - 3', np: 4 }), want: [/"ranks"/] },
		{ name: 'ranks range backwards', c: launch({ ranks: '3-2', np: 4 }), want: [/"ranks": 3-2 is not a range/] },
		{ name: 'ranks beyond np', c: launch({ ranks: '0,2-3' }), want: [/"ranks": rank 3 is not in the job \(np 2/] },
		{ name: 'ranks empty array', c: launch({ ranks: [] }), want: [/"ranks" selects no rank/] },
		{ name: 'env null unsets', c: launch({ env: { A: null, B: 'c' } }), want: [] },
		{ name: 'duration without leading digit', c: launch({ deadlockTimeout: '.5s' }), want: [] },
		{ name: 'negative duration', c: launch({ deadlockTimeout: '-1s' }), want: [/"deadlockTimeout"/] },
		{ name: 'attachTimeout', c: launch({ attachTimeout: '1m30s' }), want: [] },
		{ name: 'attachTimeout zero', c: launch({ attachTimeout: '0s' }), want: [/"attachTimeout"/] },
		{ name: 'listen', c: launch({ listen: '10.0.0.1', gdbserver: '/opt/gdb/bin/gdbserver' }), want: [] },
		{ name: 'listen not a string', c: launch({ listen: 4711 }), want: [/"listen"/] },
		{ name: 'gdbserver empty', c: launch({ gdbserver: '' }), want: [/"gdbserver"/] },
		{ name: 'gdbserver not a string', c: launch({ gdbserver: 3 }), want: [/"gdbserver"/] },
		{ name: 'no program', c: launch({ program: undefined }), want: [/"program" is missing/] },
		{ name: 'program not built', c: launch({ program: '/ws/nope' }), want: [/\/ws\/nope does not exist/] },
		{ name: 'bad np', c: launch({ np: 0 }), want: [/"np"/] },
		{ name: 'np not integer', c: launch({ np: 2.5 }), want: [/"np"/] },
		{ name: 'args as string', c: launch({ args: '-v' }), want: [/"args"/] },
		{ name: 'mpiexecArgs numbers', c: launch({ mpiexecArgs: [1] }), want: [/"mpiexecArgs"/] },
		{ name: 'env not strings', c: launch({ env: { N: 1 } }), want: [/"env"/] },
		{ name: 'bad ranks string', c: launch({ ranks: '0,a' }), want: [/"ranks"/] },
		{ name: 'negative rank', c: launch({ ranks: [-1] }), want: [/"ranks"/] },
		{ name: 'duration without unit', c: launch({ deadlockTimeout: '2' }), want: [/"deadlockTimeout"/] },
		{ name: 'bad buffering', c: launch({ buffering: 'lazy' }), want: [/"buffering"/] },
		{ name: 'mpi mpich', c: launch({ mpi: 'mpich' }), want: [] },
		{ name: 'bad mpi', c: launch({ mpi: 'OpenMPI' }), want: [/"mpi" must be "mpich" or "openmpi", got "OpenMPI"/] },
		{ name: 'mpi not a string', c: launch({ mpi: 1 }), want: [/"mpi"/] },
		{ name: 'two problems', c: launch({ np: -1, buffering: 'x' }), want: [/"np"/, /"buffering"/] },
		{ name: 'attach pid', c: { request: 'attach', pid: 4321 }, want: [] },
		{ name: 'attach pids', c: { request: 'attach', pids: [10, 11] }, want: [] },
		{ name: 'attach neither', c: { request: 'attach' }, want: [/either "pid".*or "pids"/] },
		{ name: 'attach empty pids', c: { request: 'attach', pids: [] }, want: [/either/] },
		{ name: 'attach both', c: { request: 'attach', pid: 1, pids: [2] }, want: [/either/] },
		{ name: 'attach pid not substituted', c: { request: 'attach', pid: '${command:pickProcess}' }, want: [/"pid" must be a process id/] },
		{ name: 'attach bad pids', c: { request: 'attach', pids: [1, 0] }, want: [/"pids"/] },
		{ name: 'bad request', c: { request: 'run' }, want: [/"request"/] },
	];
	for (const c of cases) {
		const got = cfg.validate(c.c, { fileExists: exists });
		assert.equal(got.length, c.want.length, `${c.name}: got ${JSON.stringify(got)}`);
		c.want.forEach((re, i) => assert.match(got[i], re, c.name));
	}
});

test('parseProcesses: launchers first', () => {
	const ps = [
		'    1 /sbin/init',
		'  700 bash',
		' 4242 mpiexec.mpich -n 4 ./app',
		' 4243 /usr/bin/hydra_pmi_proxy --control-port x',
		' 4250 ./app',
		' 5000 /work/bin/mpidbg run -n 2 ./halo',
		' 5001 /usr/bin/mpirun -np 2 a.out',
		' 5002 vim mpiexec.txt',
		'garbage',
		'',
	].join('\n');
	const got = cfg.parseProcesses(ps);
	assert.deepEqual(got.filter((p) => p.launcher).map((p) => p.pid), [4242, 5000, 5001]);
	assert.deepEqual(got.map((p) => p.pid), [4242, 5000, 5001, 1, 700, 4243, 4250, 5002]);
	assert.equal(got[0].command, 'mpiexec.mpich -n 4 ./app');
});

// launch-forms.json: values the adapter (Go, the reference) takes and
// refuses; dap's TestLaunchForms checks the adapter against the same file.
test('validate takes what the adapter takes', () => {
	const forms = JSON.parse(fs.readFileSync(path.join(__dirname, 'launch-forms.json'), 'utf8'));
	const check = (section, wantOk) => {
		for (const [attr, values] of Object.entries(forms[section])) {
			for (const v of values) {
				const got = cfg.validate({ type: 'mpidbg', request: 'launch', name: 'x', ...forms.base, [attr]: v }, { fileExists: () => true });
				assert.equal(got.length === 0, wantOk, `${section} ${attr} ${JSON.stringify(v)}: ${JSON.stringify(got)}`);
			}
		}
	};
	check('accepted', true);
	check('refused', false);
	// the adapter reads these as the attribute left out; in launch.json
	// they are mistakes
	check('absent', false);
});

test('parseDuration reads durations as Go\'s time.ParseDuration', () => {
	const s = 1e9;
	const cases = [
		['2s', 2 * s], ['0', 0], ['-0', 0], ['+0', 0], ['0s', 0], ['.5s', 0.5 * s], ['5.s', 5 * s], ['1m30s', 90 * s],
		['1.5h', 5400 * s], ['500ms', 0.5 * s], ['1µs', 1000], ['1\u03bcs', 1000], ['3ns', 3], ['-2s', -2 * s], ['+2s', 2 * s],
		['2', undefined], ['', undefined], ['s', undefined], ['.s', undefined], ['1 s', undefined], ['3S', undefined],
		['1e3s', undefined], ['1h-2m', undefined], ['100000000h', undefined], [2, undefined], [undefined, undefined],
	];
	for (const [text, want] of cases) assert.equal(cfg.parseDuration(text), want, JSON.stringify(text));
});
