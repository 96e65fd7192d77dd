// What the end-to-end tests of `racelens lsp` share: a fixture made into a git repository,
// a Session that starts the server on it and speaks to it as VS Code does, through
// vscode-languageserver-protocol (the protocol library vscode-languageclient is built
// on). A Session answers the server's requests (configuration, progress creation, lens
// refresh, showDocument) and records what the server sends, so that tests wait for events
// rather than sleep. RACELENS_BIN names the binary (default: target/debug/racelens). Also what
// the exploration tests ask of it: the ▶ lens, the exploration's progress, its RL200 error.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
    createProtocolConnection,
    StreamMessageReader,
    StreamMessageWriter,
} from 'vscode-languageserver-protocol/node';
import { commitFixture } from './repository.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const serverBin = path.resolve(here, process.env.RACELENS_BIN ?? '../../target/debug/racelens');

export const WAIT_TIMEOUT_MS = 20_000;
const REQUEST_TIMEOUT_MS = 20_000;
/** Without an event, lenses are asked for again this often (the server may refresh them later). */
const LENS_POLL_MS = 500;

/**
 * Compiled classes and exploration results of the test repositories go to a cache of
 * this test run, not the user's (`~/.cache/racelens`).
 */
const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'racelens-lsp-cache-'));
process.on('exit', () => fs.rmSync(cacheHome, { recursive: true, force: true }));

/** Fails the suite early when the server has not been built. */
export function assertServerBuilt() {
    assert.ok(fs.existsSync(serverBin), `no server binary at ${serverBin} (build it: cargo build -p racelens, or set RACELENS_BIN)`);
}

/**
 * Makes a fixture's git repository in a temporary folder: `base/` committed, and
 * `change.patch` applied to the working tree unless `change` is false.
 */
export function makeRepository(name, options) {
    return commitFixture(name, fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'racelens-lsp-'))), options);
}

export function withTimeout(promise, ms, what) {
    let timer;
    const timeout = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A lens's title ('' before it is resolved). */
export const titleOf = (lens) => lens.command?.title ?? '';
/** The `▶ Explore schedules` lens of a test. */
export const isExploreLens = (lens) => lens.command?.command === 'racelens.exploreTest' && titleOf(lens).startsWith('▶ Explore schedules');
/** The work-done progress token of an exploration. */
export const isExplorationToken = (token) => typeof token === 'string' && token.startsWith('racelens/explore/');
/** The error an exploration's failure leaves where it was raised. */
export const isRl200 = (diagnostic) => diagnostic.code === 'RL200';

/** Same file? Compares file URIs by path, so that encoding details do not matter. */
export function sameFile(uri, file) {
    try {
        return fileURLToPath(uri) === file;
    } catch {
        return false;
    }
}

/** Starts a server on the fixture `name` (see makeRepository) and initializes it. */
export async function startSession(name, { change = true, settings } = {}) {
    assertServerBuilt();
    const session = new Session(makeRepository(name, { change }), { settings });
    await session.initialize();
    return session;
}

/**
 * A racelens server under test and the client side of its connection.
 * `settings` is the `racelens` section (initializationOptions and workspace/configuration).
 */
export class Session {
    constructor(root, { settings = {} } = {}) {
        this.root = root;
        this.settings = settings;
        this.stderr = '';
        this.log = [];
        /** Every publishDiagnostics, in arrival order: { uri, version, diagnostics }. */
        this.published = [];
        /** Every $/progress, in arrival order: { token, value }. */
        this.progress = [];
        /** Tokens of window/workDoneProgress/create. */
        this.createdTokens = [];
        /** window/showMessage params, in arrival order. */
        this.messages = [];
        /** URIs of window/showDocument requests. */
        this.shownDocuments = [];
        this.waiters = new Set();
        this.codeLensRefreshes = 0;
        this.exited = new Promise((resolve) => {
            this.proc = spawn(serverBin, ['lsp'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, XDG_CACHE_HOME: cacheHome } });
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
        this.answerRequests(conn);
        this.recordNotifications(conn);
        conn.onError(([error]) => this.log.push(`connection error: ${error?.message ?? error}`));
        conn.listen();
    }

    /** Answers the server's requests as VS Code does, recording the interesting ones. */
    answerRequests(conn) {
        conn.onRequest('workspace/configuration', (params) => params.items.map((item) => (item.section === 'racelens' ? this.settings : {})));
        conn.onRequest('window/workDoneProgress/create', (params) => {
            this.createdTokens.push(params.token);
            return null;
        });
        conn.onRequest('client/registerCapability', () => null);
        conn.onRequest('client/unregisterCapability', () => null);
        conn.onRequest('workspace/codeLens/refresh', () => {
            this.codeLensRefreshes++;
            this.wakeWaiters();
            return null;
        });
        conn.onRequest('window/showDocument', (params) => {
            this.shownDocuments.push(params.uri);
            this.wakeWaiters();
            return { success: true };
        });
        conn.onRequest((method) => {
            this.log.push(`unexpected request ${method}`);
            return null;
        });
    }

    recordNotifications(conn) {
        const record = (list) => (params) => {
            list.push(params);
            this.wakeWaiters();
        };
        conn.onNotification('textDocument/publishDiagnostics', record(this.published));
        conn.onNotification('$/progress', record(this.progress));
        conn.onNotification('window/showMessage', (params) => {
            this.log.push(`show: ${params.message}`);
            record(this.messages)(params);
        });
        conn.onNotification('racelens/codeLensRefresh', () => {
            this.codeLensRefreshes++;
            this.wakeWaiters();
        });
        conn.onNotification('window/logMessage', (params) => this.log.push(`log: ${params.message}`));
        conn.onNotification(() => {});
    }

    wakeWaiters() {
        for (const wake of this.waiters) {
            wake();
        }
    }

    /** Resolves at the next event (publish, refresh, progress, message) or after `ms`. */
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

    /**
     * Waits until `check()` (which may be async) returns something truthy, trying again at
     * each event or at least every `pollMs`; returns it. Fails with `what` after `ms`.
     */
    async waitFor(what, check, ms = WAIT_TIMEOUT_MS, pollMs = ms) {
        const deadline = Date.now() + ms;
        for (;;) {
            const value = await check();
            if (value) {
                return value;
            }
            const left = deadline - Date.now();
            if (left <= 0) {
                assert.fail(`no ${what} within ${ms} ms${this.context()}`);
            }
            await this.nextEvent(Math.min(left, pollMs));
        }
    }

    uri(relative) {
        return pathToFileURL(path.join(this.root, relative)).href;
    }

    file(relative) {
        return path.join(this.root, relative);
    }

    /** The 0-based line of the first line of `relative` that contains `text`. */
    lineOf(relative, text) {
        const index = fs.readFileSync(this.file(relative), 'utf8').split('\n').findIndex((l) => l.includes(text));
        assert.ok(index >= 0, `${text} is not in ${relative}`);
        return index;
    }

    /** What the server said, for assertion messages. */
    context() {
        const stderr = this.stderr.trim().split('\n').slice(-30).join('\n');
        const published = this.published
            .map((p) => `  ${p.uri} v${p.version ?? '-'}: ${JSON.stringify(p.diagnostics.map((d) => [d.code, d.range.start.line, d.message]))}`)
            .join('\n');
        const progress = this.progress.map((p) => `  ${p.token} ${JSON.stringify(p.value)}`).join('\n');
        const status = this.exitStatus ? `exited with code ${this.exitStatus.code}, signal ${this.exitStatus.signal}` : 'running';
        return (
            `\n--- server ${serverBin} lsp: ${status}\n--- publishDiagnostics so far:\n${published || '  (none)'}` +
            `\n--- $/progress so far:\n${progress || '  (none)'}` +
            `\n--- log:\n  ${this.log.join('\n  ') || '(none)'}\n--- server stderr (last lines):\n${stderr || '(empty)'}`
        );
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
                window: { workDoneProgress: true, showDocument: { support: true } },
            },
            initializationOptions: this.settings,
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
    waitForDiagnostics(relative, predicate, what, from = 0, ms = WAIT_TIMEOUT_MS) {
        const file = this.file(relative);
        const hit = () => this.published.slice(from).find((p) => sameFile(p.uri, file) && predicate(p.diagnostics));
        return this.waitFor(`publishDiagnostics for ${relative} with ${what}`, hit, ms);
    }

    /** The last publishDiagnostics for `relative`. */
    latest(relative) {
        const file = this.file(relative);
        return this.published.filter((p) => sameFile(p.uri, file)).at(-1);
    }

    /** The code lenses of an open file, resolved. */
    async codeLenses(relative) {
        const lenses = (await this.request('textDocument/codeLens', { textDocument: { uri: this.uri(relative) } })) ?? [];
        return Promise.all(lenses.map((lens) => (lens.command === undefined ? this.request('codeLens/resolve', lens) : lens)));
    }

    /**
     * Asks for the lenses of `relative` again after each refresh (as VS Code does), or
     * every half second, until `pick(lenses)` returns something; returns it.
     */
    async waitForLenses(relative, pick, what, ms = WAIT_TIMEOUT_MS) {
        let last = [];
        const check = async () => {
            last = await this.codeLenses(relative);
            return pick(last);
        };
        try {
            return await this.waitFor(`code lens ${what} in ${relative}`, check, ms, LENS_POLL_MS);
        } catch (error) {
            error.message += `\n--- last lenses of ${relative}:\n${JSON.stringify(last.map((l) => [l.range.start.line, l.command]), null, 1)}`;
            throw error;
        }
    }

    /** Runs a command (a lens's) as the editor does: workspace/executeCommand. */
    execute(command) {
        return this.request('workspace/executeCommand', { command: command.command, arguments: command.arguments ?? [] });
    }

    /** The $/progress values of `token`, in order. */
    progressOf(token) {
        return this.progress.filter((p) => p.token === token).map((p) => p.value);
    }

    /** Waits for the `end` of the progress `token`; returns its value. */
    waitForProgressEnd(token, ms) {
        return this.waitFor(`end of the progress ${token}`, () => this.progressOf(token).find((v) => v.kind === 'end'), ms);
    }

    /** Waits for the `begin` of an exploration's progress; returns that $/progress ({ token, value }). */
    waitForExplorationBegin(ms) {
        return this.waitFor(
            'a $/progress begin for a racelens/explore/ token',
            () => this.progress.find((p) => isExplorationToken(p.token) && p.value.kind === 'begin'),
            ms,
        );
    }

    /** Clicks the ▶ lens of `test` in `relative` (open) and waits for its exploration to end; returns the end's value. */
    async explore(relative, test, ms) {
        const lens = (await this.codeLenses(relative)).find(isExploreLens);
        assert.deepEqual(await this.execute(lens.command), { queued: true, test });
        const begin = await this.waitForExplorationBegin(ms);
        return this.waitForProgressEnd(begin.token, ms);
    }

    /** Waits for the RL200 error of a failure in `relative`; returns it. */
    async waitForRl200(relative, ms) {
        const published = await this.waitForDiagnostics(relative, (ds) => ds.some(isRl200), 'RL200', 0, ms);
        return published.diagnostics.find(isRl200);
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
        // A process the server started (a JVM, javac) may still hold the server's pipes
        // open; they must not keep this test file's process alive.
        for (const stream of [this.proc.stdin, this.proc.stdout, this.proc.stderr]) {
            stream?.destroy();
        }
        fs.rmSync(this.root, { recursive: true, force: true });
    }
}
