// End-to-end test of a claim that leaves something out: parallel streams run sequentially
// under racelens (their own interleavings are not explored), and the editor says so next to
// the ✓. The fixture explore-jdk-threads (no change): AsyncTest's parallel-stream test has
// three parallel streams, one in a second thread.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isExploreLens, startSession, titleOf } from './session.mjs';

const FIXTURE = 'explore-jdk-threads';
const TEST_FILE = 'src/test/java/org/example/jdk/AsyncTest.java';
const TEST = 'org.example.jdk.AsyncTest#parallelStreamsRunInTheCallingThread';
/** A JVM starts in a second or two; every schedule of this test is a few dozen runs. */
const EXPLORATION_MS = 120_000;

describe('racelens lsp: a test with parallel streams', () => {
    let session;

    before(async () => {
        session = await startSession(FIXTURE, { change: false });
    });

    after(async () => {
        await session?.dispose();
    });

    test('the ✓ lens says that its parallel streams ran sequentially', { timeout: EXPLORATION_MS }, async () => {
        await session.open(TEST_FILE);
        const line = session.lineOf(TEST_FILE, 'public void parallelStreamsRunInTheCallingThread');
        const lenses = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => isExploreLens(l) && l.range.start.line === line), '▶ on the parallel-stream test');
        assert.deepEqual(await session.execute(lenses.command), { queued: true, test: TEST });
        const begin = await session.waitForExplorationBegin(EXPLORATION_MS);
        const end = await session.waitForProgressEnd(begin.token, EXPLORATION_MS);
        assert.match(end.message, /^✓ no failure: every schedule explored \(\d+ classes, \d+ runs\); 3 parallel streams ran sequentially, their own interleavings not explored$/);
        const passed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => l.range.start.line === line && titleOf(l).startsWith('✓ ')), '✓ …', EXPLORATION_MS);
        assert.match(titleOf(passed), /^✓ no failure: every schedule explored \(\d+ classes, \d+ runs\); 3 parallel streams run sequentially/);
    });
});
