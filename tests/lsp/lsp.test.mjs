// End-to-end test of `racelens lsp` over stdio, through vscode-languageserver-protocol,
// the protocol library vscode-languageclient is built on.
//
// Each suite copies the object-pool fixture into a temporary git repository (the base
// committed, the change applied to the working tree), starts the server on it and speaks
// to it as VS Code would (session.mjs). RACELENS_BIN names the binary (default:
// target/debug/racelens). Explorations have their own file: explore.test.mjs.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Session, assertServerBuilt, makeRepository, sameFile, sleep, withTimeout } from './session.mjs';

const POOL = 'src/main/java/org/example/pool/ObjectPool.java';
const POOL_TEST = 'src/test/java/org/example/pool/ObjectPoolTest.java';
/** 0-based line of `if (numActive + numIdle >= maxTotal) {` in ObjectPool.java. */
const CHECK_LINE = 57;

const EXIT_TIMEOUT_MS = 5_000;
/** Starting the JVM of an exploration, or noticing that it was cancelled. */
const EXPLORATION_MS = 120_000;

// LSP constants, spelled out so that the test reads like the protocol.
const SEVERITY_WARNING = 2;
const TEXT_DOCUMENT_SYNC_INCREMENTAL = 2;

/** The plain text of a hover's contents (MarkupContent, MarkedString or an array of them). */
function hoverText(hover) {
    const contents = hover?.contents;
    const one = (c) => (typeof c === 'string' ? c : (c?.value ?? ''));
    return Array.isArray(contents) ? contents.map(one).join('\n') : one(contents);
}

const isRl001OnCheckLine = (d) => d.code === 'RL001' && d.range?.start?.line === CHECK_LINE && /numActive/.test(d.message);

describe('racelens lsp: diagnostics, hover, code lens, shutdown', () => {
    let session;

    before(async () => {
        assertServerBuilt();
        session = new Session(makeRepository('object-pool'));
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

    test('code lens on the test method runs racelens.exploreTest; its Cancel lens cancels it', { timeout: 2 * EXPLORATION_MS }, async () => {
        await session.open(POOL_TEST);
        const isExplore = (lens) =>
            lens.command?.command === 'racelens.exploreTest' &&
            lens.command.arguments?.some(
                (a) => a?.class === 'org.example.pool.ObjectPoolTest' && a?.method === 'addWhileBorrowingKeepsCountsConsistent',
            );
        // The lenses may only come once the workspace is indexed.
        const lens = await session.waitForLenses(POOL_TEST, (lenses) => lenses.find(isExplore), 'racelens.exploreTest for addWhileBorrowingKeepsCountsConsistent');
        assert.ok(lens.command.title.startsWith('▶ Explore schedules'), `title: ${lens.command.title}`);
        const arg = lens.command.arguments.find((a) => a?.method === 'addWhileBorrowingKeepsCountsConsistent');
        assert.ok(typeof arg.uri === 'string' && sameFile(arg.uri, session.file(POOL_TEST)), `argument uri: ${JSON.stringify(arg)}`);

        // Running it queues a real exploration (a JVM): cancel it with the lens that replaces
        // it, and wait for its end, so that nothing runs on behind the next tests.
        const test = 'org.example.pool.ObjectPoolTest#addWhileBorrowingKeepsCountsConsistent';
        assert.deepEqual(await session.execute(lens.command), { queued: true, test });
        const cancel = await session.waitForLenses(POOL_TEST, (lenses) => lenses.find((l) => l.command?.title === 'Cancel'), 'Cancel');
        assert.equal(cancel.command.command, 'racelens.cancel');
        assert.deepEqual(cancel.command.arguments, [{ root: session.root, test }]);
        const begin = await session.waitFor('the progress of the exploration', () => session.progress.find((p) => p.token.startsWith('racelens/explore/')));
        // 0 when it ended first (the dedicated cancel test runs a long exploration).
        const { cancelled } = await session.execute(cancel.command);
        assert.ok(cancelled === 0 || cancelled === 1, `cancelled: ${cancelled}`);
        await session.waitForProgressEnd(begin.token, EXPLORATION_MS);
        // The ▶ lens comes back, or the result if the exploration found the failure (here on its
        // first schedule) before the cancel arrived.
        const settled = (lenses) => lenses.some((l) => isExplore(l) || l.command?.title?.startsWith('✗ ')) && !lenses.some((l) => l.command?.title === 'Cancel');
        await session.waitForLenses(POOL_TEST, settled, '▶ or ✗ back without Cancel');
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
        assertServerBuilt();
        session = new Session(makeRepository('object-pool'));
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
