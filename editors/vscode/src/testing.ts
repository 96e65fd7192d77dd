// The racelens test controller: VS Code's Testing view lists the workspace's tests that start
// threads (the server's `racelens/testStates`, sent because this client declares
// `experimental.racelens.testStates`), grouped by class, with the tests the change selects
// tagged `selected` (filter `@racelens:selected`) and ranked (`#1 for this change`).
//
// Running one (profile "Explore schedules", or "… with a heuristic or seed" which asks)
// queues the same exploration as its lens (`racelens.exploreTest` with `again`); the view
// follows the server's states: enqueued, started with the schedules counted in its output,
// then the result. Only a ✓ (every schedule up to the bound ran under control) is "passed";
// a failure is "failed" with its headline and its preemptions' places at the line where it
// was raised; no failure without a claim (a budget's end) is "skipped", with
// the reason in the output; an exploration that could not run is "errored". Stopping the
// run cancels the explorations it queued. Explorations started elsewhere (a lens, on
// save) and results kept from earlier runs appear in the view too, and a result whose code
// changed is invalidated. A test's context menu has the lens's other actions: Show
// schedule, Step through, Replay, Copy.

import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import type { LanguageClient, StaticFeature } from 'vscode-languageclient/node';
import { pickHeuristicAndSeed } from './explore';
import { CLIENT_COMMANDS, SERVER_COMMANDS, TestStatesNotification, type Location, type SelectionStatus, type TestEntry, type TestStateKind, type TestStates } from './protocol';
import { racelensCapability } from './status';


export const testStatesFeature: StaticFeature = racelensCapability('testStates');

export const TESTING_COMMANDS = {
    show: 'racelens.testing.showSchedule',
    replay: 'racelens.testing.replay',
    copy: 'racelens.testing.copySchedule',
    step: 'racelens.testing.stepSchedule',
};

/** Whether an entry is waiting for or running an exploration. */
export function isBusy(state: TestStateKind): boolean {
    return state === 'queued' || state === 'running';
}

/** How a result shows in the Testing view. */
export function outcomeOf(entry: TestEntry): 'passed' | 'failed' | 'skipped' | 'errored' | undefined {
    switch (entry.state) {
        case 'passed':
            return 'passed';
        case 'failed':
            return 'failed';
        case 'unproven':
            return 'skipped';
        case 'errored':
            return 'errored';
        default:
            return undefined;
    }
}

/** `com.shop.CartTest` → [`CartTest`, `com.shop`]; a nested class keeps its `$` name. */
export function splitClass(binary: string): [string, string] {
    const dot = binary.lastIndexOf('.');
    return dot < 0 ? [binary, ''] : [binary.slice(dot + 1), binary.slice(0, dot)];
}

/** What a run waits for: one test it asked the server to explore. */
interface Pending {
    run: vscode.TestRun;
    item: vscode.TestItem;
    /** The number of the result the test had when the run asked (a new one ends it). */
    before: number | undefined;
    /** The server said queued or running since. */
    busy: boolean;
    lastMessage?: string;
    done: () => void;
}

export class RacelensTests implements vscode.Disposable {
    readonly controller: vscode.TestController;
    private readonly selectedTag = new vscode.TestTag('selected');
    /** The last entry of each test, by item id (`<root>::<test>`). */
    private readonly entries = new Map<string, { root: string; entry: TestEntry }>();
    private readonly pending = new Map<string, Pending>();
    private selection = new Map<string, number>();
    private readonly subscriptions: vscode.Disposable[] = [];

    constructor(private readonly client: () => Promise<LanguageClient | undefined>) {
        this.controller = vscode.tests.createTestController('racelens', 'racelens explorations');
        this.controller.createRunProfile('Explore schedules', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token, false), true);
        this.controller.createRunProfile('Explore schedules with a heuristic or seed…', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token, true), false);
        this.subscriptions.push(
            vscode.commands.registerCommand(TESTING_COMMANDS.show, (item?: vscode.TestItem) => this.onItem(item, SERVER_COMMANDS.showSchedule)),
            vscode.commands.registerCommand(TESTING_COMMANDS.replay, (item?: vscode.TestItem) => this.onItem(item, SERVER_COMMANDS.replay)),
            vscode.commands.registerCommand(TESTING_COMMANDS.step, async (item?: vscode.TestItem) => {
                const found = this.found(item);
                if (found !== undefined) {
                    await vscode.commands.executeCommand(CLIENT_COMMANDS.stepSchedule, { root: found.root, test: found.entry.test });
                }
            }),
            vscode.commands.registerCommand(TESTING_COMMANDS.copy, async (item?: vscode.TestItem) => {
                const found = this.found(item);
                if (found?.entry.replay !== undefined) {
                    await vscode.commands.executeCommand(CLIENT_COMMANDS.copySchedule, { text: found.entry.replay });
                }
            }),
        );
    }

    /** Listens on a (re)started client: the old server's explorations are gone. */
    attach(client: LanguageClient): void {
        for (const p of [...this.pending.values()]) {
            p.run.appendOutput('racelens: the language server restarted; the exploration ended with it\r\n', undefined, p.item);
            p.run.skipped(p.item);
            p.done();
        }
        client.onNotification(TestStatesNotification, (states) => {
            this.update(states);
        });
    }

    /** The change's selection (`racelens/selectionStatus`): tags and ranks the tests it selects. */
    select(status: SelectionStatus): void {
        this.selection = new Map(status.tests.map((t) => [t.test, t.rank]));
        for (const [id, { entry }] of this.entries) {
            const item = this.item(id);
            if (item !== undefined) {
                this.decorate(item, entry);
            }
        }
    }

    private item(id: string): vscode.TestItem | undefined {
        for (const [, cls] of this.controller.items) {
            const child = cls.children.get(id);
            if (child !== undefined) {
                return child;
            }
        }
        return undefined;
    }

    private found(item: vscode.TestItem | undefined): { root: string; entry: TestEntry } | undefined {
        const found = item === undefined ? undefined : this.entries.get(item.id);
        if (found === undefined) {
            void vscode.window.showWarningMessage('racelens: pick a test of the racelens tests in the Testing view');
        }
        return found;
    }

    private async onItem(item: vscode.TestItem | undefined, command: string): Promise<void> {
        const found = this.found(item);
        const client = await this.client();
        if (found === undefined || client === undefined) {
            return;
        }
        try {
            await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [{ root: found.root, test: found.entry.test }] });
        } catch (error) {
            void vscode.window.showErrorMessage(`racelens: ${error instanceof Error ? error.message : String(error)}`);
        }
    }

    private decorate(item: vscode.TestItem, entry: TestEntry): void {
        const rank = this.selection.get(entry.test);
        item.tags = rank === undefined ? [] : [this.selectedTag];
        const parts = [rank === undefined ? undefined : `#${rank} for this change`, entry.inherited ? 'inherited' : undefined, entry.state === 'stale' ? 'stale' : undefined];
        item.description = parts.filter((p) => p !== undefined).join(' · ') || undefined;
        item.sortText = rank === undefined ? `1 ${entry.range.start.line.toString().padStart(6, '0')}` : `0 ${rank.toString().padStart(6, '0')}`;
    }

    /** The server's list for a workspace: the items, then what their states say. */
    update(states: TestStates): void {
        const seen = new Set<string>();
        const byClass = new Map<string, vscode.TestItem>();
        for (const entry of states.tests) {
            const id = `${states.root}::${entry.test}`;
            seen.add(id);
            const classId = `${states.root}::${entry.explore.class}`;
            let cls = byClass.get(classId) ?? this.controller.items.get(classId);
            const uri = vscode.Uri.parse(entry.explore.uri ?? '');
            if (cls === undefined) {
                const [name, pkg] = splitClass(entry.explore.class);
                cls = this.controller.createTestItem(classId, name, uri);
                cls.description = pkg || undefined;
                this.controller.items.add(cls);
            }
            byClass.set(classId, cls);
            let item = cls.children.get(id);
            if (item === undefined) {
                item = this.controller.createTestItem(id, entry.inherited ? `${entry.explore.method}()` : entry.explore.method, uri);
                cls.children.add(item);
            }
            item.range = new vscode.Range(entry.range.start.line, entry.range.start.character, entry.range.end.line, entry.range.end.character);
            this.decorate(item, entry);
            const previous = this.entries.get(id)?.entry;
            this.entries.set(id, { root: states.root, entry });
            this.follow(item, entry, previous);
        }
        // Tests and classes of this workspace that are gone.
        for (const [classId, cls] of [...this.controller.items]) {
            if (!classId.startsWith(`${states.root}::`)) {
                continue;
            }
            for (const [id] of [...cls.children]) {
                if (!seen.has(id)) {
                    cls.children.delete(id);
                    this.entries.delete(id);
                }
            }
            if (cls.children.size === 0) {
                this.controller.items.delete(classId);
            }
        }
    }

    /** Reports what changed in an entry: to the run waiting for it, or in a run of its own. */
    private follow(item: vscode.TestItem, entry: TestEntry, previous: TestEntry | undefined): void {
        let waiting = this.pending.get(item.id);
        if (waiting === undefined && isBusy(entry.state) && !(previous !== undefined && isBusy(previous.state))) {
            // An exploration started elsewhere (a lens, on save): shown in a run of its own.
            const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), `racelens: ${entry.test}`, false);
            waiting = {
                run,
                item,
                before: previous?.result,
                busy: false,
                done: () => {
                    run.end();
                },
            };
            this.pending.set(item.id, waiting);
        }
        if (waiting !== undefined) {
            this.advance(waiting, entry);
            return;
        }
        if (entry.state === 'stale' && previous?.state !== 'stale') {
            this.controller.invalidateTestResults(item);
        } else if (outcomeOf(entry) !== undefined && (previous === undefined || previous.result !== entry.result || previous.state === 'stale')) {
            // A result kept from an earlier run of the server, one that came without a busy
            // state in between, or one fresh again: shown as it is. (A cancelled exploration
            // leaves the earlier result, with its number: nothing new to show.)
            const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), `racelens: ${entry.test}`, true);
            this.report(run, item, entry);
            run.end();
        }
    }

    private advance(p: Pending, entry: TestEntry): void {
        if (entry.state === 'queued') {
            p.busy = true;
            p.run.enqueued(p.item);
            return;
        }
        if (entry.state === 'running') {
            p.busy = true;
            p.run.started(p.item);
            if (entry.message !== undefined && entry.message !== p.lastMessage) {
                p.lastMessage = entry.message;
                p.run.appendOutput(`${entry.test}: ${entry.message}\r\n`, undefined, p.item);
            }
            return;
        }
        const fresh = entry.result !== undefined && entry.result !== p.before;
        if (!p.busy && !fresh) {
            // The server has not taken the request in yet.
            return;
        }
        if (fresh && outcomeOf(entry) !== undefined) {
            this.report(p.run, p.item, entry);
        } else {
            p.run.appendOutput(`${entry.test}: cancelled\r\n`, undefined, p.item);
            p.run.skipped(p.item);
        }
        this.pending.delete(p.item.id);
        p.done();
    }

    private report(run: vscode.TestRun, item: vscode.TestItem, entry: TestEntry): void {
        const message = entry.message ?? '';
        switch (outcomeOf(entry)) {
            case 'passed':
                run.appendOutput(`${entry.test}: ${message}\r\n`, undefined, item);
                run.passed(item);
                break;
            case 'failed': {
                // The preemptions go in the message's text, and where VS Code has them (1.93+)
                // as its stack frames, which open their places: a message of their own would
                // put an error box on lines of the code under test (their ⇄ lenses mark them).
                const related = entry.related ?? [];
                const text = [message, ...related.map((r) => `${r.message} (${place(r.location)})`)].join('\n');
                run.failed(item, withFrames(at(new vscode.TestMessage(text), entry.location), related));
                break;
            }
            case 'skipped':
                run.appendOutput(`${entry.test}: ${message} (no claim, so not a pass)\r\n`, undefined, item);
                run.skipped(item);
                break;
            case 'errored':
                run.errored(item, at(new vscode.TestMessage(message), entry.location));
                break;
            default:
                break;
        }
    }

    /** A run of the Testing view: explores each test it names, in the server's queue. */
    private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken, ask: boolean): Promise<void> {
        const client = await this.client();
        const run = this.controller.createTestRun(request, undefined, true);
        const items = this.leaves(request);
        if (client === undefined) {
            for (const item of items) {
                run.errored(item, new vscode.TestMessage('racelens: the language server is not running'));
            }
            run.end();
            return;
        }
        let choice: { heuristic?: string; seed?: number } = {};
        if (ask) {
            const picked = await pickHeuristicAndSeed(items.length === 1 && items[0] !== undefined ? items[0].label : `${items.length} tests`);
            if (picked === undefined) {
                run.end();
                return;
            }
            choice = picked;
        }
        const waits: Promise<void>[] = [];
        for (const item of items) {
            const found = this.entries.get(item.id);
            if (found === undefined) {
                continue;
            }
            // A run of a lens's exploration that is still going gives way to this one.
            this.pending.get(item.id)?.done();
            waits.push(
                new Promise<void>((resolve) => {
                    this.pending.set(item.id, { run, item, before: found.entry.result, busy: false, done: resolve });
                }),
            );
            run.enqueued(item);
            const argument = { ...found.entry.explore, again: true, ...choice };
            try {
                await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMANDS.explore, arguments: [argument] });
            } catch (error) {
                run.errored(item, new vscode.TestMessage(`racelens: ${error instanceof Error ? error.message : String(error)}`));
                this.pending.get(item.id)?.done();
                this.pending.delete(item.id);
            }
        }
        // Stopping the run cancels what it queued (a token cancelled already fires no event).
        const cancel = async (): Promise<void> => {
            for (const [id, p] of [...this.pending]) {
                if (p.run !== run) {
                    continue;
                }
                this.pending.delete(id);
                const found = this.entries.get(id);
                if (found !== undefined) {
                    await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMANDS.cancel, arguments: [{ root: found.root, test: found.entry.test }] }).catch(() => undefined);
                }
                run.appendOutput(`${found?.entry.test ?? id}: cancelled\r\n`, undefined, p.item);
                run.skipped(p.item);
                p.done();
            }
        };
        const cancelled = token.onCancellationRequested(cancel);
        if (token.isCancellationRequested) {
            await cancel();
        }
        await Promise.all(waits);
        cancelled.dispose();
        run.end();
    }

    /** The tests a request names (a class stands for its tests), less the excluded ones. */
    private leaves(request: vscode.TestRunRequest): vscode.TestItem[] {
        const excluded = new Set((request.exclude ?? []).map((i) => i.id));
        const roots = request.include ?? [...this.controller.items].map(([, item]) => item);
        const out: vscode.TestItem[] = [];
        for (const item of roots) {
            if (excluded.has(item.id)) {
                continue;
            }
            if (this.entries.has(item.id)) {
                out.push(item);
            }
            for (const [, child] of item.children) {
                if (!excluded.has(child.id) && this.entries.has(child.id)) {
                    out.push(child);
                }
            }
        }
        return out;
    }

    dispose(): void {
        this.controller.dispose();
        for (const s of this.subscriptions) {
            s.dispose();
        }
    }
}

/** VS Code 1.93's `TestMessageStackFrame`, when the running VS Code has it (the extension
 * supports 1.82, whose API lacks it). */
type StackFrameClass = new (label: string, uri?: vscode.Uri, position?: vscode.Position) => object;

/** Gives `message` the preemptions as stack frames, where VS Code can show them. */
function withFrames(message: vscode.TestMessage, related: readonly { location: Location; message: string }[]): vscode.TestMessage {
    const Frame = (vscode as unknown as { TestMessageStackFrame?: StackFrameClass }).TestMessageStackFrame;
    if (Frame !== undefined && related.length > 0) {
        const frames = related.map((r) => new Frame(r.message, vscode.Uri.parse(r.location.uri), new vscode.Position(r.location.range.start.line, r.location.range.start.character)));
        (message as unknown as { stackTrace?: object[] }).stackTrace = frames;
    }
    return message;
}

/** `LatencyStats.java:22`. */
function place(location: Location): string {
    return `${location.uri.slice(location.uri.lastIndexOf('/') + 1)}:${location.range.start.line + 1}`;
}

/** Puts a message at a location the server sent (when it sent one). */
function at(message: vscode.TestMessage, location: Location | undefined): vscode.TestMessage {
    if (location !== undefined) {
        const r = location.range;
        message.location = new vscode.Location(vscode.Uri.parse(location.uri), new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character));
    }
    return message;
}
