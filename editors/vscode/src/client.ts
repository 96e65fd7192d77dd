// Starts, restarts and stops the LanguageClient that runs `racelens lsp`, and turns every
// way the start can fail into one message that says how to fix it. Settings go to the
// server through it, and so do the `racelens:` documents the server asks to show.

import * as vscode from 'vscode';
import {
    CancellationToken,
    CloseAction,
    CodeLensRequest,
    DidChangeConfigurationNotification,
    ErrorAction,
    LanguageClient,
    ResponseError,
    RevealOutputChannelOn,
} from 'vscode-languageclient/node';
import type {
    CloseHandlerResult,
    ConfigurationParams,
    ErrorHandler,
    ErrorHandlerResult,
    LanguageClientOptions,
    ServerOptions,
} from 'vscode-languageclient/node';
import { SCHEME } from './documents';
import { isSchedulePage, scheduleHtmlFeature } from './schedule';
import { INSTALL_HINT, findServer, missingServerMessage, probeServer } from './server';
import type { FoundServer } from './server';
import { SECTION, readSettings, settingsForSection } from './settings';
import { ExplorationProgressFeature } from './progress';
import { CodeLensRefreshNotification } from './protocol';
import { selectionStatusFeature } from './status';
import { stepScheduleFeature } from './stepper';
import { testStatesFeature } from './testing';
import type { SelectionStatusItem } from './status';


/** Shows a schedule's swimlane page (`ScheduleView`). */
export interface SchedulePages {
    show(uri: vscode.Uri): Promise<boolean>;
}

/** The Testing view's racelens tests (`RacelensTests`): listens on each (re)started client. */
export interface TestView {
    attach(client: LanguageClient): void;
}

/** What the client needs of the `racelens:` documents when the server shows one. */
export interface ShownDocuments {
    /** Loads `uri` again if VS Code has it open (its text may be an earlier server's). */
    reload(uri: vscode.Uri): void;
}

const OPEN_SETTINGS = 'Open Settings';
const RETRY = 'Retry';
const SHOW_OUTPUT = 'Show Output';

/** Crashes tolerated within RESTART_WINDOW_MS before the server is left stopped. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export class RacelensClient implements vscode.Disposable {
    private client: LanguageClient | undefined;
    /** The start in progress (or the last one), resolving to the running client or undefined. */
    private starting: Promise<LanguageClient | undefined> | undefined;
    private running = false;
    private crashes: number[] = [];
    private restarting: Promise<unknown> = Promise.resolve();

    constructor(
        private readonly context: vscode.ExtensionContext,
        private readonly output: vscode.OutputChannel,
        private readonly documents: ShownDocuments,
        private readonly status: SelectionStatusItem,
        private readonly schedules: SchedulePages,
        private readonly tests: TestView,
    ) {}

    /** The running client, waiting for a start in progress; undefined if the server is not running. */
    async current(): Promise<LanguageClient | undefined> {
        if (this.starting !== undefined) {
            return this.starting;
        }
        return this.running ? this.client : undefined;
    }

    start(): Promise<LanguageClient | undefined> {
        this.starting ??= this.doStart().finally(() => {
            this.starting = undefined;
        });
        return this.starting;
    }

    async stop(): Promise<void> {
        if (this.starting !== undefined) {
            await this.starting;
        }
        const client = this.client;
        this.client = undefined;
        this.running = false;
        if (client !== undefined) {
            try {
                await client.dispose(5000);
            } catch (error) {
                this.log(`stopping the server failed: ${describe(error)}`);
            }
        }
    }

    /** Stops and starts again; restarts asked for at the same time run one after the other. */
    restart(): Promise<LanguageClient | undefined> {
        const next = this.restarting.then(async () => {
            await this.stop();
            this.crashes = [];
            return this.start();
        });
        this.restarting = next.catch(() => undefined);
        return next;
    }

    async dispose(): Promise<void> {
        await this.stop();
    }

    /** Sends the current settings to the running server (when something other than a settings change alters them). */
    async sendSettings(): Promise<void> {
        const client = await this.current();
        if (client !== undefined) {
            await sendSettings(client);
        }
    }

    private log(message: string): void {
        this.output.appendLine(`[racelens] ${message}`);
    }

    private async doStart(): Promise<LanguageClient | undefined> {
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const lookup = await findServer({
            setting: vscode.workspace.getConfiguration(SECTION).get<string>('server.path') ?? '',
            workspaceFolder: folder?.scheme === 'file' ? folder.fsPath : undefined,
            extensionPath: this.context.extensionPath,
        });
        if (lookup.kind === 'missing') {
            this.log(`server not found; looked at:\n  ${lookup.searched.join('\n  ')}`);
            this.offerFix(missingServerMessage(lookup));
            return undefined;
        }
        const probe = await probeServer(lookup.command);
        if (!probe.ok) {
            this.log(`\`${lookup.command} lsp --help\` failed: ${probe.detail}`);
            this.offerFix(
                `racelens: ${lookup.command} cannot serve editors: \`racelens lsp --help\` failed with: ${probe.detail}. ` +
                    `It must be an executable racelens build for this machine that has the \`lsp\` command. ${INSTALL_HINT}`,
            );
            return undefined;
        }
        this.log(`starting ${lookup.command} lsp (found via ${lookup.source})`);

        const client = this.createClient(lookup, folder);
        this.client = client;
        try {
            await client.start();
        } catch (error) {
            this.client = undefined;
            this.log(`the server did not start: ${describe(error)}`);
            try {
                await client.dispose(2000);
            } catch {
                // Already stopped.
            }
            this.offerFix(
                `racelens: the server ${lookup.command} did not start (${describe(error)}). ` +
                    `Check that it is an executable racelens build with the \`lsp\` command ` +
                    `(\`${lookup.command} lsp --help\`), and see the racelens output. ${INSTALL_HINT}`,
            );
            return undefined;
        }
        this.running = true;
        return client;
    }

    private createClient(server: FoundServer, folder: vscode.Uri | undefined): LanguageClient {
        const serverOptions: ServerOptions = {
            command: server.command,
            args: ['lsp'],
            options: folder?.scheme === 'file' ? { cwd: folder.fsPath } : {},
        };
        // Filled in right below; the middleware only runs once the client exists.
        const self: { client?: LanguageClient } = {};
        const clientOptions: LanguageClientOptions = {
            documentSelector: [{ scheme: 'file', language: 'java' }],
            synchronize: { configurationSection: SECTION },
            initializationOptions: () => readSettings(),
            outputChannel: this.output,
            revealOutputChannelOn: RevealOutputChannelOn.Never,
            initializationFailedHandler: (error) => {
                this.log(`initialization failed: ${describe(error)}`);
                return false;
            },
            errorHandler: this.errorHandler(),
            middleware: {
                workspace: {
                    // Answer `workspace/configuration` for `racelens` with the cleaned-up
                    // nested settings (no empty values), other sections as VS Code has them.
                    configuration: async (params: ConfigurationParams, token, next) => {
                        const defaults = await next(params, token);
                        return params.items.map((item, index) => {
                            const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
                            const ours = item.section ? settingsForSection(item.section, scope) : undefined;
                            if (ours !== undefined) {
                                return ours;
                            }
                            return Array.isArray(defaults) ? (defaults[index] as unknown) : null;
                        });
                    },
                    didChangeConfiguration: async (sections, next) => {
                        if (self.client === undefined || sections === undefined) {
                            return next(sections);
                        }
                        await sendSettings(self.client);
                    },
                },
                window: {
                    // `racelens:/schedule/1` names a document of this server run; VS Code
                    // may still hold the text an earlier run served under that URI.
                    showDocument: async (params, next) => {
                        let uri = vscode.Uri.parse(params.uri);
                        if (isSchedulePage(uri)) {
                            // The swimlane page goes to a webview; if it cannot, the same
                            // schedule as markdown.
                            if (await this.schedules.show(uri)) {
                                return { success: true };
                            }
                            uri = uri.with({ path: uri.path.replace(/\.html$/, '.md') });
                            params = { ...params, uri: uri.toString(true) };
                        }
                        if (uri.scheme === SCHEME) {
                            this.documents.reload(uri);
                        }
                        const shown = await next(params, CancellationToken.None);
                        return shown instanceof ResponseError ? { success: false } : shown;
                    },
                },
            },
        };
        const client = new LanguageClient('racelens', 'racelens', serverOptions, clientOptions);
        self.client = client;
        client.onNotification(CodeLensRefreshNotification, () => {
            refreshCodeLenses(client);
        });
        client.registerFeature(selectionStatusFeature);
        client.registerFeature(new ExplorationProgressFeature(client));
        client.registerFeature(scheduleHtmlFeature);
        client.registerFeature(testStatesFeature);
        client.registerFeature(stepScheduleFeature);
        this.status.attach(client);
        this.tests.attach(client);
        return client;
    }

    private errorHandler(): ErrorHandler {
        return {
            error: (_error, _message, count): ErrorHandlerResult => ({
                action: count !== undefined && count > 3 ? ErrorAction.Shutdown : ErrorAction.Continue,
            }),
            closed: (): CloseHandlerResult => {
                if (!this.running) {
                    // Exited while starting: doStart reports it with the fix.
                    return { action: CloseAction.DoNotRestart, handled: true };
                }
                const now = Date.now();
                this.crashes = this.crashes.filter((t) => now - t < RESTART_WINDOW_MS);
                this.crashes.push(now);
                if (this.crashes.length <= MAX_RESTARTS) {
                    this.log(`the server stopped unexpectedly; restarting (${this.crashes.length}/${MAX_RESTARTS})`);
                    return { action: CloseAction.Restart, handled: true };
                }
                this.running = false;
                this.offerFix(
                    `racelens: the server stopped ${this.crashes.length} times in 3 minutes and is not restarted again. ` +
                        'See the racelens output for its last messages, then run "racelens: Restart Server".',
                );
                return { action: CloseAction.DoNotRestart, handled: true };
            },
        };
    }

    /** Shows an error with the ways out: settings, retry, output. */
    private offerFix(message: string): void {
        void vscode.window.showErrorMessage(message, OPEN_SETTINGS, RETRY, SHOW_OUTPUT).then(async (choice) => {
            if (choice === OPEN_SETTINGS) {
                await vscode.commands.executeCommand('workbench.action.openSettings', 'racelens.server.path');
            } else if (choice === RETRY) {
                await this.restart();
            } else if (choice === SHOW_OUTPUT) {
                this.output.show(true);
            }
        });
    }
}

/** `workspace/didChangeConfiguration` with the `racelens` settings (the server pulls them again). */
async function sendSettings(client: LanguageClient): Promise<void> {
    await client.sendNotification(DidChangeConfigurationNotification.type, {
        settings: { [SECTION]: readSettings() },
    });
}

/** Makes VS Code ask for code lenses again (the fallback for `racelens/codeLensRefresh`). */
export function refreshCodeLenses(client: LanguageClient): void {
    const feature = client.getFeature(CodeLensRequest.method);
    const emitters = new Set<vscode.EventEmitter<void>>();
    for (const doc of vscode.workspace.textDocuments) {
        const provider = feature.getProvider(doc);
        if (provider !== undefined) {
            emitters.add(provider.onDidChangeCodeLensEmitter);
        }
    }
    for (const emitter of emitters) {
        emitter.fire();
    }
}

function describe(error: unknown): string {
    if (error instanceof Error) {
        return error.message;
    }
    return String(error);
}
