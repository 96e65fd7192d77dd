// The extension's own commands about explorations: `racelens.copySchedule`, which the
// server's `Copy` lens runs in the editor (the server does not advertise it: the
// clipboard is the editor's), and `racelens.cancelAll` (racelens: Cancel Explorations),
// which runs the server's `racelens.cancel` for every test. The server's own commands
// (`racelens.exploreTest`, `racelens.showSchedule`, ...) are registered by
// vscode-languageclient: registering them here too would fail.

import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { EXPLORE_WITH_COMMAND, exploreWith } from './explore';
import { CLIENT_COMMANDS, SERVER_COMMANDS } from './protocol';

export const COPY_COMMAND = CLIENT_COMMANDS.copySchedule;
export const CANCEL_ALL_COMMAND = 'racelens.cancelAll';
/** The server's command; without an argument it cancels every queued and running exploration. */
const SERVER_CANCEL = SERVER_COMMANDS.cancel;

function field(value: unknown, name: string): unknown {
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The `text` of the Copy lens's argument `{ text }` (the `racelens replay ...` command line). */
export function textToCopy(arg: unknown): string | undefined {
    const text = field(arg, 'text');
    return typeof text === 'string' && text !== '' ? text : undefined;
}

/** `racelens.copySchedule { text }`: copies `text` to the clipboard and says so. */
export async function copySchedule(arg: unknown): Promise<void> {
    const text = textToCopy(arg);
    if (text === undefined) {
        void vscode.window.showWarningMessage('racelens: nothing to copy (the Copy lens of a failing test passes its replay command)');
        return;
    }
    await vscode.env.clipboard.writeText(text);
    void vscode.window.showInformationMessage(`racelens: copied to the clipboard: ${text}`);
}

/** What to say about the server's answer `{ cancelled: n }`. */
export function cancelledMessage(result: unknown): string {
    const n = field(result, 'cancelled');
    if (typeof n !== 'number' || n === 0) {
        return 'racelens: no exploration was running or queued';
    }
    return `racelens: cancelled ${n} exploration${n === 1 ? '' : 's'}`;
}

/** `racelens.cancelAll`: cancels every exploration of the running server. */
export async function cancelAll(client: LanguageClient | undefined): Promise<void> {
    if (client === undefined) {
        void vscode.window.showInformationMessage('racelens: the server is not running, so no exploration is either');
        return;
    }
    let result: unknown;
    try {
        result = await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_CANCEL, arguments: [] });
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(`racelens: cancelling the explorations failed: ${message}`);
        return;
    }
    void vscode.window.showInformationMessage(cancelledMessage(result));
}

/** Registers the extension's commands about explorations (and `racelens.exploreWith`,
 * explore.ts); `client` gives the running client, if any. */
export function registerExplorationCommands(client: () => Promise<LanguageClient | undefined>): vscode.Disposable[] {
    return [
        vscode.commands.registerCommand(COPY_COMMAND, copySchedule),
        vscode.commands.registerCommand(CANCEL_ALL_COMMAND, async () => {
            await cancelAll(await client());
        }),
        vscode.commands.registerCommand(EXPLORE_WITH_COMMAND, async (test?: unknown) => {
            await exploreWith(await client(), test);
        }),
    ];
}
