// End-to-end test of a test whose second thread is a java.util.Timer's: the analysis counts a
// test that schedules a TimerTask as one that starts threads (the `▶ Explore schedules` lens),
// and a click explores it with the timer's thread under racelens' scheduler, in logical time,
// finding the failure a real timer thread would hide. The fixture explore-timer-refresh: the
// change makes the timer task refresh a shared rate table in place (clear, then fill), and a
// conversion on the test's thread finds a rate missing or mixes two tables.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isExploreLens, startSession, titleOf } from './session.mjs';

const FIXTURE = 'explore-timer-refresh';
const TEST_FILE = 'src/test/java/org/example/rates/RateTableTest.java';
const TABLE_FILE = 'src/main/java/org/example/rates/RateTable.java';
const TEST = 'org.example.rates.RateTableTest#aConversionDuringARefreshUsesOneTable';
/** A JVM starts in a second or two; this exploration needs a handful of schedules. */
const EXPLORATION_MS = 120_000;
const SEVERITY_ERROR = 1;

describe('racelens lsp: exploring a test whose second thread is a Timer', () => {
    let session;

    before(async () => {
        session = await startSession(FIXTURE);
    });

    after(async () => {
        await session?.dispose();
    });

    test('the test that schedules a TimerTask gets the ▶ lens', async () => {
        await session.open(TEST_FILE);
        const lenses = await session.waitForLenses(TEST_FILE, (all) => all.some(isExploreLens) && all, '▶ Explore schedules');
        const explore = lenses.filter(isExploreLens);
        assert.deepEqual(explore.map((l) => l.range.start.line), [session.lineOf(TEST_FILE, 'public void aConversionDuringARefreshUsesOneTable')], JSON.stringify(lenses.map(titleOf)));
    });

    test('a click explores it: the refresh on the timer thread breaks the conversion', { timeout: EXPLORATION_MS }, async () => {
        const end = await session.explore(TEST_FILE, TEST, EXPLORATION_MS);
        // a missing rate (IllegalArgumentException) or a mix of both tables (the assertion)
        assert.match(end.message, /^✗ (IllegalArgumentException|AssertionError) after \d+ schedules?$/);
        const failed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => titleOf(l).startsWith('✗ ')), '✗ …', EXPLORATION_MS);
        assert.match(titleOf(failed), /^✗ (IllegalArgumentException|AssertionError) after \d+ schedules? \(\d+ preemptions?\) · pct\+LA$/);
        // the RL200 error stands where the failure was raised: the missing rate in the table,
        // the mix of tables at the test's assertion
        const [file, text] = titleOf(failed).startsWith('✗ IllegalArgumentException') ? [TABLE_FILE, 'throw new IllegalArgumentException'] : [TEST_FILE, 'assertTrue('];
        const diagnostic = await session.waitForRl200(file, EXPLORATION_MS);
        const show = JSON.stringify(diagnostic);
        assert.equal(diagnostic.severity, SEVERITY_ERROR, show);
        assert.equal(diagnostic.range.start.line, session.lineOf(file, text), show);
        assert.ok(diagnostic.message.startsWith(`${TEST}: `), show);
        assert.match(diagnostic.message, /no rate for|100 GBP = /, show);
    });
});
