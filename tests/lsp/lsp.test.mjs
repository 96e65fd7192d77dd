// End-to-end test of `racelens lsp` over stdio, through vscode-languageserver-protocol,
// the protocol library vscode-languageclient is built on.
//
// Each suite copies the object-pool fixture into a temporary git repository (the base
// committed, the change applied to the working tree), starts the server on it and speaks
// to it as VS Code would. RACELENS_BIN names the binary (default: target/debug/racelens).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
    createProtocolConnection,
    StreamMessageReader,
    StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.resolve(here, '../fixtures/object-pool');
const serverBin = path.resolve(here, process.env.RACELENS_BIN ?? '../../target/debug/racelens');

const POOL = 'src/main/java/org/example/pool/ObjectPool.java';
const POOL_TEST = 'src/test/java/org/example/pool/ObjectPoolTest.java';
/** 0-based line of `if (numActive + numIdle >= maxTotal) {` in ObjectPool.java. */
const CHECK_LINE = 57;

const DIAGNOSTICS_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT_MS = 5_000;

// LSP constants, spelled out so that the test reads like the protocol.
const SEVERITY_WARNING = 2;
const TEXT_DOCUMENT_SYNC_INCREMENTAL = 2;

/** Makes the fixture's git repository: base committed, change.patch in the working tree. */
function makeRepository() {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'racelens-lsp-')));
    fs.cpSync(path.join(fixture, 'base'), dir, { recursive: true });
    const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'base');
    git('apply', path.join(fixture, 'change.patch'));
    return dir;
}

function withTimeout(promise, ms, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Same file? Compares file URIs by path, so that encoding details do not matter. */
function sameFile(uri, file) {
    try {
        return fileURLToPath(uri) === file;
    } catch {
        return false;
    }
}

/** The plain text of a hover's contents (MarkupContent, MarkedString or an array of them). */
function hoverText(hover) {
    const contents = hover?.contents;
    const one = (c) => (typeof c === 'string' ? c : (c?.value ?? ''));
    return Array.isArray(contents) ? contents.map(one).join('\n') : one(contents);
}

/**
 * A racelens server under test and the client side of its connection: answers the
 * server's requests as VS Code does, records what it publishes.
 */
class Session {
    constructor(root) {
        this.root = root;
        this.stderr = '';
        this.log = [];
        /** Every publishDiagnostics, in arrival order: { uri, version, diagnostics }. */
        this.published = [];
        this.waiters = new Set();
        this.codeLensRefreshes = 0;
        this.exited = new Promise((resolve) => {
            this.proc = spawn(serverBin, ['lsp'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
            this.proc.on('exit', (code, signal) => {
                this.exitStatus = { code, signal };
                resolve({ code, signal });
            });
            this.proc.on('error', (error) => resolve({ code: null, signal: null, error }));
        });
        this.proc.stderr.setEncoding('utf8');
        this.proc.stderr.on('data', (chunk) => {
            this.stderr += chunk;
        });
        // Writing to a server that died must fail the test, not crash the runner.
        this.proc.stdin.on('error', (error) => this.log.push(`stdin: ${error.message}`));

        const conn = createProtocolConnection(
            new StreamMessageReader(this.proc.stdout),
            new StreamMessageWriter(this.proc.stdin),
        );
        this.conn = conn;
        conn.onRequest('workspace/configuration', (params) => params.items.map(() => ({})));
        conn.onRequest('window/workDoneProgress/create', () => null);
        conn.onRequest('client/registerCapability', () => null);
        conn.onRequest('client/unregisterCapability', () => null);
        conn.onRequest('workspace/codeLens/refresh', () => {
            this.codeLensRefreshes++;
            this.wakeWaiters();
            return null;
        });
        conn.onRequest((method) => {
            this.log.push(`unexpected request ${method}`);
            return null;
        });
        conn.onNotification('textDocument/publishDiagnostics', (params) => {
            this.published.push(params);
            this.wakeWaiters();
        });
        conn.onNotification('racelens/codeLensRefresh', () => {
            this.codeLensRefreshes++;
            this.wakeWaiters();
        });
        conn.onNotification('window/logMessage', (params) => this.log.push(`log: ${params.message}`));
        conn.onNotification('window/showMessage', (params) => this.log.push(`show: ${params.message}`));
        conn.onNotification(() => {});
        conn.onError(([error]) => this.log.push(`connection error: ${error?.message ?? error}`));
        conn.listen();
    }

    wakeWaiters() {
        for (const wake of this.waiters) {
            wake();
        }
    }

    /** Resolves at the next event (publish, refresh) or after `ms`. */
    nextEvent(ms) {
        return new Promise((resolve) => {
            const wake = () => {
                clearTimeout(timer);
                this.waiters.delete(wake);
                resolve();
            };
            const timer = setTimeout(wake, ms);
            this.waiters.add(wake);
        });
    }

    uri(relative) {
        return pathToFileURL(path.join(this.root, relative)).href;
    }

    file(relative) {
        return path.join(this.root, relative);
    }

    /** What the server said, for assertion messages. */
    context() {
        const stderr = this.stderr.trim().split('\n').slice(-30).join('\n');
        const published = this.published
            .map((p) => `  ${p.uri} v${p.version ?? '-'}: ${JSON.stringify(p.diagnostics.map((d) => [d.code, d.range.start.line, d.message]))}`)
            .join('\n');
        const status = this.exitStatus ? `exited with code ${this.exitStatus.code}, signal ${this.exitStatus.signal}` : 'running';
        return `\n--- server ${serverBin} lsp: ${status}\n--- publishDiagnostics so far:\n${published || '  (none)'}\n--- log:\n  ${this.log.join('\n  ') || '(none)'}\n--- server stderr (last lines):\n${stderr || '(empty)'}`;
    }

    async request(method, params) {
        try {
            // No params at all for `shutdown` (as vscode-languageclient sends it), not `null`.
            const sent = params === undefined ? this.conn.sendRequest(method) : this.conn.sendRequest(method, params);
            return await withTimeout(sent, REQUEST_TIMEOUT_MS, method);
        } catch (error) {
            // Give the server a moment to finish dying, so that its last words are shown.
            await withTimeout(this.exited, 500, 'exit').catch(() => {});
            throw new Error(`${method} failed: ${error.message}${this.context()}`);
        }
    }

    async initialize() {
        const rootUri = pathToFileURL(this.root).href;
        const result = await this.request('initialize', {
            processId: process.pid,
            clientInfo: { name: 'racelens-lsp-test', version: '0.0.0' },
            rootUri,
            rootPath: this.root,
            workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
            capabilities: {
                general: { positionEncodings: ['utf-16'] },
                textDocument: {
                    synchronization: { didSave: true, dynamicRegistration: false },
                    publishDiagnostics: {
                        relatedInformation: true,
                        versionSupport: true,
                        codeDescriptionSupport: true,
                        tagSupport: { valueSet: [1, 2] },
                    },
                    hover: { contentFormat: ['markdown', 'plaintext'] },
                    codeLens: { dynamicRegistration: false },
                },
                workspace: {
                    configuration: true,
                    workspaceFolders: true,
                    didChangeConfiguration: { dynamicRegistration: true },
                    codeLens: { refreshSupport: true },
                    executeCommand: { dynamicRegistration: false },
                },
                window: { workDoneProgress: true },
            },
            initializationOptions: {},
        });
        await this.notify('initialized', {});
        return result;
    }

    async notify(method, params) {
        try {
            await (params === undefined ? this.conn.sendNotification(method) : this.conn.sendNotification(method, params));
        } catch (error) {
            await withTimeout(this.exited, 500, 'exit').catch(() => {});
            throw new Error(`${method} failed: ${error.message}${this.context()}`);
        }
    }

    async open(relative) {
        const text = fs.readFileSync(this.file(relative), 'utf8');
        await this.notify('textDocument/didOpen', {
            textDocument: { uri: this.uri(relative), languageId: 'java', version: 1, text },
        });
        return text;
    }

    /**
     * Waits for a publishDiagnostics for `relative`, at index `from` or later, whose
     * diagnostics satisfy `predicate`; returns it.
     */
    async waitForDiagnostics(relative, predicate, what, from = 0) {
        const file = this.file(relative);
        const deadline = Date.now() + DIAGNOSTICS_TIMEOUT_MS;
        for (;;) {
            const hit = this.published.slice(from).find((p) => sameFile(p.uri, file) && predicate(p.diagnostics));
            if (hit !== undefined) {
                return hit;
            }
            const left = deadline - Date.now();
            if (left <= 0) {
                assert.fail(`no publishDiagnostics for ${relative} with ${what} within ${DIAGNOSTICS_TIMEOUT_MS} ms${this.context()}`);
            }
            await this.nextEvent(left);
        }
    }

    /** The last publishDiagnostics for `relative`. */
    latest(relative) {
        const file = this.file(relative);
        return this.published.filter((p) => sameFile(p.uri, file)).at(-1);
    }

    /** Ends the server for good and removes the repository (after hooks; never throws). */
    async dispose() {
        try {
            this.conn.dispose();
        } catch {
            // already closed
        }
        if (this.proc.exitCode === null && this.proc.signalCode === null) {
            this.proc.kill('SIGKILL');
        }
        await withTimeout(this.exited, 5_000, 'server kill').catch(() => {});
        fs.rmSync(this.root, { recursive: true, force: true });
    }
}

const isRl001OnCheckLine = (d) => d.code === 'RL001' && d.range?.start?.line === CHECK_LINE && /numActive/.test(d.message);

describe('racelens lsp: diagnostics, hover, code lens, shutdown', () => {
    let session;

    before(async () => {
        assert.ok(fs.existsSync(serverBin), `no server binary at ${serverBin} (build it: cargo build -p racelens, or set RACELENS_BIN)`);
        session = new Session(makeRepository());
    });

    after(async () => {
        await session?.dispose();
    });

    test('initialize advertises incremental sync, hover, code lens and racelens.exploreTest', async () => {
        const result = await session.initialize();
        const caps = result.capabilities;
        const sync = typeof caps.textDocumentSync === 'number' ? caps.textDocumentSync : caps.textDocumentSync?.change;
        assert.equal(sync, TEXT_DOCUMENT_SYNC_INCREMENTAL, `textDocumentSync: ${JSON.stringify(caps.textDocumentSync)}`);
        assert.ok(caps.hoverProvider, 'hoverProvider');
        assert.ok(caps.codeLensProvider, 'codeLensProvider');
        assert.ok(
            caps.executeCommandProvider?.commands?.includes('racelens.exploreTest'),
            `executeCommandProvider: ${JSON.stringify(caps.executeCommandProvider)}`,
        );
    });

    test('publishes RL001 for the read of numActive the change left without the lock', async () => {
        await session.open(POOL);
        const published = await session.waitForDiagnostics(POOL, (ds) => ds.some(isRl001OnCheckLine), `RL001 on line ${CHECK_LINE}`);
        const diagnostic = published.diagnostics.find(isRl001OnCheckLine);
        const show = JSON.stringify(diagnostic, null, 1);
        assert.equal(diagnostic.source, 'racelens', show);
        assert.equal(diagnostic.severity, SEVERITY_WARNING, show);
        assert.equal(diagnostic.range.start.line, CHECK_LINE, show);
        assert.match(diagnostic.message, /numActive/, show);
        assert.match(diagnostic.message, /synchronized/, show);
        const related = diagnostic.relatedInformation ?? [];
        assert.ok(related.length > 0, `no relatedInformation: ${show}`);
        const poolFile = session.file(POOL);
        assert.ok(related.some((r) => sameFile(r.location.uri, poolFile)), `relatedInformation outside ${POOL}: ${show}`);
    });

    test('hover on numActive lists the locked write in borrowObject', async () => {
        const text = fs.readFileSync(session.file(POOL), 'utf8');
        const line = text.split('\n')[CHECK_LINE];
        assert.match(line, /if \(numActive \+ numIdle >= maxTotal\) \{/, `line ${CHECK_LINE} is not the check`);
        const character = line.indexOf('numActive') + 2;
        const hover = await session.request('textDocument/hover', {
            textDocument: { uri: session.uri(POOL) },
            position: { line: CHECK_LINE, character },
        });
        assert.ok(hover, `no hover at ${CHECK_LINE}:${character}${session.context()}`);
        const markdown = hoverText(hover);
        assert.match(markdown, /numActive/, markdown);
        assert.match(markdown, /borrowObject/, markdown);
    });

    test('code lens on the test method runs racelens.exploreTest', async () => {
        await session.open(POOL_TEST);
        const params = { textDocument: { uri: session.uri(POOL_TEST) } };
        const wanted = (lens) =>
            lens.command?.command === 'racelens.exploreTest' &&
            lens.command.arguments?.some(
                (a) => a?.class === 'org.example.pool.ObjectPoolTest' && a?.method === 'addWhileBorrowingKeepsCountsConsistent',
            );
        // The lenses may only come once the workspace is indexed: ask again after each
        // refresh (as VS Code does) or every half second, for up to 20 s.
        const deadline = Date.now() + REQUEST_TIMEOUT_MS;
        let lenses = [];
        for (;;) {
            lenses = (await session.request('textDocument/codeLens', params)) ?? [];
            lenses = await Promise.all(
                lenses.map((lens) => (lens.command === undefined ? session.request('codeLens/resolve', lens) : lens)),
            );
            if (lenses.some(wanted) || Date.now() > deadline) {
                break;
            }
            await session.nextEvent(500);
        }
        const lens = lenses.find(wanted);
        assert.ok(lens, `no racelens.exploreTest lens for addWhileBorrowingKeepsCountsConsistent: ${JSON.stringify(lenses, null, 1)}${session.context()}`);
        assert.ok(lens.command.title.startsWith('▶ Explore schedules'), `title: ${lens.command.title}`);
        const arg = lens.command.arguments.find((a) => a?.method === 'addWhileBorrowingKeepsCountsConsistent');
        assert.ok(typeof arg.uri === 'string' && sameFile(arg.uri, session.file(POOL_TEST)), `argument uri: ${JSON.stringify(arg)}`);
    });

    test('goes quiet when nothing changes (no re-publishing loop)', async () => {
        // Give late work (indexing, the second didOpen) a moment, then listen: an idle
        // server sends nothing. A loop here costs CPU and makes editors redraw.
        await sleep(1000);
        const start = session.published.length;
        await sleep(2000);
        const extra = session.published.slice(start);
        assert.ok(
            extra.length <= 1,
            `${extra.length} publishDiagnostics in 2 s with no change: ` +
                JSON.stringify(extra.map((p) => [path.basename(fileURLToPath(p.uri)), p.version, p.diagnostics.length])),
        );
    });

    test('shutdown then exit ends the server with status 0', async () => {
        const result = await session.request('shutdown');
        assert.equal(result ?? null, null);
        await session.notify('exit');
        const exit = await withTimeout(session.exited, EXIT_TIMEOUT_MS, `server exit after "exit"${session.context()}`);
        assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, session.context());
    });
});

describe('racelens lsp: an incremental edit clears the warning', () => {
    let session;

    before(async () => {
        assert.ok(fs.existsSync(serverBin), `no server binary at ${serverBin} (build it: cargo build -p racelens, or set RACELENS_BIN)`);
        session = new Session(makeRepository());
        await session.initialize();
    });

    after(async () => {
        await session?.dispose();
    });

    test('re-adding synchronized to addObject() removes RL001', async () => {
        const text = await session.open(POOL);
        await session.waitForDiagnostics(POOL, (ds) => ds.some(isRl001OnCheckLine), `RL001 on line ${CHECK_LINE}`);

        // Insert `synchronized ` before `void addObject()`: a zero-width range, UTF-16
        // positions (the line is ASCII).
        const lines = text.split('\n');
        const line = lines.findIndex((l) => l.includes('public void addObject()'));
        assert.notEqual(line, -1, 'addObject() not found');
        const character = lines[line].indexOf('void addObject()');
        const seen = session.published.length;
        await session.notify('textDocument/didChange', {
            textDocument: { uri: session.uri(POOL), version: 2 },
            contentChanges: [
                {
                    range: { start: { line, character }, end: { line, character } },
                    text: 'synchronized ',
                },
            ],
        });

        const noRl001 = (ds) => !ds.some((d) => d.code === 'RL001');
        const cleared = await session.waitForDiagnostics(POOL, noRl001, 'no RL001 after the edit', seen);
        if (cleared.version !== undefined && cleared.version !== null) {
            assert.equal(cleared.version, 2, `publishDiagnostics version ${cleared.version}`);
        }
        // Nothing stale may come after it: the last word for the file has no RL001.
        await sleep(1000);
        const latest = session.latest(POOL);
        assert.ok(noRl001(latest.diagnostics), `RL001 came back after the edit${session.context()}`);
    });
});
