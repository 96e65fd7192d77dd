// End-to-end test of the extension in a real VS Code: code-server (installed by
// .ci/code-server) on 127.0.0.1 with a temporary user-data and extensions folder, the
// platform .vsix (scripts/package-platform.sh, with RACELENS_BIN as its server) installed
// into it, driven headless through Debian's chromium with puppeteer-core. On the
// explore-lost-update fixture (plus the CAPP bench's render-queue project, whose test passes
// and has far too many schedules to finish) it checks through the DOM: the racelens problems
// with their related locations, the field hover's verdict, the `▶ Explore schedules` lens,
// an exploration's progress notification whose Cancel stops it, a run to the
// `✗ … after N schedules` lens, and the schedule's swimlane page opened by Show schedule.
//
//   npm run -s e2e        (env: CODE_SERVER, the entry.js .ci/code-server prints; RACELENS_BIN;
//                          CHROMIUM, default /usr/bin/chromium; RACELENS_E2E_KEEP=1 keeps everything)
//
// Screenshots of every step go to <temp>/out (the path is printed). On success only they
// stay; on failure the whole temp folder stays, and the failing step is named.

import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { commitFixture } from '../../../../tests/lsp/repository.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionRoot = path.resolve(here, '../..');
const repoRoot = path.resolve(extensionRoot, '../..');
const serverBin = path.resolve(process.env.RACELENS_BIN ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(repoRoot, 'target'), 'debug/racelens'));
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const keep = process.env.RACELENS_E2E_KEEP === '1';

/** Timeouts (ms) of the waits, by what is awaited. */
const T = { start: 60_000, ui: 20_000, analysis: 60_000, exploration: 180_000 };

const LATENCY_TEST = 'LatencyStatsTest.java';
const RENDER_TEST = 'RenderFarmTest.java';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'racelens-e2e-')));
const out = path.join(tmp, 'out');
fs.mkdirSync(out);
console.log(`racelens e2e: screenshots in ${out}`);

let page;
let shots = 0;
let current = 'setting up';
const started = Date.now();

/** Runs one step; a failure names it. */
async function step(name, body) {
    current = name;
    const t0 = Date.now();
    await body();
    console.log(`ok ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

async function screenshot(name) {
    if (page === undefined) {
        return;
    }
    shots += 1;
    const file = path.join(out, `${String(shots).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path: file });
}

/** Waits until `fn(arg)`, evaluated in the workbench page, returns something truthy; returns it. */
async function until(what, fn, arg, timeout = T.ui) {
    try {
        const handle = await page.waitForFunction(fn, { timeout, polling: 100 }, arg);
        return await handle.jsonValue();
    } catch (error) {
        throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}: ${error.message.split('\n')[0]}`, { cause: error });
    }
}

/** Waits for a condition checked in this process (a process, a file). */
async function untilHere(what, fn, timeout = T.ui) {
    const deadline = Date.now() + timeout;
    for (;;) {
        const value = await fn();
        if (value) {
            return value;
        }
        if (Date.now() > deadline) {
            throw new Error(`timed out after ${timeout / 1000} s waiting for ${what}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}

// In-page helpers (serialized into the page by waitForFunction / evaluate).

/** The titles of the code lenses on screen. */
const lensTitles = () => [...document.querySelectorAll('.codelens-decoration a, .codelens-decoration span > span')].map((e) => e.textContent.trim());

/** The rows of the Testing view's tree (the pane with the test filter box). */
function testRowElements() {
    const pane = document.querySelector('.testing-filter-wrapper')?.closest('.pane');
    return pane ? [...pane.querySelectorAll('.monaco-list-row')] : [];
}

/** The Testing view's rows: the label shown (name, then description) and the classes of their icons. */
function testRows() {
    return window.rlTestRowElements().map((r) => ({ label: r.querySelector('.monaco-icon-label')?.textContent ?? r.textContent, icons: [...r.querySelectorAll('[class*="codicon-"]')].map((i) => i.className).join(' ') }));
}

/** The visible notification toasts: their text and buttons. */
function toasts() {
    return [...document.querySelectorAll('.notifications-toasts .notification-toast')]
        .filter((t) => t.offsetParent !== null)
        .map((t) => ({ text: t.querySelector('.notification-list-item-message')?.textContent ?? t.textContent, buttons: [...t.querySelectorAll('.monaco-button')].map((b) => b.textContent.trim()) }));
}

/** Clicks the code lens whose title matches `pattern` (a RegExp source); throws if none. */
async function clickLens(pattern) {
    const lens = await page.evaluateHandle((source) => {
        const re = new RegExp(source);
        return [...document.querySelectorAll('.codelens-decoration a')].find((a) => re.test(a.textContent.trim())) ?? null;
    }, pattern);
    const element = lens.asElement();
    if (element === null) {
        throw new Error(`no code lens matching /${pattern}/ among ${JSON.stringify(await page.evaluate(() => window.rlLensTitles()))}`);
    }
    await element.click();
}

/** Opens a file through Quick Open (Ctrl+P) and waits for its editor tab. */
async function openFile(name) {
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyP');
    await page.keyboard.up('Control');
    await until('the Quick Open box', () => document.querySelector('.quick-input-widget .quick-input-box input') === document.activeElement);
    await page.keyboard.type(name);
    // The list follows the typing a little later: wait until the first (focused) row is the file.
    await until(`${name} first in Quick Open`, (n) => document.querySelector('.quick-input-list .monaco-list-row.focused')?.getAttribute('aria-label')?.startsWith(`${n} `), name);
    await page.keyboard.press('Enter');
    await until(`the editor of ${name}`, (n) => document.querySelector('.tabs-container .tab.active')?.getAttribute('aria-label')?.startsWith(n), name);
}

/** The frame (a webview's inner one) that has an element matching `selector`. */
async function frameWith(what, selector) {
    return untilHere(what, async () => {
        for (const f of page.frames()) {
            try {
                if (await f.evaluate((s) => document.querySelector(s) !== null, selector)) {
                    return f;
                }
            } catch {
                // A frame that navigated meanwhile.
            }
        }
        return undefined;
    }, T.ui);
}

/** Runs a command of the Command Palette by its title. */
async function command(title) {
    await page.keyboard.down('Control');
    await page.keyboard.down('Shift');
    await page.keyboard.press('KeyP');
    await page.keyboard.up('Shift');
    await page.keyboard.up('Control');
    await until('the Command Palette', () => document.querySelector('.quick-input-widget .quick-input-box input') === document.activeElement);
    await page.keyboard.type(title);
    await until(`${title} first in the Command Palette`, (t) => document.querySelector('.quick-input-list .monaco-list-row.focused')?.getAttribute('aria-label')?.startsWith(t), title);
    await page.keyboard.press('Enter');
}

/** Types `text` into the Testing view's filter box (replacing what was there). */
async function filterTests(text) {
    // A small editor (VS Code's suggest-enabled input), not an <input>.
    const input = await page.waitForSelector('.testing-filter-wrapper', { visible: true, timeout: T.ui });
    await input.click();
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.type(text);
}

/** Clicks the Run action of the Testing view's row whose label starts with `label`. */
async function runFromTestingView(label) {
    const row = await page.evaluateHandle((l) => window.rlTestRowElements().find((r) => r.textContent.startsWith(l)) ?? null, label);
    if (row.asElement() === null) {
        throw new Error(`no row ${label} in the Testing view: ${JSON.stringify(await page.evaluate(() => window.rlTestRows()))}`);
    }
    await row.asElement().hover();
    const action = await until(`the Run action of ${label}`, (l) => {
        const r = window.rlTestRowElements().find((e) => e.textContent.startsWith(l));
        return [...(r?.querySelectorAll('.action-label') ?? [])].map((a) => a.getAttribute('aria-label') ?? a.title ?? '').find((a) => /^(Run Test|Explore schedules)/.test(a));
    }, label);
    const button = await page.evaluateHandle(
        (l, a) => [...(window.rlTestRowElements().find((e) => e.textContent.startsWith(l))?.querySelectorAll('.action-label') ?? [])].find((e) => (e.getAttribute('aria-label') ?? e.title) === a) ?? null,
        label,
        action,
    );
    await button.asElement().click();
}

/** The pids of the processes whose command line contains `needle`, and their children. */
function processes(needle) {
    const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
        .split('\n')
        .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
        .filter(Boolean)
        .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args }));
    return rows.filter((r) => r.args.includes(needle) && r.pid !== process.pid).map((r) => ({ ...r, children: rows.filter((c) => c.ppid === r.pid) }));
}

let server;
let browser;

async function main() {
    const workspace = path.join(tmp, 'workspace');
    const userData = path.join(tmp, 'user-data');
    const extensions = path.join(tmp, 'extensions');
    fs.mkdirSync(workspace);
    const env = {
        ...process.env,
        XDG_CONFIG_HOME: path.join(tmp, 'xdg-config'),
        XDG_DATA_HOME: path.join(tmp, 'xdg-data'),
        // The server's exploration results and agent jar.
        XDG_CACHE_HOME: path.join(tmp, 'xdg-cache'),
    };
    const codeServer = process.env.CODE_SERVER || execFileSync('bash', [path.join(repoRoot, '.ci/code-server')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    const codeServerArgs = ['--disable-telemetry', '--user-data-dir', userData, '--extensions-dir', extensions];
    let vsix;

    await step('package the platform .vsix with the server inside', async () => {
        if (!fs.existsSync(serverBin)) {
            throw new Error(`no server binary at ${serverBin} (set RACELENS_BIN, or cargo build -p racelens)`);
        }
        vsix = execFileSync('bash', [path.join(extensionRoot, 'scripts/package-platform.sh'), '--binary', serverBin, '--out', path.join(tmp, 'racelens-linux-x64.vsix')], {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'pipe'],
        }).trim();
    });

    await step('install the .vsix into code-server', async () => {
        execFileSync('node', [codeServer, ...codeServerArgs, '--install-extension', vsix], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        const installed = fs.readdirSync(extensions).filter((d) => d.startsWith('racelens.racelens-'));
        if (installed.length !== 1) {
            throw new Error(`expected one racelens.racelens-* in ${extensions}: ${JSON.stringify(fs.readdirSync(extensions))}`);
        }
        const bundled = path.join(extensions, installed[0], 'server/racelens');
        fs.accessSync(bundled, fs.constants.X_OK);
    });

    await step('make the fixture workspace (a git repository with the change)', async () => {
        // explore-lost-update's base and render-queue's (which has no change) in one commit,
        // then lost-update's change in the working tree.
        commitFixture('explore-lost-update', workspace, { change: false });
        fs.cpSync(path.join(repoRoot, 'tests/bench/capp/render-queue-if-wait/base'), workspace, { recursive: true });
        const git = (...args) => execFileSync('git', args, { cwd: workspace, stdio: ['ignore', 'pipe', 'pipe'] });
        git('add', '-A');
        git('-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'render-queue');
        git('apply', path.join(repoRoot, 'tests/fixtures/explore-lost-update/change.patch'));
        fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
        fs.writeFileSync(
            path.join(userData, 'User/settings.json'),
            JSON.stringify(
                {
                    'workbench.startupEditor': 'none',
                    'workbench.tips.enabled': false,
                    'workbench.enableExperiments': false,
                    'extensions.autoCheckUpdates': false,
                    'extensions.autoUpdate': false,
                    'extensions.ignoreRecommendations': true,
                    'update.mode': 'none',
                    'telemetry.telemetryLevel': 'off',
                    'editor.minimap.enabled': false,
                    'editor.hover.delay': 100,
                    'git.enabled': false,
                    // RenderFarmTest would run for hours: only Cancel ends it.
                    'racelens.explore.bound': 10,
                    'racelens.explore.maxSchedules': 1_000_000_000,
                },
                null,
                1,
            ),
        );
    });

    let url;
    await step('start code-server', async () => {
        fs.writeFileSync(path.join(tmp, 'config.yaml'), 'auth: none\ncert: false\n');
        // Its own process group (detached), ended as a whole: extension hosts and the
        // language server outlive the top process.
        server = spawn(
            'node',
            [codeServer, ...codeServerArgs, '--auth', 'none', '--disable-workspace-trust', '--disable-update-check', '--bind-addr', '127.0.0.1:0', '--config', path.join(tmp, 'config.yaml')],
            { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        const log = fs.createWriteStream(path.join(out, 'code-server.log'));
        let text = '';
        server.stdout.on('data', (d) => {
            text += d;
            log.write(d);
        });
        server.stderr.on('data', (d) => log.write(d));
        const port = await untilHere('code-server to listen', () => {
            if (server.exitCode !== null) {
                throw new Error(`code-server exited with ${server.exitCode}: ${text}`);
            }
            return /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text)?.[1];
        }, T.start);
        url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
    });

    await step('open the workbench in chromium', async () => {
        browser = await puppeteer.launch({
            executablePath: chromium,
            headless: true,
            userDataDir: path.join(tmp, 'chromium'),
            args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-gpu', '--disable-dev-shm-usage', '--window-size=1600,1000'],
            defaultViewport: { width: 1600, height: 1000 },
        });
        page = await browser.newPage();
        // The in-page helpers, in every document the page loads.
        await page.evaluateOnNewDocument(`window.rlLensTitles = ${lensTitles}; window.rlToasts = ${toasts}; window.rlTestRowElements = ${testRowElements}; window.rlTestRows = ${testRows};`);
        await page.goto(url, { waitUntil: 'domcontentloaded', timeout: T.start });
        await until('the workbench with the explorer', () => document.querySelector('.monaco-workbench .explorer-folders-view .monaco-list-row'), undefined, T.start);
        await screenshot('workbench');
    });

    await step('the racelens problems and their related locations', async () => {
        await openFile('LatencyStats.java');
        await until('racelens warnings as squiggles', () => document.querySelectorAll('.monaco-editor .squiggly-warning').length >= 3, undefined, T.analysis);
        await page.keyboard.down('Control');
        await page.keyboard.down('Shift');
        await page.keyboard.press('KeyM');
        await page.keyboard.up('Shift');
        await page.keyboard.up('Control');
        const rows = await until(
            'the Problems panel with RL001 and its related locations',
            () => {
                const texts = [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((r) => r.textContent);
                // The source and code render as `racelensRL001` (the parentheses come from CSS).
                const warning = texts.some((t) => t.includes('`count` is updated in `LatencyStats.record()` without the lock `this`') && /racelens\(?RL001\)?\[Ln 22, Col 9\]/.test(t));
                return warning && texts.some((t) => t.includes('the read in `LatencyStats.count()` holds `this`')) ? texts : false;
            },
            undefined,
            T.analysis,
        );
        const problems = rows.filter((t) => /racelens\(?RL00\d\)?\[Ln \d+, Col \d+\]$/.test(t));
        if (problems.length !== 3) {
            throw new Error(`expected 3 racelens problems in LatencyStats.java, got ${problems.length}: ${JSON.stringify(rows)}`);
        }
        // The related locations follow their warning, each with its place.
        const at = rows.findIndex((t) => t.startsWith('`count` is updated'));
        const related = rows.slice(at + 1, at + 6);
        const expected = [
            'LatencyStats.java[Ln 30, Col 16]:the read in `LatencyStats.count()` holds `this`',
            'LatencyStats.java[Ln 42, Col 16]:the read in `LatencyStats.meanMicros()` holds `this`',
            'LatencyStats.java[Ln 42, Col 58]:the read in `LatencyStats.meanMicros()` holds `this`',
            'LatencyStats.java[Ln 47, Col 32]:the read in `LatencyStats.toString()` holds `this`',
            'LatencyStats.java[Ln 29, Col 5]:`this` is taken here',
        ];
        if (JSON.stringify(related) !== JSON.stringify(expected)) {
            throw new Error(`the related locations of the RL001 on count: ${JSON.stringify(related)}`);
        }
        await screenshot('problems');
    });

    await step('the hover on the field `count` gives its verdict', async () => {
        // The panel closed for room (Ctrl+J); the cursor on `count` in `return count;` (line
        // 30, no warning there to share the hover), then Show Hover (Ctrl+K Ctrl+I).
        await page.keyboard.down('Control');
        await page.keyboard.press('KeyJ');
        await page.keyboard.up('Control');
        await until('the panel closed', () => document.querySelector('.markers-panel')?.offsetParent === null || document.querySelector('.markers-panel') === null);
        await page.keyboard.down('Control');
        await page.keyboard.press('KeyG');
        await page.keyboard.up('Control');
        await until('the Go to Line box', () => document.querySelector('.quick-input-widget .quick-input-box input') === document.activeElement);
        await page.keyboard.type('30:18');
        await page.keyboard.press('Enter');
        await until('the cursor on line 30', () => document.querySelector('.statusbar [id="status.editor.selection"]')?.textContent.includes('Ln 30, Col 18'));
        await page.keyboard.down('Control');
        await page.keyboard.press('KeyK');
        await page.keyboard.press('KeyI');
        await page.keyboard.up('Control');
        // Markdown code spans render without their backticks.
        await until(
            'a hover with the verdict on `count`',
            () => [...document.querySelectorAll('.monaco-hover')].some((h) => h.offsetParent !== null && h.textContent.includes('Verdict: guarded by this in 3 of 4 accesses; record() updates it without the lock')),
            undefined,
            T.analysis,
        );
        await screenshot('hover');
        await page.keyboard.press('Escape');
    });

    await step('the ▶ Explore schedules lens; a click shows a progress notification with Cancel', async () => {
        await openFile(RENDER_TEST);
        await until('the ▶ Explore schedules lens', () => window.rlLensTitles().some((t) => t.startsWith('▶ Explore schedules')), undefined, T.analysis);
        await screenshot('explore-lens');
        await clickLens('^▶ Explore schedules');
        await until(
            'the exploration notification with schedules counted and a Cancel button',
            () =>
                window.rlToasts().some((t) => /racelens: exploring com\.renderfarm\.jobs\.RenderFarmTest#nodesRenderEveryDispatchedFrame/.test(t.text) && /\d+ schedules/.test(t.text) && t.buttons.includes('Cancel')),
            undefined,
            T.exploration,
        );
        await until('the ⏳ exploring… lens', () => window.rlLensTitles().some((t) => t.startsWith('⏳ exploring…')));
        await screenshot('exploring');
    });

    await step('Cancel in the notification stops the exploration', async () => {
        const running = await untilHere('the exploration\'s JVM under the language server', () => {
            const lsp = processes(`${path.sep}server${path.sep}racelens lsp`);
            return lsp.find((p) => p.children.some((c) => /\bjava\b/.test(c.args)));
        }, T.exploration);
        if (!running.args.includes(extensions)) {
            throw new Error(`the language server is not the bundled binary: ${running.args}`);
        }
        const cancel = await page.evaluateHandle(() => {
            const toast = [...document.querySelectorAll('.notifications-toasts .notification-toast')].find((t) => t.textContent.includes('RenderFarmTest'));
            return [...(toast?.querySelectorAll('.monaco-button') ?? [])].find((b) => b.textContent.trim() === 'Cancel') ?? null;
        });
        if (cancel.asElement() === null) {
            throw new Error('the Cancel button went away');
        }
        await cancel.asElement().click();
        // The server ends the exploration, the status bar says so (for 10 s) ...
        await until('the status bar saying the exploration was cancelled', () =>
            document.querySelector('.statusbar')?.textContent.includes('cancelled: racelens: exploring com.renderfarm.jobs.RenderFarmTest#nodesRenderEveryDispatchedFrame'),
        );
        // ... and the lenses: no ⏳ or Cancel lens, the ▶ lens back, no result.
        const lenses = await until(
            'the ▶ lens back without ⏳, Cancel or a result',
            () => {
                const titles = window.rlLensTitles();
                return titles.some((t) => t.startsWith('▶ Explore schedules')) && !titles.some((t) => /^(⏳|Cancel$|✓|✗)/.test(t)) && titles;
            },
            undefined,
            T.ui,
        );
        await until('the notification gone', () => !window.rlToasts().some((t) => t.text.includes('RenderFarmTest')));
        await untilHere('the exploration\'s JVM gone', () => processes(running.args).every((p) => !p.children.some((c) => /\bjava\b/.test(c.args))), T.ui);
        await screenshot('cancelled');
        console.log(`   lenses after Cancel: ${JSON.stringify(lenses)}`);
    });

    await step('exploring LatencyStatsTest ends at the ✗ lens', async () => {
        await openFile(LATENCY_TEST);
        await until('the ▶ Explore schedules lens', () => window.rlLensTitles().some((t) => t.startsWith('▶ Explore schedules')), undefined, T.analysis);
        await clickLens('^▶ Explore schedules');
        const titles = await until('the ✗ lens', () => window.rlLensTitles().some((t) => t.startsWith('✗ ')) && window.rlLensTitles(), undefined, T.exploration);
        const failed = titles.find((t) => t.startsWith('✗ '));
        // The lens ends with what produced the result: the default heuristic here.
        if (!/^✗ AssertionError after \d+ schedules? \(\d+ preemptions?\) · pct\+LA$/.test(failed)) {
            throw new Error(`unexpected ✗ lens: ${failed}`);
        }
        for (const title of ['Show schedule', 'Replay', 'Copy', 'Step through']) {
            if (!titles.includes(title)) {
                throw new Error(`no ${title} lens: ${JSON.stringify(titles)}`);
            }
        }
        console.log(`   ${failed}`);
        await screenshot('failed');
    });

    await step('Show schedule opens the swimlane page', async () => {
        await clickLens('^Show schedule$');
        await until('the schedule panel', () => [...document.querySelectorAll('.tabs-container .tab')].some((t) => t.getAttribute('aria-label')?.startsWith('Schedule: LatencyStatsTest.concurrentRecordsAreAllCounted')));
        // The page lives in the webview's inner frame.
        const frame = await frameWith('the swimlane page in a webview frame', 'svg g.row.failure');
        const texts = await frame.evaluate(() => [...document.querySelectorAll('svg text')].map((t) => t.textContent));
        for (const thread of ['T0 (main)', 'T1 (Thread-0)', 'T2 (Thread-1)']) {
            if (!texts.includes(thread)) {
                throw new Error(`no column for ${thread} in the page: ${JSON.stringify(texts.slice(0, 20))}`);
            }
        }
        const preemptions = await frame.evaluate(() => document.querySelectorAll('svg g.row.preemption').length);
        if (preemptions < 1) {
            throw new Error('no preemption row in the page');
        }
        await screenshot('schedule');
    });

    await step('Step through walks the schedule in the editor, forwards, to a preemption and back', async () => {
        const frame = await frameWith('the Step through button in the page', 'button[data-action="step"]');
        await frame.click('button[data-action="step"]');
        const at = async (what, pattern) => {
            const seen = await until(what, (source) => {
                const item = [...document.querySelectorAll('.statusbar-item')].map((e) => e.textContent).find((t) => t.includes('racelens: step '));
                const line = /Ln (\d+)/.exec(document.querySelector('.statusbar [id="status.editor.selection"]')?.textContent ?? '')?.[1];
                const tab = document.querySelector('.tabs-container .tab.active')?.getAttribute('aria-label') ?? '';
                // The running thread's line: the cursor's, with a whole-line decoration of ours.
                const lit = [...document.querySelectorAll('.monaco-editor.focused .view-overlays > div')].some((d) => d.querySelector('.current-line') && d.querySelector('[class*="ced-"]'));
                return item !== undefined && new RegExp(source).test(item) && line !== undefined && lit && { item, line: Number(line), tab };
            }, pattern);
            console.log(`   ${seen.tab.split(',')[0]}:${seen.line} ${seen.item}`);
            return seen;
        };
        const first = await at('step 1 shown', 'racelens: step 1/\\d+ · T0 \\(main\\): ');
        if (!first.tab.startsWith(LATENCY_TEST)) {
            throw new Error(`step 1 is not in the test: ${first.tab}`);
        }
        // Each other thread's line names it and says what it did, value included.
        await page.keyboard.down('Alt');
        await page.keyboard.press('BracketRight');
        await page.keyboard.up('Alt');
        await at('step 2 shown', 'racelens: step 2/\\d+ · T\\d \\(');
        await page.keyboard.down('Alt');
        await page.keyboard.down('Shift');
        await page.keyboard.press('BracketRight');
        await page.keyboard.up('Shift');
        await page.keyboard.up('Alt');
        const preempted = await at('the first preemption', 'racelens: step \\d+/\\d+ · T\\d \\(Thread-\\d\\): ⇄ preempted');
        if (!preempted.tab.startsWith('LatencyStats.java')) {
            throw new Error(`the preemption is not in the code under test: ${preempted.tab}`);
        }
        await screenshot('stepping-preemption');
        // The step after: the other thread runs there, and the preempted one's line keeps
        // its name and what it did, the value included.
        await page.keyboard.down('Alt');
        await page.keyboard.press('BracketRight');
        await page.keyboard.up('Alt');
        const after = await at('the step after the preemption', 'racelens: step \\d+/\\d+ · T\\d \\(Thread-\\d\\): (read|write) ');
        const marks = await until('the other thread\'s mark', () => {
            const rules = [...document.querySelectorAll('style')].flatMap((s) => [...(s.sheet?.cssRules ?? [])].map((r) => r.cssText)).filter((t) => t.includes('::after') && /T\d \(/.test(t));
            return rules.some((m) => /content: "◀ T\d \(Thread-\d\): (read|write) LatencyStats\.count (=|:=) \d/.test(m)) && rules;
        });
        console.log(`   marks: ${marks.map((m) => /content: (".*")/.exec(m)?.[1]).join(' | ')}`);
        await screenshot('stepping');
        const n = Number(/step (\d+)\//.exec(after.item)?.[1]);
        await page.keyboard.down('Alt');
        await page.keyboard.press('BracketLeft');
        await page.keyboard.press('BracketLeft');
        await page.keyboard.up('Alt');
        const back = await at('two steps back', `racelens: step ${n - 2}/`);
        if (/⇄ preempted/.test(back.item)) {
            throw new Error(`not before the preemption: ${back.item}`);
        }
        await page.keyboard.press('Escape');
        await until('the stepper stopped', () => ![...document.querySelectorAll('.statusbar-item')].some((e) => e.textContent.includes('racelens: step ')));
    });

    await step('the Testing view explores LatencyStatsTest to its failure, with the message at its line', async () => {
        await openFile(LATENCY_TEST);
        await command('Testing: Focus on Test Explorer View');
        // The tests the change selects, by their tag: only LatencyStatsTest's.
        await filterTests('@racelens:selected');
        const shown = await until('the selected test alone in the Testing view', () => {
            const labels = window.rlTestRows().map((r) => r.label);
            return labels.some((l) => l.startsWith('concurrentRecordsAreAllCounted')) && !labels.some((l) => l.startsWith('RenderFarmTest') || l.startsWith('nodesRender')) && labels;
        }, undefined, T.analysis);
        console.log(`   @racelens:selected: ${JSON.stringify(shown)}`);
        await screenshot('testing-view');
        await runFromTestingView('concurrentRecordsAreAllCounted');
        await until('the test running or queued', (label) => window.rlTestRows().some((r) => r.label.startsWith(label) && /testing-(queued|loading|running)|codicon-loading/.test(r.icons)), 'concurrentRecordsAreAllCounted', T.exploration);
        await until('the test failed', (label) => window.rlTestRows().some((r) => r.label.startsWith(label) && r.icons.includes('testing-failed-icon')), 'concurrentRecordsAreAllCounted', T.exploration);
        // The failure's message in the editor, beside the assertion that raised it.
        const message = await until('the failure message in the editor beside the assertion', () => {
            // The test-error content widget: `.inner > .content` with the message.
            const widget = [...document.querySelectorAll('.monaco-editor .inner > .content')].find((w) => w.getClientRects().length > 0 && w.textContent.includes('java.lang.AssertionError'));
            // (Spaces render as no-break spaces.)
            const line = [...document.querySelectorAll('.monaco-editor .view-line')].find((l) => l.textContent.replace(/\u00a0/g, ' ').includes('assertEquals(4, stats.count());'));
            if (widget === undefined || line === undefined) {
                return false;
            }
            const [w, l] = [widget.getBoundingClientRect(), line.getBoundingClientRect()];
            return Math.abs(w.top + w.height / 2 - (l.top + l.height / 2)) < l.height && widget.textContent;
        }, undefined, T.ui);
        await screenshot('testing-failed');
        console.log(`   ${message.slice(0, 160)}`);
        // The preemptions as the message's stack frames (VS Code 1.93+), in the peek the
        // message opens.
        await page.evaluate(() => document.querySelector('.monaco-editor .test-error-content-widget .inner')?.click());
        // The frame shows the preempted line of LatencyStats.java (`count++;`, which no
        // message text has) under the message.
        const frames = await until('the preemptions as stack frames in the peek', () => {
            const peek = [...document.querySelectorAll('.peekview-widget')].map((e) => e.textContent.replace(/\u00a0/g, ' ')).join(' ');
            return peek.includes('⇄ T') && peek.includes('LatencyStats.java') && peek.includes('count++;') && peek;
        }, undefined, T.ui);
        console.log(`   peek: ${frames.slice(0, 200)}`);
        await screenshot('testing-peek');
        await page.keyboard.press('Escape');
    });

    await step('cancelling a run in the Testing view stops its exploration', async () => {
        await filterTests('nodesRender');
        await until('RenderFarmTest\'s test in the Testing view', () => window.rlTestRows().some((r) => r.label.startsWith('nodesRenderEveryDispatchedFrame')), undefined, T.analysis);
        await runFromTestingView('nodesRenderEveryDispatchedFrame');
        const running = await untilHere('the exploration\'s JVM under the language server', () => {
            const lsp = processes(`${path.sep}server${path.sep}racelens lsp`);
            return lsp.find((p) => p.children.some((c) => /\bjava\b/.test(c.args)));
        }, T.exploration);
        // The Testing view's own stop button (in its title while a run goes on).
        const stop = await until('the Testing view\'s Cancel Test Run button', () => {
            const pane = document.querySelector('.testing-filter-wrapper')?.closest('.pane-composite-part, .part.sidebar');
            const button = [...(pane?.querySelectorAll('.action-label') ?? [])].find((a) => a.className.includes('codicon-testing-cancel-icon') || /^Cancel Test Run/.test(a.getAttribute('aria-label') ?? ''));
            return button?.getAttribute('aria-label') ?? false;
        });
        const stopButton = await page.evaluateHandle((label) => {
            const pane = document.querySelector('.testing-filter-wrapper')?.closest('.pane-composite-part, .part.sidebar');
            return [...(pane?.querySelectorAll('.action-label') ?? [])].find((a) => a.getAttribute('aria-label') === label) ?? null;
        }, stop);
        await stopButton.asElement().click();
        await untilHere('the exploration\'s JVM gone', () => processes(running.args).every((p) => !p.children.some((c) => /\bjava\b/.test(c.args))), T.ui);
        await until('the test skipped in the view', (label) => window.rlTestRows().some((r) => r.label.startsWith(label) && r.icons.includes('testing-skipped-icon')), 'nodesRenderEveryDispatchedFrame', T.ui);
        await screenshot('testing-cancelled');
    });
}

let failed = false;
try {
    await main();
    console.log(`racelens e2e: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
    failed = true;
    console.error(`racelens e2e: FAILED at step "${current}": ${error.stack ?? error}`);
    await screenshot('failure').catch(() => {});
    // What the workbench showed, for the places the steps look at.
    const seen = await page
        ?.evaluate(() => ({
            problems: [...document.querySelectorAll('.markers-panel .monaco-list-row')].map((r) => r.textContent),
            lenses: window.rlLensTitles?.(),
            notifications: window.rlToasts?.(),
            hovers: [...document.querySelectorAll('.monaco-hover')].map((h) => h.textContent),
            statusBar: document.querySelector('.statusbar')?.textContent,
            tabs: [...document.querySelectorAll('.tabs-container .tab')].map((t) => t.getAttribute('aria-label')),
            quickOpen: [...document.querySelectorAll('.quick-input-list .monaco-list-row')].map((r) => `${r.classList.contains('focused') ? '> ' : ''}${r.getAttribute('aria-label')}`),
            // Where the editor shows a test's failure.
            failures: [...document.querySelectorAll('.monaco-editor *')].filter((e) => e.children.length === 0 && e.textContent.includes('AssertionError')).map((e) => `${e.parentElement?.parentElement?.className} > ${e.parentElement?.className} > ${e.className}`),
            // The Testing view's rows, with the classes of their view and their icons.
            testing: [...document.querySelectorAll('.monaco-list-row')]
                .filter((r) => r.closest('.quick-input-widget') === null && r.closest('.explorer-folders-view') === null && r.closest('.markers-panel') === null)
                .map((r) => `${r.textContent} | ${r.getAttribute('aria-label')} | ${r.getAttribute('aria-expanded')} | ${[...r.querySelectorAll('[class*="codicon-"]')].map((i) => i.className).join(' ')}`),
        }))
        .catch((e) => ({ error: String(e) }));
    fs.writeFileSync(path.join(out, 'failure.json'), JSON.stringify(seen, null, 1));
} finally {
    await browser?.close().catch(() => {});
    if (server?.pid !== undefined && server.exitCode === null) {
        try {
            process.kill(-server.pid, 'SIGTERM');
        } catch {
            // Gone already.
        }
        await untilHere('code-server to end', () => processes(tmp).length === 0, 10_000).catch(() => {
            try {
                process.kill(-server.pid, 'SIGKILL');
            } catch {
                // Gone already.
            }
        });
    }
    if (failed || keep) {
        console.error(`racelens e2e: kept ${tmp} (screenshots in ${out}, code-server's log in ${path.join(out, 'code-server.log')})`);
    } else {
        for (const entry of fs.readdirSync(tmp)) {
            if (entry !== 'out') {
                fs.rmSync(path.join(tmp, entry), { recursive: true, force: true });
            }
        }
    }
}
process.exit(failed ? 1 : 0);
