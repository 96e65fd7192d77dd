// End-to-end test of explorations in the editor, through the protocol as VS Code speaks
// it (session.mjs): clicking the `▶ Explore schedules` lens of a test runs it on a real
// JVM under racelens' scheduler, with a cancellable work-done progress; a failing
// schedule comes back as lenses (on the test, and `⇄` where it preempted a thread), an
// RL200 diagnostic, a schedule document and a replay.
//
// The fixture explore-lost-update: `LatencyStats.record()` is synchronized in the
// committed version; the change removes `synchronized`, and two threads recording at
// once lose an update, which the test's assertEquals sees.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Session, assertServerBuilt, makeRepository, sameFile } from './session.mjs';

const FIXTURE = 'explore-lost-update';
const TEST_FILE = 'src/test/java/org/example/metrics/LatencyStatsTest.java';
const STATS_FILE = 'src/main/java/org/example/metrics/LatencyStats.java';
const TEST = 'org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted';
/** 0-based line of the assertEquals that fails when an update is lost. */
// The assertions of the test (0-based lines): the schedule found may break any of them.
const ASSERT_LINES = [22, 23, 24];

/** A JVM starts in a second or two, and these explorations take seconds: generous, not slow. */
const EXPLORATION_MS = 120_000;
const SEVERITY_ERROR = 1;

const titleOf = (lens) => lens.command?.title ?? '';
const withTitle = (lenses, title) => lenses.find((lens) => titleOf(lens) === title);
const exploreLens = (lenses) => lenses.find((lens) => lens.command?.command === 'racelens.exploreTest' && titleOf(lens).startsWith('▶ Explore schedules'));
const isExplorationToken = (token) => typeof token === 'string' && token.startsWith('racelens/explore/');

/** Starts a server on the fixture (the change applied or not) and initializes it. */
async function startSession(options = {}) {
    assertServerBuilt();
    const session = new Session(makeRepository(options.fixture ?? FIXTURE, { change: options.change ?? true }), { settings: options.settings });
    await session.initialize();
    return session;
}

/** Opens the test, clicks its ▶ lens, and waits for the exploration's progress to begin; returns its token. */
async function startExploration(session, { file = TEST_FILE, test = TEST } = {}) {
    await session.open(file);
    const lens = await session.waitForLenses(file, exploreLens, '▶ Explore schedules');
    assert.deepEqual(await session.execute(lens.command), { queued: true, test });
    const begin = await session.waitFor(
        'a $/progress begin for a racelens/explore/ token',
        () => session.progress.find((p) => isExplorationToken(p.token) && p.value.kind === 'begin'),
        EXPLORATION_MS,
    );
    assert.ok(session.createdTokens.includes(begin.token), `the progress ${begin.token} was not created first: ${JSON.stringify(session.createdTokens)}`);
    assert.equal(begin.value.title, `racelens: exploring ${test}`);
    assert.equal(begin.value.cancellable, true, JSON.stringify(begin.value));
    return begin.token;
}

/** Every `report` of a progress says how far the exploration is. */
function assertReports(session, token) {
    for (const value of session.progressOf(token).filter((v) => v.kind === 'report')) {
        assert.match(value.message, /^\d+ schedules? · preemption bound \d+( · \d+\/s)?$/, JSON.stringify(value));
    }
}

describe('racelens lsp: exploring a change that loses updates', () => {
    let session;
    let token;
    /** The lenses on the test once the failure is known. */
    let lenses;

    before(async () => {
        session = await startSession();
    });

    after(async () => {
        await session?.dispose();
    });

    test('the ▶ lens queues an exploration whose progress begins and ends with the failure', { timeout: EXPLORATION_MS }, async () => {
        token = await startExploration(session);
        const end = await session.waitForProgressEnd(token, EXPLORATION_MS);
        assert.match(end.message, /^✗ AssertionError after \d+ schedules?$/);
        assertReports(session, token);
        await session.waitFor('a message about the failure', () => session.messages.find((m) => m.message.startsWith(`racelens: ${TEST}: ✗`)));
    });

    test('the test gets the ✗ lens, with Show schedule, Replay, a client-side Copy and ↻ Explore again', { timeout: EXPLORATION_MS }, async () => {
        const failed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => titleOf(l).startsWith('✗ ')), '✗ …', EXPLORATION_MS);
        assert.match(titleOf(failed), /^✗ AssertionError after \d+ schedules? \(\d+ preemptions?\) · pct\+LA$/);
        lenses = await session.codeLenses(TEST_FILE);
        const id = { root: session.root, test: TEST };
        assert.equal(failed.command.command, 'racelens.showSchedule');
        assert.deepEqual(withTitle(lenses, 'Show schedule')?.command, { title: 'Show schedule', command: 'racelens.showSchedule', arguments: [id] });
        const replay = withTitle(lenses, 'Replay')?.command;
        assert.equal(replay?.command, 'racelens.replay');
        assert.match(replay.arguments[0].schedule, /^\S+$/);
        const copy = withTitle(lenses, 'Copy')?.command;
        assert.equal(copy?.command, 'racelens.copySchedule');
        assert.equal(copy.arguments[0].text, `racelens replay ${session.root} --test ${TEST} --schedule ${replay.arguments[0].schedule}`);
        assert.equal(exploreLens(lenses), undefined, 'the result takes the place of the ▶ lens');
        const again = withTitle(lenses, '↻ Explore again')?.command;
        assert.equal(again?.command, 'racelens.exploreTest', 'a failure can be explored again');
        assert.equal(again.arguments[0].again, true);
    });

    test('⇄ lenses mark where the failing schedule preempted a thread', { timeout: EXPLORATION_MS }, async () => {
        await session.open(STATS_FILE);
        const preempted = (all) => all.filter((l) => titleOf(l).startsWith('⇄ '));
        const inStats = await session.codeLenses(STATS_FILE);
        const all = [...preempted(lenses), ...preempted(inStats)];
        assert.ok(all.length > 0, `no ⇄ lens in ${TEST_FILE} or ${STATS_FILE}: ${JSON.stringify([...lenses, ...inStats].map(titleOf))}`);
        for (const lens of all) {
            assert.match(titleOf(lens), /^⇄ T\d+ preempted here before T\d+ \S/);
            assert.equal(lens.command.command, 'racelens.showSchedule');
        }
    });

    test('an RL200 error where the failure was raised, with the preemption points as related information', { timeout: EXPLORATION_MS }, async () => {
        const isRl200 = (d) => d.code === 'RL200';
        const published = await session.waitForDiagnostics(TEST_FILE, (ds) => ds.some(isRl200), 'RL200', 0, EXPLORATION_MS);
        const diagnostic = published.diagnostics.find(isRl200);
        const show = JSON.stringify(diagnostic, null, 1);
        assert.equal(diagnostic.severity, SEVERITY_ERROR, show);
        assert.equal(diagnostic.source, 'racelens', show);
        assert.ok(ASSERT_LINES.includes(diagnostic.range.start.line), show);
        assert.ok(diagnostic.message.startsWith(`${TEST}: `), show);
        assert.equal(diagnostic.codeDescription?.href, 'racelens:/codes/RL200', show);
        const related = diagnostic.relatedInformation ?? [];
        assert.ok(related.length > 0, `no relatedInformation: ${show}`);
        for (const r of related) {
            assert.match(r.message, /^⇄ /, show);
            assert.ok(sameFile(r.location.uri, session.file(STATS_FILE)) || sameFile(r.location.uri, session.file(TEST_FILE)), show);
        }
    });

    test('Show schedule shows a racelens:/schedule/ document with the threads\' table and the replay command', async () => {
        const result = await session.execute(withTitle(lenses, 'Show schedule').command);
        assert.match(result?.uri ?? '', /^racelens:\/schedule\/[0-9a-f]+-\d+\/LatencyStatsTest\.concurrentRecordsAreAllCounted\.md$/, JSON.stringify(result));
        await session.waitFor(`window/showDocument of ${result.uri}`, () => session.shownDocuments.includes(result.uri));
        const document = await session.request('racelens/document', { uri: result.uri });
        assert.equal(document.languageId, 'markdown');
        assert.ok(document.text.startsWith(`# ${TEST}: `), document.text);
        assert.match(document.text, /^\| T0 \(main\) +\| T1 \(Thread-0\) +\| T2 \(Thread-1\) +\|$/m, document.text);
        assert.ok(document.text.includes(withTitle(lenses, 'Copy').command.arguments[0].text), `the replay command of the Copy lens:\n${document.text}`);
    });

    test('Replay runs the schedule again: it still fails', { timeout: EXPLORATION_MS }, async () => {
        assert.deepEqual(await session.execute(withTitle(lenses, 'Replay').command), { queued: true });
        const prefix = `racelens: replay of ${TEST}: `;
        const said = await session.waitFor('the replay\'s message', () => session.messages.find((m) => m.message.startsWith(prefix)), EXPLORATION_MS);
        assert.match(said.message.slice(prefix.length), /^still fails: .*AssertionError/);
    });
});

describe('racelens lsp: exploring the correct version', () => {
    let session;

    before(async () => {
        session = await startSession({ change: false });
    });

    after(async () => {
        await session?.dispose();
    });

    test('no failure: the ✓ lens says what was covered, with the classes and runs behind it', { timeout: EXPLORATION_MS }, async () => {
        const token = await startExploration(session);
        const end = await session.waitForProgressEnd(token, EXPLORATION_MS);
        const claim = '(every schedule|all schedules up to \\d+ preemptions?) explored \\(\\d+ class(es)?, \\d+ runs?\\)';
        assert.match(end.message, new RegExp(`^✓ no failure: ${claim}$`));
        assertReports(session, token);
        const passed = await session.waitForLenses(TEST_FILE, (all) => all.find((l) => titleOf(l).startsWith('✓ ')), '✓ …');
        const brief = '(every schedule explored|bound \\d+ complete) \\(\\d+ class(es)?, \\d+ runs?\\)';
        assert.match(titleOf(passed), new RegExp(`^✓ no failure: ${brief} · \\d+ impacted points? covered · pct\\+LA$`));
        const lenses = await session.codeLenses(TEST_FILE);
        assert.deepEqual(lenses.filter((l) => /^(✗|⇄|⏳)/.test(titleOf(l))).map(titleOf), []);
        assert.ok(!session.published.some((p) => p.diagnostics.some((d) => d.code === 'RL200')), 'an RL200 without a failure');
    });
});

describe('racelens lsp: cancelling an exploration from its progress', () => {
    let session;
    // Three threads that wait on one monitor and wake each other (a project of the CAPP
    // bench): tens of thousands of classes of schedules, which only the cancel ends.
    const file = 'src/test/java/com/renderfarm/jobs/RenderFarmTest.java';
    const name = 'com.renderfarm.jobs.RenderFarmTest#nodesRenderEveryDispatchedFrame';

    before(async () => {
        const settings = { explore: { bound: 10, maxSchedules: 1_000_000_000 } };
        session = await startSession({ fixture: '../bench/capp/render-queue-if-wait', change: false, settings });
    });

    after(async () => {
        await session?.dispose();
    });

    test('window/workDoneProgress/cancel stops it; the ▶ lens comes back, and no result', { timeout: EXPLORATION_MS }, async () => {
        const token = await startExploration(session, { file, test: name });
        // Running: schedules counted in the progress and on the test's lens.
        await session.waitFor('a progress report', () => session.progressOf(token).find((v) => v.kind === 'report'), EXPLORATION_MS);
        assertReports(session, token);
        const running = await session.waitForLenses(file, (all) => all.find((l) => titleOf(l).startsWith('⏳ exploring…')), '⏳ exploring…');
        assert.equal(running.command.command, 'racelens.cancel');
        assert.deepEqual(withTitle(await session.codeLenses(file), 'Cancel')?.command.arguments, [{ root: session.root, test: name }]);

        await session.notify('window/workDoneProgress/cancel', { token });
        const end = await session.waitForProgressEnd(token, EXPLORATION_MS);
        assert.equal(end.message, 'cancelled');
        const lenses = await session.waitForLenses(file, (all) => !all.some((l) => titleOf(l).startsWith('⏳')) && all, 'without ⏳');
        assert.ok(exploreLens(lenses), JSON.stringify(lenses.map(titleOf)));
        assert.deepEqual(lenses.filter((l) => /^(✗|✓|⇄|…|!|Cancel)/.test(titleOf(l))).map(titleOf), []);
        assert.deepEqual(session.messages.filter((m) => m.type === 1), [], 'no error message');
    });
});
