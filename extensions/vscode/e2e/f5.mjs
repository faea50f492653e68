// f5.mjs drives code-server (VS Code in the browser) in headless
// Chromium: it opens the repository, picks a launch configuration in Run
// and Debug, presses F5, waits for the stop and checks what the UI shows:
// the editor at the line with the expected marker, the exception widget
// naming the expected finding, the Call Stack's threads named by rank.
// Screenshots and result.json go to $SHOTS. Exit status 1 when a check
// fails. run.sh starts it.
//
//   node f5.mjs URL [CONFIGURATION-NAME-PREFIX]
//
// EXPECT_ID and EXPECT_MARK override the expectations (default: those of
// "mpidbg: planted bug", buffer-overlap at "// FAULT"; "mpidbg: deadlock"
// expects deadlock at "// BLOCKED").
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';

const require = createRequire(path.join(process.env.CS || '/tmp/mpidbg-e2e/cs', '/'));
const { chromium } = require('playwright-core');

const URL = process.argv[2];
const CONFIG = process.argv[3] || 'mpidbg: planted bug';
const deadlock = CONFIG.includes('deadlock');
const EXPECT_ID = process.env.EXPECT_ID || (deadlock ? 'deadlock' : 'buffer-overlap');
const EXPECT_MARK = process.env.EXPECT_MARK || (deadlock ? '// BLOCKED' : '// FAULT');
const SHOTS = process.env.SHOTS || '/tmp/mpidbg-e2e/shots';
if (!URL) {
	console.error('usage: node f5.mjs URL [CONFIGURATION-NAME-PREFIX]');
	process.exit(2);
}
fs.mkdirSync(SHOTS, { recursive: true });

const result = { config: CONFIG, steps: [], failures: [] };
const log = (...a) => { const s = a.join(' '); console.log(s); result.steps.push(s); };
const fail = (s) => { log('FAIL', s); result.failures.push(s); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await chromium.launch({
	executablePath: '/usr/bin/chromium',
	args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
let n = 0;
const shot = async (name) => {
	const file = `${SHOTS}/${String(++n).padStart(2, '0')}-${name}.png`;
	await page.screenshot({ path: file, fullPage: true });
	log('screenshot', file);
};
const text = async (sel) => {
	const loc = page.locator(sel);
	return (await loc.count()) ? (await loc.first().innerText()).trim() : null;
};
const labels = (sel) => page.locator(sel).evaluateAll((els) =>
	els.map((e) => (e.getAttribute('aria-label') || e.innerText).replace(/\s+/g, ' ').trim()));

try {
	// code-server answers "load" late under load: the DOM is enough
	await page.goto(URL, { waitUntil: 'domcontentloaded', timeout: 120000 });
	await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
	await sleep(5000);

	// Run and Debug, and the configuration (a custom-drawn select box)
	await page.keyboard.press('Control+Shift+D');
	await page.waitForSelector('.start-debug-action-item', { timeout: 20000 });
	await sleep(1500);
	const select = page.locator('.start-debug-action-item select.monaco-select-box');
	const want = (await select.locator('option').allTextContents()).find((o) => o.startsWith(CONFIG));
	if (!want) throw new Error(`no launch configuration starting with "${CONFIG}"`);
	await select.click();
	await page.locator('.monaco-select-box-dropdown-container .option-text', { hasText: want }).first().click();
	await sleep(500);
	log('configuration:', await select.evaluate((s) => s.options[s.selectedIndex].text));

	await page.locator('.debug-viewlet').first().click({ position: { x: 100, y: 300 } }).catch(() => {});
	const t0 = Date.now();
	await page.keyboard.press('F5');
	await page.waitForSelector('.exception-widget', { timeout: 180000 });
	result.secondsToStop = (Date.now() - t0) / 1000; // includes the preLaunchTask's build
	await sleep(3000); // the stack, the editor and the widget settle

	result.exceptionWidget = await text('.exception-widget');
	result.cursor = await text('#status\\.editor\\.selection');
	result.editorLine = await page.evaluate(() => {
		const ed = document.querySelector('.editor-instance .monaco-editor');
		const deco = ed && ed.querySelector('.debug-top-stack-frame-line, .debug-focused-stack-frame-line');
		if (!deco) return null;
		const top = deco.parentElement.style.top || deco.style.top;
		const line = [...ed.querySelectorAll('.view-line')].find((l) => l.style.top === top);
		return line ? line.innerText.replace(/\u00a0/g, ' ') : null; // the editor draws spaces as NBSP
	});
	result.callStack = await labels('.debug-call-stack .monaco-list-row');
	log('stopped after', result.secondsToStop, 's at', result.cursor, JSON.stringify(result.editorLine));
	log('exception widget:', result.exceptionWidget);
	log('call stack:', JSON.stringify(result.callStack));
	await shot('stopped');

	if (!result.exceptionWidget || !result.exceptionWidget.includes(EXPECT_ID))
		fail(`the exception widget does not name ${EXPECT_ID}`);
	if (!result.editorLine || !result.editorLine.includes(EXPECT_MARK))
		fail(`the editor's current line is not the one marked ${EXPECT_MARK}`);
	// a thread's row reads "Thread rank R ..." to assistive technology
	if (!result.callStack.some((l) => /^(Thread )?rank \d+/.test(l)))
		fail('no thread named "rank R" in the Call Stack');

	const vars = page.locator('.debug-variables').first();
	if (await vars.count()) await vars.screenshot({ path: `${SHOTS}/${String(++n).padStart(2, '0')}-variables.png` });

	await page.keyboard.press('Shift+F5');
	result.endedOnStop = await page.waitForSelector('.debug-toolbar', { state: 'hidden', timeout: 30000 })
		.then(() => true).catch(() => false);
	if (!result.endedOnStop) fail('the session did not end on Shift+F5');
	await shot('after-stop');
} catch (e) {
	fail(e.message);
	await shot('error').catch(() => {});
} finally {
	fs.writeFileSync(`${SHOTS}/result.json`, JSON.stringify(result, null, 2));
	await browser.close();
}
log(result.failures.length ? `${result.failures.length} check(s) failed` : 'all checks passed');
process.exit(result.failures.length ? 1 : 0);
