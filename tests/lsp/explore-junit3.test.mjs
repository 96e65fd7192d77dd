// End-to-end test of a JUnit 3 test in the editor: a `TestCase`'s `public void test*()`
// method that starts threads gets the `▶ Explore schedules` lens, and a click explores it
// on a real JVM (each execution a fresh TestCase through runBare(): setUp, the test,
// tearDown). The fixture explore-junit3: the change splits `IdBlockAllocator.nextBlock()`
// into two critical sections, and two writers get the same block of ids.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isExploreLens, startSession, titleOf } from './session.mjs';

const FIXTURE = 'explore-junit3';
const TEST_FILE = 'src/test/java/org/example/ids/IdBlockAllocatorTest.java';
const TEST = 'org.example.ids.IdBlockAllocatorTest#testConcurrentWritersGetDisjointBlocks';
/** A JVM starts in a second or two; this exploration needs a handful of schedules. */
const EXPLORATION_MS = 120_000;
const SEVERITY_ERROR = 1;

describe('racelens lsp: exploring a JUnit 3 test', () => {
    let session;

    before(async () => {
        session = await startSession(FIXTURE);
    });

    after(async () => {
        await session?.dispose();
    });

    test('the test*() method that starts threads gets the ▶ lens; setUp and the single-threaded tests do not', async () => {
        await session.open(TEST_FILE);
        const lenses = await session.waitForLenses(TEST_FILE, (all) => all.some(isExploreLens) && all, '▶ Explore schedules');
        const explore = lenses.filter(isExploreLens);
        assert.deepEqual(explore.map((l) => l.range.start.line), [session.lineOf(TEST_FILE, 'public void testConcurrentWritersGetDisjointBlocks')], JSON.stringify(lenses.map(titleOf)));
    });

    test('a click explores it: the split critical section fails where the test asserts', { timeout: EXPLORATION_MS }, async () => {
        const end = await session.explore(TEST_FILE, TEST, EXPLORATION_MS);
        assert.match(end.message, /^✗ AssertionFailedError after \d+ schedules?$/);
        const failed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => titleOf(l).startsWith('✗ ')), '✗ …', EXPLORATION_MS);
        assert.match(titleOf(failed), /^✗ AssertionFailedError after \d+ schedules? \(\d+ preemptions?\) · pct\+LA$/);
        const diagnostic = await session.waitForRl200(TEST_FILE, EXPLORATION_MS);
        assert.equal(diagnostic.severity, SEVERITY_ERROR, JSON.stringify(diagnostic));
        assert.equal(diagnostic.range.start.line, session.lineOf(TEST_FILE, 'assertFalse('), JSON.stringify(diagnostic));
        assert.ok(diagnostic.message.startsWith(`${TEST}: `), JSON.stringify(diagnostic));
        assert.match(diagnostic.message, /writers got overlapping blocks/);
    });
});
