// End-to-end test of a test whose work runs on a ForkJoinPool's workers: the analysis counts a
// test that invokes fork/join tasks as one that starts threads (the `▶ Explore schedules`
// lens), a click explores it with the pool's workers under racelens' scheduler, and the
// schedule document names the worker threads as the JDK does. The fixture
// explore-forkjoin-histogram: the change drops `synchronized` from the merge of two slices'
// counts, and two workers lose an update to one bucket.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isExploreLens, startSession, titleOf } from './session.mjs';

const FIXTURE = 'explore-forkjoin-histogram';
const TEST_FILE = 'src/test/java/org/example/stats/HistogramTest.java';
const TEST = 'org.example.stats.HistogramTest#parallelCountsMatchTheValues';
/** A JVM starts in a second or two; this exploration needs a handful of schedules. */
const EXPLORATION_MS = 120_000;

describe('racelens lsp: exploring a test whose work runs on fork/join workers', () => {
    let session;

    before(async () => {
        session = await startSession(FIXTURE);
    });

    after(async () => {
        await session?.dispose();
    });

    test('the test that invokes fork/join tasks gets the ▶ lens', async () => {
        await session.open(TEST_FILE);
        const lenses = await session.waitForLenses(TEST_FILE, (all) => all.some(isExploreLens) && all, '▶ Explore schedules');
        const explore = lenses.filter(isExploreLens);
        assert.deepEqual(explore.map((l) => l.range.start.line), [session.lineOf(TEST_FILE, 'public void parallelCountsMatchTheValues')], JSON.stringify(lenses.map(titleOf)));
    });

    test('a click explores it: two workers lose an update, and the schedule names them', { timeout: EXPLORATION_MS }, async () => {
        const end = await session.explore(TEST_FILE, TEST, EXPLORATION_MS);
        assert.match(end.message, /^✗ AssertionError after \d+ schedules?$/);
        const failed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => titleOf(l).startsWith('✗ ')), '✗ …', EXPLORATION_MS);
        assert.match(titleOf(failed), /^✗ AssertionError after \d+ schedules? \(\d+ preemptions?\) · pct\+LA$/);
        const diagnostic = await session.waitForRl200(TEST_FILE, EXPLORATION_MS);
        assert.ok(diagnostic.message.startsWith(`${TEST}: `), JSON.stringify(diagnostic));
        // Show schedule: the per-thread table, a column per pool worker.
        const shown = await session.execute(failed.command);
        const document = await session.request('racelens/document', { uri: shown.uri });
        assert.match(document.text, /ForkJoinPool-\d+-worker-\d+/, document.text);
    });
});
