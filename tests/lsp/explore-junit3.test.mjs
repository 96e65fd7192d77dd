// End-to-end test of a JUnit 3 test in the editor: a `TestCase`'s `public void test*()`
// method that starts threads gets the `▶ Explore schedules` lens, and a click explores it
// on a real JVM (each execution a fresh TestCase through runBare(): setUp, the test,
// tearDown). The fixture explore-junit3: the change splits `IdBlockAllocator.nextBlock()`
// into two critical sections, and two writers get the same block of ids.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Session, assertServerBuilt, makeRepository } from './session.mjs';

const FIXTURE = 'explore-junit3';
const TEST_FILE = 'src/test/java/org/example/ids/IdBlockAllocatorTest.java';
const TEST = 'org.example.ids.IdBlockAllocatorTest#testConcurrentWritersGetDisjointBlocks';
/** A JVM starts in a second or two; this exploration needs a handful of schedules. */
const EXPLORATION_MS = 120_000;
const SEVERITY_ERROR = 1;

const titleOf = (lens) => lens.command?.title ?? '';
const isExploreLens = (lens) => lens.command?.command === 'racelens.exploreTest' && titleOf(lens).startsWith('▶ Explore schedules');
const isExplorationToken = (token) => typeof token === 'string' && token.startsWith('racelens/explore/');

/** The 0-based line of the first line of the test file that contains `text`. */
function lineOf(session, text) {
    const index = fs.readFileSync(session.file(TEST_FILE), 'utf8').split('\n').findIndex((l) => l.includes(text));
    assert.ok(index >= 0, `${text} is not in ${TEST_FILE}`);
    return index;
}

describe('racelens lsp: exploring a JUnit 3 test', () => {
    let session;

    before(async () => {
        assertServerBuilt();
        session = new Session(makeRepository(FIXTURE, { change: true }));
        await session.initialize();
    });

    after(async () => {
        await session?.dispose();
    });

    test('the test*() method that starts threads gets the ▶ lens; setUp and the single-threaded tests do not', async () => {
        await session.open(TEST_FILE);
        const lenses = await session.waitForLenses(TEST_FILE, (all) => all.some(isExploreLens) && all, '▶ Explore schedules');
        const explore = lenses.filter(isExploreLens);
        assert.deepEqual(explore.map((l) => l.range.start.line), [lineOf(session, 'public void testConcurrentWritersGetDisjointBlocks')], JSON.stringify(lenses.map(titleOf)));
    });

    test('a click explores it: the split critical section fails where the test asserts', { timeout: EXPLORATION_MS }, async () => {
        const lens = (await session.codeLenses(TEST_FILE)).find(isExploreLens);
        assert.deepEqual(await session.execute(lens.command), { queued: true, test: TEST });
        const begin = await session.waitFor(
            'a $/progress begin for a racelens/explore/ token',
            () => session.progress.find((p) => isExplorationToken(p.token) && p.value.kind === 'begin'),
            EXPLORATION_MS,
        );
        const end = await session.waitForProgressEnd(begin.token, EXPLORATION_MS);
        assert.match(end.message, /^✗ AssertionFailedError after \d+ schedules?$/);
        const failed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => titleOf(l).startsWith('✗ ')), '✗ …', EXPLORATION_MS);
        assert.match(titleOf(failed), /^✗ AssertionFailedError after \d+ schedules? \(\d+ preemptions?\)$/);
        const isRl200 = (d) => d.code === 'RL200';
        const published = await session.waitForDiagnostics(TEST_FILE, (ds) => ds.some(isRl200), 'RL200', 0, EXPLORATION_MS);
        const diagnostic = published.diagnostics.find(isRl200);
        assert.equal(diagnostic.severity, SEVERITY_ERROR, JSON.stringify(diagnostic));
        assert.equal(diagnostic.range.start.line, lineOf(session, 'assertFalse('), JSON.stringify(diagnostic));
        assert.ok(diagnostic.message.startsWith(`${TEST}: `), JSON.stringify(diagnostic));
        assert.match(diagnostic.message, /writers got overlapping blocks/);
    });
});
