// Exploration progress as a notification with a Cancel button. vscode-languageclient shows
// every work-done progress the server creates in the status bar (ProgressLocation.Window),
// where there is no Cancel; an exploration runs for minutes and is the user's to stop, so its
// progress (tokens `racelens/explore/<id>`) goes to a notification instead, whose Cancel sends
// `window/workDoneProgress/cancel`; when the server has stopped it, the status bar says
// `cancelled: …` for a few seconds. Other progress keeps the library's own display.

import * as vscode from 'vscode';
import { WorkDoneProgress, WorkDoneProgressCancelNotification, WorkDoneProgressCreateRequest } from 'vscode-languageclient/node';
import type { LanguageClient, ProgressToken, StaticFeature, WorkDoneProgressBegin, WorkDoneProgressReport } from 'vscode-languageclient/node';
import { ProgressPart } from 'vscode-languageclient/lib/common/progressPart';

/** How long the status bar says that an exploration was cancelled. */
const CANCELLED_MESSAGE_MS = 10_000;

/** The server's progress tokens of explorations. */
export const EXPLORATION_TOKEN_PREFIX = 'racelens/explore/';

/** One exploration's progress, shown as a notification from `begin` to `end`. */
class NotificationProgress {
    private finish: (() => void) | undefined;
    private progress: vscode.Progress<{ message?: string }> | undefined;
    private title = 'racelens: exploration';
    private readonly listener: vscode.Disposable;

    constructor(
        private readonly client: LanguageClient,
        private readonly token: ProgressToken,
        private readonly ended: (part: NotificationProgress) => void,
    ) {
        this.listener = client.onProgress(WorkDoneProgress.type, token, (value) => {
            if (value.kind === 'begin') {
                this.begin(value);
            } else if (value.kind === 'report') {
                this.report(value);
            } else {
                if (value.message === 'cancelled') {
                    // The notification closed at the click; this says the server did stop.
                    vscode.window.setStatusBarMessage(`$(circle-slash) cancelled: ${this.title}`, CANCELLED_MESSAGE_MS);
                }
                this.done();
            }
        });
    }

    private begin(params: WorkDoneProgressBegin): void {
        this.title = params.title;
        void vscode.window.withProgress(
            { location: vscode.ProgressLocation.Notification, title: params.title, cancellable: params.cancellable === true },
            (progress, cancel) => {
                this.progress = progress;
                cancel.onCancellationRequested(() => {
                    void this.client.sendNotification(WorkDoneProgressCancelNotification.type, { token: this.token });
                });
                this.report(params);
                return new Promise<void>((resolve) => {
                    this.finish = resolve;
                });
            },
        );
    }

    private report(params: WorkDoneProgressBegin | WorkDoneProgressReport): void {
        if (typeof params.message === 'string') {
            this.progress?.report({ message: params.message });
        }
    }

    done(): void {
        this.listener.dispose();
        this.finish?.();
        this.finish = undefined;
        this.ended(this);
    }
}

/**
 * Takes over `window/workDoneProgress/create`: registered after the library's own progress
 * feature, so its handler replaces the library's on every (re)start of the client.
 */
export class ExplorationProgressFeature implements StaticFeature {
    private readonly active = new Set<NotificationProgress>();

    constructor(private readonly client: LanguageClient) {}

    fillClientCapabilities(): void {
        // The library's progress feature already says `window.workDoneProgress`.
    }

    initialize(): void {
        this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
            if (typeof token === 'string' && token.startsWith(EXPLORATION_TOKEN_PREFIX)) {
                this.active.add(new NotificationProgress(this.client, token, (part) => this.active.delete(part)));
            } else {
                new ProgressPart(this.client, token);
            }
        });
    }

    getState(): { kind: 'static' } {
        return { kind: 'static' };
    }

    clear(): void {
        for (const part of [...this.active]) {
            part.done();
        }
    }
}
