// Shows a failing schedule as a picture: the server renders the swimlane page
// (`racelens:/schedule/<id>/<Class>.<method>.html`, served by `racelens/document`) and asks
// to show it, because this client declares `experimental.racelens.scheduleHtml`; this file
// puts the page in a webview panel and answers its clicks. It draws nothing itself.
//
// The page brings its own Content-Security-Policy (nothing from elsewhere, its style and
// script only with their nonce); a page without that policy is not shown. A click on a row
// posts `{ type: 'open', file, line, root }` and opens the file at the line; the page's
// "Open as text" posts `{ type: 'text', uri }` and opens the markdown table; its "Step
// through" posts `{ type: 'step', test, root }` and starts the stepper (stepper.ts).

import * as path from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient, StaticFeature } from 'vscode-languageclient/node';
import { CLIENT_COMMANDS, DocumentRequest } from './protocol';
import { racelensCapability } from './status';

/** Declares that this client shows the schedule's page rather than its markdown. */
export const scheduleHtmlFeature: StaticFeature = racelensCapability('scheduleHtml');

/** Whether `uri` is a schedule page of the server. */
export function isSchedulePage(uri: vscode.Uri): boolean {
    return uri.scheme === 'racelens' && uri.path.startsWith('/schedule/') && uri.path.endsWith('.html');
}

/** The policy a page must open with: no source at all but its own nonce'd style and script. */
const STRICT_POLICY = /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-[A-Za-z0-9]+'; script-src 'nonce-[A-Za-z0-9]+'">/;

export function hasStrictPolicy(html: string): boolean {
    return STRICT_POLICY.test(html.slice(0, 2000));
}

/** What a page posts. */
export type PageMessage = { type: 'open'; file: string; line: number; root?: string } | { type: 'text'; uri: string } | { type: 'step'; test: string; root: string };

export function pageMessage(value: unknown): PageMessage | undefined {
    if (typeof value !== 'object' || value === null) {
        return undefined;
    }
    const m = value as Record<string, unknown>;
    if (m.type === 'open' && typeof m.file === 'string' && typeof m.line === 'number' && Number.isInteger(m.line) && m.line >= 1) {
        return { type: 'open', file: m.file, line: m.line, root: typeof m.root === 'string' && m.root !== '' ? m.root : undefined };
    }
    if (m.type === 'text' && typeof m.uri === 'string' && m.uri.startsWith('racelens:/schedule/')) {
        return { type: 'text', uri: m.uri };
    }
    if (m.type === 'step' && typeof m.test === 'string' && m.test !== '' && typeof m.root === 'string' && m.root !== '') {
        return { type: 'step', test: m.test, root: m.root };
    }
    return undefined;
}

/** The file a row names, inside its work tree (a path that leaves it is refused). */
export function sourceFile(root: string, file: string): string | undefined {
    const full = path.resolve(root, file);
    const relative = path.relative(root, full);
    return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? undefined : full;
}

export class ScheduleView implements vscode.Disposable {
    private panel: vscode.WebviewPanel | undefined;

    constructor(
        private readonly client: () => Promise<LanguageClient | undefined>,
        private readonly output: vscode.OutputChannel,
    ) {}

    /** Shows the page at `uri` in the panel (one panel, reused); false when it cannot. */
    async show(uri: vscode.Uri): Promise<boolean> {
        const client = await this.client();
        if (client === undefined) {
            return false;
        }
        let html: string;
        try {
            const result = (await client.sendRequest(DocumentRequest, { uri: uri.toString(true) })) as { text?: unknown } | null;
            if (typeof result?.text !== 'string') {
                return false;
            }
            html = result.text;
        } catch (error) {
            this.output.appendLine(`[racelens] cannot load ${uri.toString(true)}: ${error instanceof Error ? error.message : String(error)}`);
            return false;
        }
        if (!hasStrictPolicy(html)) {
            this.output.appendLine(`[racelens] not shown: ${uri.toString(true)} lacks its Content-Security-Policy`);
            return false;
        }
        const title = `Schedule: ${path.basename(uri.path, '.html')}`;
        if (this.panel === undefined) {
            const panel = vscode.window.createWebviewPanel('racelens.schedule', title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
                enableScripts: true,
                localResourceRoots: [],
                enableFindWidget: true,
            });
            panel.webview.onDidReceiveMessage((message: unknown) => this.receive(message));
            panel.onDidDispose(() => {
                this.panel = undefined;
            });
            this.panel = panel;
        } else {
            this.panel.title = title;
            this.panel.reveal(vscode.ViewColumn.Beside);
        }
        this.panel.webview.html = html;
        return true;
    }

    /** Answers a message of the page; returns when its editor is shown. */
    async receive(value: unknown): Promise<void> {
        const message = pageMessage(value);
        if (message?.type === 'step') {
            await vscode.commands.executeCommand(CLIENT_COMMANDS.stepSchedule, { root: message.root, test: message.test });
            return;
        }
        if (message?.type === 'text') {
            await vscode.window.showTextDocument(vscode.Uri.parse(message.uri), { preview: false, viewColumn: vscode.ViewColumn.Beside });
            return;
        }
        if (message?.type !== 'open') {
            return;
        }
        const root = message.root ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
        const file = root === undefined ? undefined : sourceFile(root, message.file);
        if (file === undefined) {
            void vscode.window.showWarningMessage(`racelens: ${message.file} is not a file of the workspace`);
            return;
        }
        try {
            const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
            const at = new vscode.Range(message.line - 1, 0, message.line - 1, 0);
            await vscode.window.showTextDocument(doc, { selection: at, viewColumn: vscode.ViewColumn.One, preview: true });
        } catch (error) {
            void vscode.window.showWarningMessage(`racelens: cannot open ${message.file}: ${error instanceof Error ? error.message : String(error)}`);
        }
    }

    dispose(): void {
        this.panel?.dispose();
        this.panel = undefined;
    }
}
