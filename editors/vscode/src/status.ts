// The status item "racelens: 2 tests for this change": how many tests the working-tree change
// selects (SimRT's selection, the same ranking as the lenses), from the server's
// `racelens/selectionStatus` notification. A click lists the selected tests, best first;
// picking one explores it, as its lens would.

import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import type { LanguageClient, StaticFeature } from 'vscode-languageclient/node';
import { SERVER_COMMANDS, SelectionStatusNotification, type SelectionStatus, type StatusTest } from './protocol';

export const SHOW_SELECTED_COMMAND = 'racelens.showSelectedTests';
const EXPLORE_COMMAND = SERVER_COMMANDS.explore;


/** Tells the server that this client shows `racelens/selectionStatus`. */
export const selectionStatusFeature: StaticFeature = racelensCapability('selectionStatus');

/** A feature that only sets `capabilities.experimental.racelens.<name> = true`. */
export function racelensCapability(name: string): StaticFeature {
    return {
        fillClientCapabilities(capabilities) {
            const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
            const ours = (experimental.racelens ?? {}) as Record<string, unknown>;
            capabilities.experimental = { ...experimental, racelens: { ...ours, [name]: true } };
        },
        initialize: () => undefined,
        getState: () => ({ kind: 'static' }),
        clear: () => undefined,
    };
}

function plural(n: number, what: string): string {
    return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** `2 impacted pairs`, `1 method with a warning`, or both. */
export function coverText(t: StatusTest): string {
    const warned = t.warned;
    if (warned === 0) {
        return plural(t.pairs, 'impacted pair');
    }
    const methods = plural(warned, 'method with a warning');
    return t.pairs === 0 ? methods : `${plural(t.pairs, 'impacted pair')} and ${methods}`;
}

/**
 * The item's text for a status: the count; "no evidence" when nothing is selected but the
 * analysis could not decide whether changed state is shared (never a silent "0 tests").
 */
export function statusText(status: SelectionStatus): string {
    if (status.selected === 0 && status.undecided.length > 0) {
        return '$(question) racelens: no evidence';
    }
    if (status.selected === 0 && status.impactedPairs === 0 && status.warnedMethods === 0) {
        return '$(beaker) racelens: no impacted pair';
    }
    return `$(beaker) racelens: ${plural(status.selected, 'test')} for this change`;
}

/** The tooltip: what is selected, and from which evidence; what the analysis could not decide. */
export function statusTooltip(status: SelectionStatus): string {
    const undecided = status.undecided;
    const lines: string[] = [];
    if (status.selected === 0 && status.impactedPairs === 0 && status.warnedMethods === 0 && undecided.length === 0) {
        return 'racelens: the change impacts no shared-variable pair, so no test is selected.';
    }
    const targets = [plural(status.impactedPairs, 'impacted pair')];
    if (status.warnedMethods > 0) {
        targets.push(plural(status.warnedMethods, 'method with a warning and no pair'));
    }
    lines.push(`racelens: ${status.selected} of ${plural(status.total, 'test')} can run one of the change's ${targets.join(' or ')} in different threads.`);
    lines.push(...status.tests.map((t) => `#${t.rank} ${t.test}: covers ${coverText(t)} (${t.evidence})`));
    if (status.selected > status.tests.length) {
        lines.push(`... and ${status.selected - status.tests.length} more`);
    }
    if (undecided.length > 0) {
        lines.push(status.selected === 0 ? 'No evidence either way: tests that start threads run state the analysis could not call shared:' : 'Not known to be shared:');
        lines.push(...undecided.map((u) => `- ${u}`));
    }
    if (status.selected > 0) {
        lines.push('Click to explore one.');
    }
    return lines.join('\n');
}

/** The status item of the workspace folder the active editor is in (else the first one). */
export class SelectionStatusItem implements vscode.Disposable {
    private readonly item: vscode.StatusBarItem;
    private readonly byRoot = new Map<string, SelectionStatus>();
    private readonly subscriptions: vscode.Disposable[] = [];
    private readonly changed = new vscode.EventEmitter<SelectionStatus>();
    /** Each status the server sends (the Testing view tags the selected tests). */
    readonly onDidChange = this.changed.event;

    constructor(private readonly client: () => Promise<LanguageClient | undefined>) {
        this.item = vscode.window.createStatusBarItem('racelens.selection', vscode.StatusBarAlignment.Left, 10);
        this.item.name = 'racelens: tests for this change';
        this.item.command = SHOW_SELECTED_COMMAND;
        this.subscriptions.push(
            vscode.commands.registerCommand(SHOW_SELECTED_COMMAND, async () => {
                await this.pickAndExplore();
            }),
            vscode.window.onDidChangeActiveTextEditor(() => {
                this.render();
            }),
        );
    }

    /** Listens on a (re)started client; the old statuses are the old server's. */
    attach(client: LanguageClient): void {
        this.byRoot.clear();
        this.render();
        client.onNotification(SelectionStatusNotification, (status) => {
            this.byRoot.set(status.root, status);
            this.render();
            this.changed.fire(status);
        });
    }

    private current(): SelectionStatus | undefined {
        const active = vscode.window.activeTextEditor?.document.uri;
        const folder = active ? vscode.workspace.getWorkspaceFolder(active) : undefined;
        const status = folder ? this.byRoot.get(folder.uri.toString()) : undefined;
        return status ?? this.byRoot.values().next().value;
    }

    private render(): void {
        const status = this.current();
        if (status === undefined) {
            this.item.hide();
            return;
        }
        this.item.text = statusText(status);
        this.item.tooltip = statusTooltip(status);
        this.item.show();
    }

    private async pickAndExplore(): Promise<void> {
        const status = this.current();
        if (status === undefined || status.tests.length === 0) {
            const undecided = status?.undecided ?? [];
            const why = undecided.length > 0 ? `: no evidence either way (${undecided[0]})` : '';
            void vscode.window.showInformationMessage(`racelens: the change selects no test${why}`);
            return;
        }
        const picked = await vscode.window.showQuickPick(
            status.tests.map((t) => ({ label: `#${t.rank} ${t.test}`, description: `covers ${coverText(t)} (${t.evidence})`, test: t })),
            { placeHolder: 'Explore the schedules of a test the change selects' },
        );
        const client = await this.client();
        if (picked === undefined || client === undefined) {
            return;
        }
        await client.sendRequest(ExecuteCommandRequest.type, { command: EXPLORE_COMMAND, arguments: [picked.test.explore] });
    }

    dispose(): void {
        this.item.dispose();
        this.changed.dispose();
        for (const s of this.subscriptions) {
            s.dispose();
        }
    }
}
