// The racelens extensions of LSP as this client speaks them: the mirror of the server's
// `server/lsp/src/payloads.rs` (one interface per payload, with the same fields; the test
// `the_typescript_protocol_mirrors_the_payloads` in that file fails when the two disagree)
// and the methods that carry them. Every payload is camelCase. editors/README.md documents
// them for other clients.

import { NotificationType, NotificationType0, RequestType } from 'vscode-languageclient/node';

/** An LSP position, range and location as the server sends them (0-based). */
export interface Position {
    line: number;
    character: number;
}
export interface Range {
    start: Position;
    end: Position;
}
export interface Location {
    uri: string;
    range: Range;
}

/** `racelens.exploreTest`'s argument: the test, as its lens names it. */
export interface TestArgument {
    class: string;
    method: string;
    uri?: string | null;
    heuristic?: string;
    seed?: number;
    maxSchedules?: number;
    again?: boolean;
}

/** The argument of `racelens.cancel`, `racelens.showSchedule`, `racelens.replay` and
 * `racelens.stepSchedule`, and the params of `racelens/schedule`. */
export interface ResultArgument {
    root: string;
    test: string;
    schedule?: string;
}

/** `racelens.copySchedule`'s argument. */
export interface CopyArgument {
    text: string;
}

/** The answer of `racelens.exploreTest` and `racelens.replay`. */
export interface Queued {
    queued: boolean;
    test?: string;
}

/** The answer of `racelens.cancel`. */
export interface Cancelled {
    cancelled: number;
}

/** The params of `racelens/showDocument`. */
export interface DocumentLink {
    uri: string;
}

/** The answer of `racelens.showSchedule`. */
export interface ScheduleLinks {
    uri: string;
    html?: string;
}

/** The result of `racelens/document`. */
export interface DocumentText {
    text: string;
    languageId: string;
}

/** The result of `racelens/schedule`: a failing schedule's steps. */
export interface ScheduleSteps {
    test: string;
    headline: string;
    threads: string[];
    steps: ScheduleStep[];
}

export interface ScheduleStep {
    mark: 'step' | 'preemption' | 'switch' | 'elided' | 'failure';
    thread?: number;
    text: string;
    location?: Location;
}

/** The params of `racelens/testStates`. */
export interface TestStates {
    root: string;
    tests: TestEntry[];
}

export type TestStateKind = 'none' | 'queued' | 'running' | 'passed' | 'failed' | 'unproven' | 'errored' | 'stale';

export interface TestEntry {
    test: string;
    explore: TestArgument;
    range: Range;
    inherited?: boolean;
    state: TestStateKind;
    message?: string;
    result?: number;
    location?: Location;
    related?: { location: Location; message: string }[];
    replay?: string;
}

/** The params of `racelens/selectionStatus`. */
export interface SelectionStatus {
    root: string;
    selected: number;
    total: number;
    impactedPairs: number;
    tests: StatusTest[];
    /** Methods with a warning of the change and no impacted pair: selection targets too. */
    warnedMethods: number;
    /** Changed state tests starting threads run, whose sharing the analysis could not decide. */
    undecided: string[];
}

/** One selected test of a status. */
export interface StatusTest {
    test: string;
    rank: number;
    pairs: number;
    /** Methods with a warning of the change (and no impacted pair) it runs in threads. */
    warned: number;
    evidence: string;
    explore: TestArgument;
    /** The 0-based line of the test method's name in `explore.uri`. */
    line: number;
}

export const DocumentRequest = new RequestType<DocumentLink, DocumentText | null, void>('racelens/document');
export const ScheduleRequest = new RequestType<ResultArgument, ScheduleSteps, void>('racelens/schedule');
export const SelectionStatusNotification = new NotificationType<SelectionStatus>('racelens/selectionStatus');
export const TestStatesNotification = new NotificationType<TestStates>('racelens/testStates');
/** Sent by the server instead of `workspace/codeLens/refresh` to clients without refreshSupport. */
export const CodeLensRefreshNotification = new NotificationType0('racelens/codeLensRefresh');

/** The server's commands (it advertises them; vscode-languageclient registers them). */
export const SERVER_COMMANDS = {
    explore: 'racelens.exploreTest',
    cancel: 'racelens.cancel',
    showSchedule: 'racelens.showSchedule',
    replay: 'racelens.replay',
} as const;

/** Commands its lenses run that are the client's own (not advertised). */
export const CLIENT_COMMANDS = {
    copySchedule: 'racelens.copySchedule',
    stepSchedule: 'racelens.stepSchedule',
} as const;
