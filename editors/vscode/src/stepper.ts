// Steps through a failing schedule (`racelens.stepSchedule`): the server's `racelens/schedule`
// gives the steps; this walks them one at a time, forwards and back. At each step the editor
// shows the line of the thread that runs it (highlighted), every other thread's current line
// (the line of its latest step so far) carries the thread's name and what it did there, the
// value it read or wrote included (`◀ T1 (Thread-0): write count := 2`), and a preemption or
// the failure is marked in its colour. Keys while stepping (context `racelens.stepping`):
// Alt+] / Alt+[ the next / previous step, Alt+Shift+] / Alt+Shift+[ the next / previous
// preemption, Escape stops. The status bar says where the walk is.
//
// The command takes `{root, test}` (the failure's `Step through` lens, the Testing view's
// menu, the schedule page's button);
// without it, the failing test whose `✗` lens is at or above the cursor in the active editor.

import * as vscode from 'vscode';
import { CodeLensRequest } from 'vscode-languageclient/node';
import type { LanguageClient, StaticFeature } from 'vscode-languageclient/node';
import { CLIENT_COMMANDS, SERVER_COMMANDS, ScheduleRequest, type Location, type ScheduleStep, type ScheduleSteps } from './protocol';
import { racelensCapability } from './status';

/** Tells the server that this client steps through schedules: failures get a `Step through` lens. */
export const stepScheduleFeature: StaticFeature = racelensCapability('stepSchedule');

export const STEP_COMMANDS = {
    start: CLIENT_COMMANDS.stepSchedule,
    next: 'racelens.step.next',
    previous: 'racelens.step.previous',
    nextPreemption: 'racelens.step.nextPreemption',
    previousPreemption: 'racelens.step.previousPreemption',
    stop: 'racelens.step.stop',
};

export type Move = 'next' | 'previous' | 'nextPreemption' | 'previousPreemption';

/** The step a move goes to from `at` (0-based; -1 before the first), or undefined. */
export function target(steps: readonly ScheduleStep[], at: number, move: Move): number | undefined {
    const preemption = (from: number, by: number): number | undefined => {
        for (let i = from; i >= 0 && i < steps.length; i += by) {
            if (steps[i]?.mark === 'preemption') {
                return i;
            }
        }
        return undefined;
    };
    switch (move) {
        case 'next':
            return at + 1 < steps.length ? at + 1 : undefined;
        case 'previous':
            return at > 0 ? at - 1 : undefined;
        case 'nextPreemption':
            return preemption(at + 1, 1);
        case 'previousPreemption':
            return preemption(at - 1, -1);
    }
}

/** Each thread's current place at step `at`: the latest step of it with a location. */
export function places(steps: readonly ScheduleStep[], at: number): Map<number, { step: number; location: Location }> {
    const out = new Map<number, { step: number; location: Location }>();
    for (let i = 0; i <= at && i < steps.length; i++) {
        const s = steps[i];
        if (s?.thread !== undefined && s.location !== undefined) {
            out.set(s.thread, { step: i, location: s.location });
        }
    }
    return out;
}

/** `T1 (Thread-0): write count := 2 (Stats.java:14)`. */
export function stepText(schedule: ScheduleSteps, step: ScheduleStep): string {
    const thread = step.thread === undefined ? undefined : schedule.threads[step.thread];
    return thread === undefined ? step.text : `${thread}: ${step.text}`;
}

/** What the walk shows at a step: the line of each thread, and which one runs. */
export interface Mark {
    uri: string;
    line: number;
    text: string;
    role: 'running' | 'other' | 'preemption' | 'failure';
}

export function marks(schedule: ScheduleSteps, at: number): Mark[] {
    const current = schedule.steps[at];
    const out: Mark[] = [];
    if (current === undefined) {
        return out;
    }
    for (const [thread, place] of places(schedule.steps, at)) {
        const running = thread === current.thread;
        const step = running ? current : (schedule.steps[place.step] ?? current);
        // A preemption's and a failure's words start with their own mark.
        const text = `${step.mark === 'step' ? '◀ ' : ''}${stepText(schedule, step)}`;
        const role = !running ? 'other' : current.mark === 'preemption' ? 'preemption' : current.mark === 'failure' ? 'failure' : 'running';
        out.push({ uri: place.location.uri, line: place.location.range.start.line, text, role });
    }
    return out;
}

function after(color: string, lineBackground?: string): vscode.TextEditorDecorationType {
    return vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        backgroundColor: lineBackground === undefined ? undefined : new vscode.ThemeColor(lineBackground),
        after: { color: new vscode.ThemeColor(color), margin: '0 0 0 2em' },
    });
}

export class ScheduleStepper implements vscode.Disposable {
    private schedule: ScheduleSteps | undefined;
    private at = -1;
    private readonly decorations: Record<Mark['role'], vscode.TextEditorDecorationType> = {
        running: after('editorInfo.foreground', 'editor.rangeHighlightBackground'),
        preemption: after('editorWarning.foreground', 'editor.rangeHighlightBackground'),
        failure: after('editorError.foreground', 'editor.rangeHighlightBackground'),
        other: after('editorCodeLens.foreground'),
    };
    private readonly item = vscode.window.createStatusBarItem('racelens.step', vscode.StatusBarAlignment.Left, 9);
    private readonly subscriptions: vscode.Disposable[] = [];

    constructor(private readonly client: () => Promise<LanguageClient | undefined>) {
        this.item.name = 'racelens: schedule step';
        this.item.command = STEP_COMMANDS.next;
        this.subscriptions.push(
            vscode.commands.registerCommand(STEP_COMMANDS.start, (arg?: unknown) => this.start(arg)),
            vscode.commands.registerCommand(STEP_COMMANDS.next, () => this.move('next')),
            vscode.commands.registerCommand(STEP_COMMANDS.previous, () => this.move('previous')),
            vscode.commands.registerCommand(STEP_COMMANDS.nextPreemption, () => this.move('nextPreemption')),
            vscode.commands.registerCommand(STEP_COMMANDS.previousPreemption, () => this.move('previousPreemption')),
            vscode.commands.registerCommand(STEP_COMMANDS.stop, () => this.stop()),
            vscode.window.onDidChangeVisibleTextEditors(() => {
                this.render();
            }),
            ...Object.values(this.decorations),
        );
    }

    /** Where the walk is: the step (0-based) and the schedule's test, for tests. */
    get position(): { test: string; at: number; steps: number } | undefined {
        return this.schedule === undefined ? undefined : { test: this.schedule.test, at: this.at, steps: this.schedule.steps.length };
    }

    /** `racelens.stepSchedule [{root, test}]`: loads the schedule and shows its first step. */
    async start(arg?: unknown): Promise<void> {
        const client = await this.client();
        if (client === undefined) {
            void vscode.window.showWarningMessage('racelens: the server is not running');
            return;
        }
        const which = isResult(arg) ? arg : await failureAtCursor(client);
        if (which === undefined) {
            void vscode.window.showWarningMessage('racelens: no failing schedule here: put the cursor on a test with a ✗ lens, or use a test\'s "Step Through Schedule" in the Testing view');
            return;
        }
        let schedule: ScheduleSteps;
        try {
            schedule = await client.sendRequest(ScheduleRequest, which);
        } catch (error) {
            void vscode.window.showWarningMessage(`racelens: ${error instanceof Error ? error.message : String(error)}`);
            return;
        }
        this.schedule = schedule;
        this.at = -1;
        await vscode.commands.executeCommand('setContext', 'racelens.stepping', true);
        await this.move('next');
    }

    async move(how: Move): Promise<void> {
        const schedule = this.schedule;
        if (schedule === undefined) {
            void vscode.window.showInformationMessage('racelens: no schedule to step through (racelens: Step Through a Failing Schedule)');
            return;
        }
        const to = target(schedule.steps, this.at, how);
        if (to === undefined) {
            const what = how.endsWith('Preemption') ? 'no further preemption that way' : 'no step there';
            vscode.window.setStatusBarMessage(`racelens: ${what} (step ${this.at + 1} of ${schedule.steps.length})`, 3000);
            return;
        }
        this.at = to;
        const running = marks(schedule, to).find((m) => m.role !== 'other');
        const own = schedule.steps[to]?.location;
        const place = running ?? (own && { uri: own.uri, line: own.range.start.line });
        if (place !== undefined) {
            const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(place.uri));
            const line = new vscode.Range(place.line, 0, place.line, 0);
            await vscode.window.showTextDocument(document, { selection: line, preserveFocus: false, preview: true, viewColumn: vscode.ViewColumn.One });
        }
        this.render();
    }

    private render(): void {
        const schedule = this.schedule;
        const shown = schedule === undefined || this.at < 0 ? [] : marks(schedule, this.at);
        for (const editor of vscode.window.visibleTextEditors) {
            const uri = editor.document.uri.toString();
            for (const [role, type] of Object.entries(this.decorations) as [Mark['role'], vscode.TextEditorDecorationType][]) {
                const options = shown
                    .filter((m) => m.role === role && vscode.Uri.parse(m.uri).toString() === uri && m.line < editor.document.lineCount)
                    .map((m) => ({ range: new vscode.Range(m.line, 0, m.line, 0), renderOptions: { after: { contentText: m.text } } }));
                editor.setDecorations(type, options);
            }
        }
        const step = schedule?.steps[this.at];
        if (schedule === undefined || step === undefined) {
            this.item.hide();
            return;
        }
        this.item.text = `$(debug-step-over) racelens: step ${this.at + 1}/${schedule.steps.length} · ${stepText(schedule, step)}`;
        this.item.tooltip = `${schedule.test}: ${schedule.headline}\nAlt+] next · Alt+[ back · Alt+Shift+] next preemption · Escape stops`;
        this.item.show();
    }

    async stop(): Promise<void> {
        this.schedule = undefined;
        this.at = -1;
        this.render();
        await vscode.commands.executeCommand('setContext', 'racelens.stepping', false);
    }

    dispose(): void {
        this.item.dispose();
        for (const s of this.subscriptions) {
            s.dispose();
        }
    }
}

function isResult(value: unknown): value is { root: string; test: string } {
    const v = value as Record<string, unknown> | null;
    return typeof v === 'object' && v !== null && typeof v.root === 'string' && typeof v.test === 'string';
}

/** The `{root, test}` of the failing test whose lens is at or above the cursor (else the first). */
async function failureAtCursor(client: LanguageClient): Promise<{ root: string; test: string } | undefined> {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
        return undefined;
    }
    const lenses = (await client.sendRequest(CodeLensRequest.type, { textDocument: { uri: client.code2ProtocolConverter.asUri(editor.document.uri) } })) ?? [];
    const failures = lenses
        .filter((l) => l.command?.command === SERVER_COMMANDS.showSchedule && isResult(l.command.arguments?.[0]))
        .map((l) => ({ line: l.range.start.line, arg: l.command?.arguments?.[0] as { root: string; test: string } }))
        .sort((a, b) => a.line - b.line);
    const line = editor.selection.active.line;
    const found = failures.filter((f) => f.line <= line).at(-1) ?? failures[0];
    return found && { root: found.arg.root, test: found.arg.test };
}
