// Wires the racelens extension: the output channel, the `racelens:` documents, the
// schedule pages' webview, the language client, the status item of the tests the change
// selects, the Testing view's tests, the schedule stepper, and the commands.

import * as vscode from 'vscode';
import { RacelensClient } from './client';
import { registerExplorationCommands } from './commands';
import { RacelensDocuments } from './documents';
import { warnIfNoJdk } from './jdk';
import { ScheduleView } from './schedule';
import { SelectionStatusItem } from './status';
import { ScheduleStepper } from './stepper';
import { RacelensTests } from './testing';

let racelens: RacelensClient | undefined;

export function activate(context: vscode.ExtensionContext): void {
    const output = vscode.window.createOutputChannel('racelens');
    context.subscriptions.push(output);

    const documents: RacelensDocuments = new RacelensDocuments(() => client.current());
    context.subscriptions.push(documents);
    const status = new SelectionStatusItem(() => client.current());
    context.subscriptions.push(status);
    const schedules = new ScheduleView(() => client.current(), output);
    context.subscriptions.push(schedules);
    const tests = new RacelensTests(() => client.current());
    context.subscriptions.push(
        tests,
        status.onDidChange((s) => {
            tests.select(s);
        }),
    );
    context.subscriptions.push(new ScheduleStepper(() => client.current()));
    const client: RacelensClient = new RacelensClient(context, output, documents, status, schedules, tests);
    racelens = client;

    context.subscriptions.push(
        vscode.commands.registerCommand('racelens.restartServer', async () => {
            output.appendLine('[racelens] restart requested');
            await client.restart();
            documents.refresh();
        }),
        vscode.commands.registerCommand('racelens.showOutput', () => {
            output.show(true);
        }),
        ...registerExplorationCommands(() => client.current()),
        // Trusting the workspace turns on the settings that were held back (explore.onSave).
        vscode.workspace.onDidGrantWorkspaceTrust(async () => {
            await client.sendSettings();
        }),
        vscode.workspace.onDidChangeConfiguration(async (event) => {
            // The other settings reach the running server through workspace/configuration.
            if (event.affectsConfiguration('racelens.server.path')) {
                output.appendLine('[racelens] racelens.server.path changed; restarting');
                await client.restart();
            }
        }),
    );

    void warnIfNoJdk(context, output);
    // Not awaited: activation should not wait for the server's initialization.
    void client.start();
}

export async function deactivate(): Promise<void> {
    const client = racelens;
    racelens = undefined;
    await client?.dispose();
}
