// Serves `racelens:` URIs (warning-code explanations such as `racelens:/codes/RL001`,
// failing schedules such as `racelens:/schedule/3/PoolTest.borrow.md`) through the server's
// `racelens/document` request, read-only: a content provider's documents cannot be edited.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { DocumentRequest, type DocumentText } from './protocol';

export const SCHEME = 'racelens';

function isDocumentResult(value: unknown): value is DocumentText {
    if (typeof value !== 'object' || value === null) {
        return false;
    }
    const record = value as Record<string, unknown>;
    return typeof record.text === 'string' && (record.languageId === undefined || typeof record.languageId === 'string');
}

export class RacelensDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    /** The language the server named for each served URI, applied when the document opens. */
    private readonly languages = new Map<string, string>();
    private readonly disposables: { dispose(): unknown }[] = [];

    readonly onDidChange = this.changed.event;

    constructor(private readonly client: () => Promise<LanguageClient | undefined>) {
        this.disposables.push(
            this.changed,
            vscode.workspace.registerTextDocumentContentProvider(SCHEME, this),
            vscode.workspace.onDidOpenTextDocument((doc) => void this.applyLanguage(doc)),
        );
    }

    async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
        const client = await this.client();
        if (client === undefined) {
            return `# racelens\n\nThe racelens server is not running, so ${uri.toString(true)} cannot be shown. ` +
                'Run **racelens: Restart Server** and look at the `racelens` output.\n';
        }
        try {
            const result = await client.sendRequest(DocumentRequest, { uri: uri.toString(true) }, token);
            if (!isDocumentResult(result)) {
                return `No racelens document at ${uri.toString(true)}.\n`;
            }
            if (result.languageId !== '') {
                this.languages.set(uri.toString(), result.languageId);
            }
            return result.text;
        } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            return `# racelens\n\nCould not load ${uri.toString(true)}: ${message}\n`;
        }
    }

    /** Asks VS Code to load every open `racelens:` document again (after a server restart, for example). */
    refresh(): void {
        for (const doc of vscode.workspace.textDocuments) {
            if (doc.uri.scheme === SCHEME) {
                this.changed.fire(doc.uri);
            }
        }
    }

    /** Asks VS Code to load `uri` again if it has it open. */
    reload(uri: vscode.Uri): void {
        const key = uri.toString();
        if (vscode.workspace.textDocuments.some((doc) => doc.uri.toString() === key)) {
            this.changed.fire(uri);
        }
    }

    private async applyLanguage(doc: vscode.TextDocument): Promise<void> {
        if (doc.uri.scheme !== SCHEME) {
            return;
        }
        const languageId = this.languages.get(doc.uri.toString());
        if (languageId !== undefined && doc.languageId !== languageId) {
            try {
                await vscode.languages.setTextDocumentLanguage(doc, languageId);
            } catch {
                // An unknown language id (no extension for it): keep plain text.
            }
        }
    }

    dispose(): void {
        for (const d of this.disposables) {
            d.dispose();
        }
    }
}
