// A stand-in for the `vscode` module, enough to activate the bundled extension in plain
// Node: VS Code itself cannot run here. It records what the extension and
// vscode-languageclient do (commands, messages, diagnostics, output, progress, the
// clipboard, the documents shown, the webview panels) for the smoke test. `file:`
// documents are read from disk; documents of other schemes open through their content
// provider, and load again when it says they changed, as in VS Code. A webview panel keeps
// its html and options; `panel.webview.receive(message)` stands for the page's
// `postMessage` and resolves once the extension's listeners have handled it. Anything it does not model is a harmless no-op that returns a disposable.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** A callable, constructible no-op: every property is another one, calls return one. */
function anything(name, unknown) {
    const fn = function () {};
    return new Proxy(fn, {
        get(_target, prop) {
            if (prop === 'then') {
                return undefined; // not a promise
            }
            if (prop === Symbol.toPrimitive) {
                return () => 0;
            }
            if (prop === 'dispose') {
                return () => {};
            }
            const child = `${name}.${String(prop)}`;
            unknown.add(child);
            return anything(child, unknown);
        },
        apply: () => anything(`${name}()`, unknown),
        construct: () => anything(`new ${name}`, unknown),
    });
}

/** Wraps a namespace so that missing members become no-ops (and are noted). */
function lenient(name, target, unknown) {
    return new Proxy(target, {
        get(t, prop) {
            if (prop in t || typeof prop === 'symbol') {
                return t[prop];
            }
            unknown.add(`${name}.${String(prop)}`);
            return anything(`${name}.${String(prop)}`, unknown);
        },
    });
}

class Disposable {
    constructor(fn) {
        this.fn = fn;
    }
    static from(...items) {
        return new Disposable(() => items.forEach((i) => i?.dispose?.()));
    }
    dispose() {
        this.fn?.();
        this.fn = undefined;
    }
}

class EventEmitter {
    listeners = new Set();
    event = (listener, thisArg, disposables) => {
        const bound = thisArg ? listener.bind(thisArg) : listener;
        this.listeners.add(bound);
        const d = new Disposable(() => this.listeners.delete(bound));
        disposables?.push(d);
        return d;
    };
    fire(value) {
        for (const l of [...this.listeners]) {
            l(value);
        }
    }
    dispose() {
        this.listeners.clear();
    }
}

class Uri {
    constructor(scheme, authority, p, query, fragment) {
        Object.assign(this, { scheme, authority, path: p, query, fragment });
    }
    static parse(value) {
        const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(value);
        if (!m) {
            throw new Error(`bad uri ${value}`);
        }
        return new Uri(m[1], m[2] ?? '', decodeURIComponent(m[3]), m[4] ?? '', m[5] ?? '');
    }
    static file(p) {
        return new Uri('file', '', path.resolve(p), '', '');
    }
    get fsPath() {
        return this.path;
    }
    with(change) {
        return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
    }
    toString(skipEncoding) {
        const p = skipEncoding ? this.path : encodeURI(this.path);
        const auth = this.authority || this.scheme === 'file' ? `//${this.authority}` : '';
        return `${this.scheme}:${auth}${p}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
    }
    toJSON() {
        return { $mid: 1, scheme: this.scheme, path: this.path };
    }
}

class Position {
    constructor(line, character) {
        this.line = line;
        this.character = character;
    }
}

class Range {
    constructor(a, b, c, d) {
        if (typeof a === 'number') {
            this.start = new Position(a, b);
            this.end = new Position(c, d);
        } else {
            this.start = a;
            this.end = b;
        }
    }
}

class Location {
    constructor(uri, range) {
        this.uri = uri;
        this.range = range;
    }
}

class Diagnostic {
    constructor(range, message, severity) {
        Object.assign(this, { range, message, severity });
    }
}

class DiagnosticRelatedInformation {
    constructor(location, message) {
        this.location = location;
        this.message = message;
    }
}

class MarkdownString {
    constructor(value = '') {
        this.value = value;
    }
    appendMarkdown(v) {
        this.value += v;
        return this;
    }
    appendText(v) {
        this.value += v;
        return this;
    }
    appendCodeblock(v) {
        this.value += `\n\`\`\`\n${v}\n\`\`\`\n`;
        return this;
    }
}

class Hover {
    constructor(contents, range) {
        this.contents = Array.isArray(contents) ? contents : [contents];
        this.range = range;
    }
}

class CodeLens {
    constructor(range, command) {
        this.range = range;
        this.command = command;
    }
}

class CancellationTokenSource {
    cancelled = new EventEmitter();
    token = { isCancellationRequested: false, onCancellationRequested: this.cancelled.event };
    cancel() {
        if (!this.token.isCancellationRequested) {
            this.token.isCancellationRequested = true;
            this.cancelled.fire();
        }
    }
    dispose() {
        this.cancelled.dispose();
    }
}

/** A TestItemCollection: items by id, in the order added. */
class TestItemCollection {
    map = new Map();
    get size() {
        return this.map.size;
    }
    add(item) {
        this.map.set(item.id, item);
    }
    get(id) {
        return this.map.get(id);
    }
    delete(id) {
        this.map.delete(id);
    }
    replace(items) {
        this.map = new Map(items.map((i) => [i.id, i]));
    }
    forEach(fn) {
        this.map.forEach((item) => fn(item, this));
    }
    [Symbol.iterator]() {
        return this.map.entries();
    }
}

class TestTag {
    constructor(id) {
        this.id = id;
    }
}

class TestMessage {
    constructor(message) {
        this.message = message;
    }
}

class TestRunRequest {
    constructor(include, exclude, profile) {
        Object.assign(this, { include, exclude, profile });
    }
}

/**
 * The Testing API: controllers with their items, run profiles and runs. A run records what
 * the extension reports of each item (`events`: `[kind, itemId, detail]`), its output, and
 * whether it ended.
 */
function testing(record) {
    return {
        createTestController(id, label) {
            const controller = {
                id,
                label,
                items: new TestItemCollection(),
                profiles: [],
                runs: [],
                invalidated: [],
                refreshHandler: undefined,
                createTestItem(itemId, itemLabel, uri) {
                    return { id: itemId, label: itemLabel, uri, children: new TestItemCollection(), tags: [], range: undefined, description: undefined, sortText: undefined };
                },
                createRunProfile(profileLabel, kind, runHandler, isDefault) {
                    const profile = { label: profileLabel, kind, runHandler, isDefault: isDefault === true, dispose() {} };
                    controller.profiles.push(profile);
                    return profile;
                },
                createTestRun(request, name, persist) {
                    const run = { request, name, persist, events: [], output: [], ended: false };
                    const event = (kind) => (item, detail) => run.events.push([kind, item.id, detail]);
                    Object.assign(run, {
                        enqueued: event('enqueued'),
                        started: event('started'),
                        passed: event('passed'),
                        failed: event('failed'),
                        skipped: event('skipped'),
                        errored: event('errored'),
                        appendOutput: (text, _location, item) => run.output.push([item?.id, text]),
                        end: () => {
                            run.ended = true;
                        },
                    });
                    controller.runs.push(run);
                    return run;
                },
                invalidateTestResults(items) {
                    controller.invalidated.push(items);
                },
                dispose() {
                    record.testControllers.delete(id);
                },
            };
            record.testControllers.set(id, controller);
            return controller;
        },
    };
}

/** A text document as VS Code hands it out; `setText` stands for VS Code loading it again. */
export function textDocument(uri, languageId, text, version = 1) {
    let lines = text.split('\n');
    const doc = {
        uri,
        fileName: uri.fsPath,
        languageId,
        version,
        isClosed: false,
        isDirty: false,
        isUntitled: false,
        lineCount: lines.length,
        eol: 1,
        getText: () => text,
        lineAt: (n) => ({ text: lines[typeof n === 'number' ? n : n.line] }),
        setText(next) {
            text = next;
            lines = text.split('\n');
            doc.lineCount = lines.length;
            doc.version++;
        },
    };
    return doc;
}

/**
 * Makes a fresh `vscode` stand-in. `settings` holds dotted keys (`racelens.server.path`);
 * the package.json defaults fill in the rest. `workspaceFolder` is a path or undefined.
 */
export function createVscode(settings, defaults, workspaceFolder, { trusted = true } = {}) {
    const unknown = new Set();
    const record = {
        commands: new Map(),
        messages: [],
        output: [],
        diagnostics: new Map(),
        contentProviders: new Map(),
        codeLensProviders: [],
        hoverProviders: [],
        /** withProgress options, in order (`location`, `title`, `cancellable`), and `cancel()`. */
        progress: [],
        /** Documents shown in an editor: `{ uri, options }`. */
        shown: [],
        /** Webview panels created: `{ viewType, title, showOptions, options, webview: { html, ... }, disposed }`. */
        webviews: [],
        clipboard: '',
        /** Test controllers by id (the Testing API: `testing()`). */
        testControllers: new Map(),
        /** Status bar items by id: `{ text, tooltip, command, visible }`. */
        statusItems: new Map(),
        /** Quick picks shown (`{ items, options }`); the answer is `pickAnswer(items)`. */
        quickPicks: [],
        pickAnswer: () => undefined,
        /** Input boxes shown (their options); the answer is `inputAnswer(options)`. */
        inputBoxes: [],
        inputAnswer: () => undefined,
        unknown,
    };
    const values = { ...defaults, ...settings };

    const events = {
        config: new EventEmitter(),
        open: new EventEmitter(),
        close: new EventEmitter(),
        change: new EventEmitter(),
        save: new EventEmitter(),
        trust: new EventEmitter(),
    };

    function configuration(section) {
        const full = (key) => (section ? `${section}.${key}` : key);
        const lookup = (key) => {
            const k = full(key);
            if (k in values) {
                return values[k];
            }
            // A prefix: the nested object of everything below it.
            const nested = {};
            let found = false;
            for (const [dotted, v] of Object.entries(values)) {
                if (dotted.startsWith(`${k}.`)) {
                    found = true;
                    const parts = dotted.slice(k.length + 1).split('.');
                    let cur = nested;
                    for (const p of parts.slice(0, -1)) {
                        cur = cur[p] ??= {};
                    }
                    cur[parts.at(-1)] = v;
                }
            }
            return found ? nested : undefined;
        };
        return {
            get: (key, def) => lookup(key) ?? def,
            has: (key) => lookup(key) !== undefined,
            inspect: (key) => ({ key: full(key), defaultValue: defaults[full(key)] }),
            update: async () => {},
        };
    }

    const selectorMatches = (selector, doc) =>
        (Array.isArray(selector) ? selector : [selector]).some((f) =>
            typeof f === 'string'
                ? f === doc.languageId
                : (f.language === undefined || f.language === doc.languageId) && (f.scheme === undefined || f.scheme === doc.uri.scheme),
        );

    const outputChannel = (name) =>
        lenient(`OutputChannel(${name})`, {
            name,
            append: (v) => record.output.push(v),
            appendLine: (v) => record.output.push(`${v}\n`),
            replace: () => {},
            clear: () => {},
            show: () => {},
            hide: () => {},
            dispose: () => {},
        }, unknown);

    const textDocuments = [];

    /** Opens a document: the one already open, else from its scheme's content provider. */
    async function openTextDocument(uri) {
        const open = textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (open !== undefined) {
            return open;
        }
        if (uri.scheme === 'file') {
            const doc = textDocument(uri, uri.path.endsWith('.java') ? 'java' : 'plaintext', fs.readFileSync(uri.fsPath, 'utf8'));
            openDocument(doc);
            return doc;
        }
        const provider = record.contentProviders.get(uri.scheme);
        if (provider === undefined) {
            throw new Error(`cannot open ${uri.toString()}: no content provider for ${uri.scheme}`);
        }
        const text = await provider.provideTextDocumentContent(uri, new CancellationTokenSource().token);
        const doc = textDocument(uri, 'plaintext', text);
        openDocument(doc);
        return doc;
    }

    /** A content provider said `uri` changed: load it again if it is open. */
    async function reload(scheme, uri) {
        const doc = textDocuments.find((d) => d.uri.toString() === uri.toString());
        if (doc !== undefined) {
            const provider = record.contentProviders.get(scheme);
            doc.setText(await provider.provideTextDocumentContent(uri, new CancellationTokenSource().token));
        }
    }

    const vscode = {
        version: '1.82.0',
        Uri,
        Position,
        Range,
        Location,
        Diagnostic,
        DiagnosticRelatedInformation,
        MarkdownString,
        Hover,
        CodeLens,
        Disposable,
        EventEmitter,
        CancellationTokenSource,
        CancellationError: class CancellationError extends Error {},
        DiagnosticSeverity: { Error: 0, Warning: 1, Information: 2, Hint: 3 },
        DiagnosticTag: { Unnecessary: 1, Deprecated: 2 },
        ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
        ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
        StatusBarAlignment: { Left: 1, Right: 2 },
        TestRunProfileKind: { Run: 1, Debug: 2, Coverage: 3 },
        ThemeColor: class ThemeColor {
            constructor(id) {
                this.id = id;
            }
        },
        TestTag,
        TestMessage,
        TestRunRequest,
        tests: testing(record),
        env: lenient('env', {
            language: 'en',
            appName: 'stub',
            machineId: 'stub',
            sessionId: 'stub',
            openExternal: async () => true,
            clipboard: {
                readText: async () => record.clipboard,
                writeText: async (text) => {
                    record.clipboard = text;
                },
            },
        }, unknown),
        commands: lenient('commands', {
            registerCommand(id, fn) {
                if (record.commands.has(id)) {
                    // VS Code refuses a second registration of the same id.
                    throw new Error(`command '${id}' already exists`);
                }
                record.commands.set(id, fn);
                return new Disposable(() => record.commands.delete(id));
            },
            executeCommand: async (id, ...args) => record.commands.get(id)?.(...args),
            getCommands: async () => [...record.commands.keys()],
        }, unknown),
        window: lenient('window', {
            createOutputChannel: outputChannel,
            showErrorMessage: async (message, ...items) => {
                record.messages.push({ kind: 'error', message, items });
                return undefined;
            },
            showWarningMessage: async (message, ...items) => {
                record.messages.push({ kind: 'warning', message, items });
                return undefined;
            },
            showInformationMessage: async (message, ...items) => {
                record.messages.push({ kind: 'info', message, items });
                return undefined;
            },
            createStatusBarItem(id, alignment, priority) {
                const item = { id, alignment, priority, text: '', tooltip: undefined, command: undefined, name: undefined, visible: false };
                item.show = () => {
                    item.visible = true;
                };
                item.hide = () => {
                    item.visible = false;
                };
                item.dispose = () => {
                    record.statusItems.delete(id);
                };
                record.statusItems.set(id, item);
                return item;
            },
            showQuickPick: async (items, options) => {
                record.quickPicks.push({ items, options });
                return record.pickAnswer(items);
            },
            showInputBox: async (options) => {
                record.inputBoxes.push(options);
                return record.inputAnswer(options);
            },
            withProgress: async (options, task) => {
                // `cancel()` is the Cancel button of a cancellable notification.
                const source = new CancellationTokenSource();
                record.progress.push({ ...options, cancel: () => source.cancel() });
                return task({ report: () => {} }, source.token);
            },
            showTextDocument: async (target, options) => {
                const doc = target instanceof Uri ? await openTextDocument(target) : target;
                record.shown.push({ uri: doc.uri, options });
                return { document: doc };
            },
            createWebviewPanel(viewType, title, showOptions, options) {
                const messages = new EventEmitter();
                const disposed = new EventEmitter();
                const listeners = [];
                const panel = {
                    viewType,
                    title,
                    showOptions,
                    options,
                    disposed: false,
                    reveals: 0,
                    webview: {
                        html: '',
                        options,
                        cspSource: 'vscode-webview:',
                        onDidReceiveMessage(listener, thisArg, disposables) {
                            const bound = thisArg ? listener.bind(thisArg) : listener;
                            listeners.push(bound);
                            return messages.event(bound, undefined, disposables);
                        },
                        postMessage: async () => true,
                        asWebviewUri: (uri) => uri,
                        /** The page posts `message`: resolves when every listener is done. */
                        receive: (message) => Promise.all(listeners.map((l) => l(message))),
                    },
                    reveal() {
                        panel.reveals++;
                    },
                    onDidDispose: disposed.event,
                    dispose() {
                        panel.disposed = true;
                        disposed.fire();
                    },
                };
                record.webviews.push(panel);
                return panel;
            },
            activeTextEditor: undefined,
            visibleTextEditors: [],
            onDidChangeActiveTextEditor: new EventEmitter().event,
            onDidChangeVisibleTextEditors: new EventEmitter().event,
        }, unknown),
        workspace: lenient('workspace', {
            workspaceFolders: workspaceFolder ? [{ uri: Uri.file(workspaceFolder), name: path.basename(workspaceFolder), index: 0 }] : undefined,
            textDocuments,
            isTrusted: trusted,
            onDidGrantWorkspaceTrust: events.trust.event,
            openTextDocument,
            getConfiguration: configuration,
            getWorkspaceFolder: () => undefined,
            onDidChangeConfiguration: events.config.event,
            onDidOpenTextDocument: events.open.event,
            onDidCloseTextDocument: events.close.event,
            onDidChangeTextDocument: events.change.event,
            onDidSaveTextDocument: events.save.event,
            onWillSaveTextDocument: new EventEmitter().event,
            onDidChangeWorkspaceFolders: new EventEmitter().event,
            registerTextDocumentContentProvider(scheme, provider) {
                record.contentProviders.set(scheme, provider);
                const changes = provider.onDidChange?.((uri) => void reload(scheme, uri));
                return new Disposable(() => {
                    changes?.dispose();
                    record.contentProviders.delete(scheme);
                });
            },
        }, unknown),
        languages: lenient('languages', {
            match: (selector, doc) => (selectorMatches(selector, doc) ? 10 : 0),
            createDiagnosticCollection: (name) => ({
                name,
                set(uri, diags) {
                    record.diagnostics.set(uri.toString(), diags ?? []);
                },
                delete(uri) {
                    record.diagnostics.delete(uri.toString());
                },
                clear() {
                    record.diagnostics.clear();
                },
                get: (uri) => record.diagnostics.get(uri.toString()),
                forEach() {},
                has: (uri) => record.diagnostics.has(uri.toString()),
                dispose() {},
            }),
            registerCodeLensProvider(selector, provider) {
                record.codeLensProviders.push({ selector, provider });
                return new Disposable();
            },
            registerHoverProvider(selector, provider) {
                record.hoverProviders.push({ selector, provider });
                return new Disposable();
            },
            setTextDocumentLanguage: async (doc, languageId) => {
                doc.languageId = languageId;
                return doc;
            },
        }, unknown),
    };

    /** Opens a document as VS Code would (it joins workspace.textDocuments, then the event). */
    function openDocument(doc) {
        textDocuments.push(doc);
        events.open.fire(doc);
    }

    /** Changes a setting as the Settings editor would (then the change event). */
    function setSetting(key, value) {
        values[key] = value;
        events.config.fire({ affectsConfiguration: (section) => key === section || key.startsWith(`${section}.`) });
    }

    /** The user trusts the workspace (as in the Restricted Mode banner). */
    function grantTrust() {
        vscode.workspace.isTrusted = true;
        events.trust.fire();
    }

    const root = lenient('vscode', vscode, unknown);
    return { vscode: root, record, openDocument, setSetting, grantTrust, events };
}
