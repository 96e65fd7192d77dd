// Smoke test of the bundled extension (out/extension.js) in plain Node, with a stand-in
// for the `vscode` module (VS Code itself cannot be run here). It activates the extension
// as VS Code would and checks the three ways a start can go: no binary, a binary that
// exits at once, and the real `racelens lsp` (RACELENS_BIN, default
// ../../target/debug/racelens), whose warnings must reach the diagnostics collection.
//
// Run after `npm run build`: `npm run smoke`.

import { after, afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createVscode, textDocument } from './vscode-stub.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionRoot = path.resolve(here, '..');
const bundle = path.join(extensionRoot, 'out', 'extension.js');
const repoRoot = path.resolve(extensionRoot, '../..');
const serverBin = path.resolve(extensionRoot, process.env.RACELENS_BIN ?? '../../target/debug/racelens');
const fixture = path.join(repoRoot, 'tests/fixtures/object-pool');

const manifest = JSON.parse(fs.readFileSync(path.join(extensionRoot, 'package.json'), 'utf8'));
const defaults = Object.fromEntries(
    Object.entries(manifest.contributes.configuration.properties).map(([key, schema]) => [key, schema.default]),
);

// Hand the stand-in to `require('vscode')` inside the bundle.
let stub;
const load = Module._load;
Module._load = function (request, parent, isMain) {
    if (request === 'vscode') {
        return stub.vscode;
    }
    return load.call(this, request, parent, isMain);
};
const require = createRequire(import.meta.url);

const temps = [];
let extension;

function tempDir() {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'racelens-vscode-')));
    temps.push(dir);
    return dir;
}

function context(state = new Map()) {
    return {
        subscriptions: [],
        extensionPath: extensionRoot,
        extensionUri: stub.vscode.Uri.file(extensionRoot),
        asAbsolutePath: (p) => path.join(extensionRoot, p),
        globalState: { get: (k) => state.get(k), update: async (k, v) => void state.set(k, v), keys: () => [...state.keys()] },
        workspaceState: { get: () => undefined, update: async () => {}, keys: () => [] },
    };
}

/** Loads a fresh copy of the bundle with a fresh stand-in, and activates it. */
function activate(settings, workspaceFolder, state) {
    assert.ok(fs.existsSync(bundle), `no ${bundle}: run npm run build first`);
    stub = createVscode(settings, defaults, workspaceFolder);
    delete require.cache[bundle];
    extension = require(bundle);
    const ctx = context(state);
    extension.activate(ctx);
    return ctx;
}

async function until(what, predicate, ms = 20_000) {
    const deadline = Date.now() + ms;
    while (!predicate()) {
        if (Date.now() > deadline) {
            assert.fail(`timed out waiting for ${what}\n--- messages: ${JSON.stringify(stub.record.messages, null, 1)}\n--- output:\n${stub.record.output.join('').slice(-4000)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
    }
}

afterEach(async () => {
    await extension?.deactivate();
    extension = undefined;
});

after(() => {
    Module._load = load;
    for (const dir of temps) {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});

describe('racelens extension (bundled, with a vscode stand-in)', () => {
    test('no binary: an error that says how to install it, with Open Settings and Retry', async () => {
        activate({ 'racelens.server.path': '/nonexistent/racelens' });
        await until('an error message', () => stub.record.messages.some((m) => m.kind === 'error'));
        const error = stub.record.messages.find((m) => m.kind === 'error');
        assert.match(error.message, /racelens\.server\.path/);
        assert.match(error.message, /\/nonexistent\/racelens/);
        assert.match(error.message, /cargo install --path server\/cli/);
        assert.ok(error.items.includes('Open Settings') && error.items.includes('Retry'), JSON.stringify(error.items));
        assert.ok(stub.record.commands.has('racelens.restartServer'));
        assert.ok(!stub.record.commands.has('racelens.exploreTest'), 'the extension must not register racelens.exploreTest itself');
    });

    test('a racelens without the lsp command: an error that quotes it, with the fix', async () => {
        const dir = tempDir();
        const fake = path.join(dir, 'racelens');
        fs.writeFileSync(fake, "#!/bin/sh\necho \"error: unrecognized subcommand '$1'\" >&2\nexit 2\n", { mode: 0o755 });
        activate({ 'racelens.server.path': fake });
        await until('an error message', () => stub.record.messages.some((m) => m.kind === 'error'));
        const error = stub.record.messages.find((m) => m.kind === 'error');
        assert.match(error.message, /racelens lsp --help/);
        assert.match(error.message, /unrecognized subcommand 'lsp'/);
        assert.match(error.message, /exit status 2/);
        assert.match(error.message, /cargo install --path server\/cli/);
        assert.ok(error.items.includes('Open Settings') && error.items.includes('Retry'), JSON.stringify(error.items));
    });

    test('a file that is not executable: an error with the fix', async () => {
        const dir = tempDir();
        const fake = path.join(dir, 'racelens');
        fs.writeFileSync(fake, 'not a program\n', { mode: 0o644 });
        activate({ 'racelens.server.path': fake });
        await until('an error message', () => stub.record.messages.some((m) => m.kind === 'error'));
        assert.match(stub.record.messages[0].message, /not an executable file/);
    });

    test('no JDK: one warning that names the package, and only once', async () => {
        const saved = { PATH: process.env.PATH, JAVA_HOME: process.env.JAVA_HOME };
        process.env.PATH = '/nonexistent';
        delete process.env.JAVA_HOME;
        try {
            const state = new Map();
            activate({ 'racelens.server.path': '/nonexistent/racelens' }, undefined, state);
            await until('a warning', () => stub.record.messages.some((m) => m.kind === 'warning'));
            const warning = stub.record.messages.find((m) => m.kind === 'warning');
            assert.match(warning.message, /JDK 17/);
            assert.match(warning.message, /openjdk-17-jdk-headless/);
            assert.match(warning.message, /analysis works without it/);
            await extension.deactivate();
            activate({ 'racelens.server.path': '/nonexistent/racelens' }, undefined, state);
            await until('the server error', () => stub.record.messages.some((m) => m.kind === 'error'));
            await new Promise((resolve) => setTimeout(resolve, 200));
            assert.deepEqual(stub.record.messages.filter((m) => m.kind === 'warning'), []);
        } finally {
            process.env.PATH = saved.PATH;
            if (saved.JAVA_HOME !== undefined) {
                process.env.JAVA_HOME = saved.JAVA_HOME;
            }
        }
    });

    test('~ and ${workspaceFolder} are expanded in racelens.server.path', async () => {
        const dir = tempDir();
        activate({ 'racelens.server.path': '${workspaceFolder}/bin/racelens' }, dir);
        await until('an error message', () => stub.record.messages.some((m) => m.kind === 'error'));
        assert.ok(stub.record.messages[0].message.includes(path.join(dir, 'bin/racelens')), stub.record.messages[0].message);
    });

    test('the real server: diagnostics, code lens command, racelens: documents, settings', { skip: !fs.existsSync(serverBin) && `no server at ${serverBin}` }, async () => {
        const repo = tempDir();
        fs.cpSync(path.join(fixture, 'base'), repo, { recursive: true });
        const git = (...args) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
        git('init', '-q');
        git('add', '-A');
        git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'base');
        git('apply', path.join(fixture, 'change.patch'));

        activate(
            {
                'racelens.server.path': serverBin,
                'racelens.trace.server': 'verbose',
                'racelens.analysis.exclude': ['**/generated/**'],
            },
            repo,
        );
        // vscode-languageclient registers the server's commands once it is initialized.
        await until('racelens.exploreTest to be registered', () => stub.record.commands.has('racelens.exploreTest'));
        assert.ok(stub.record.commands.has('racelens.restartServer'));

        const { Uri } = stub.vscode;
        const file = path.join(repo, 'src/main/java/org/example/pool/ObjectPool.java');
        const uri = Uri.file(file);
        stub.openDocument(textDocument(uri, 'java', fs.readFileSync(file, 'utf8')));
        await until('RL001 in the diagnostics collection', () =>
            (stub.record.diagnostics.get(uri.toString()) ?? []).some((d) => d.code?.value === 'RL001'),
        );
        const diagnostic = stub.record.diagnostics.get(uri.toString()).find((d) => d.code.value === 'RL001' && d.range.start.line === 57);
        assert.ok(diagnostic, 'RL001 on line 57');
        assert.equal(diagnostic.severity, stub.vscode.DiagnosticSeverity.Warning);
        assert.equal(diagnostic.source, 'racelens');
        assert.equal(diagnostic.code.target.toString(), 'racelens:/codes/RL001');
        assert.ok(diagnostic.relatedInformation.length > 0);

        // The explanation behind the code's link, through the content provider.
        const provider = stub.record.contentProviders.get('racelens');
        assert.ok(provider, 'a content provider for racelens:');
        const token = new stub.vscode.CancellationTokenSource().token;
        const text = await provider.provideTextDocumentContent(diagnostic.code.target, token);
        assert.match(text, /RL001/);

        // Code lenses through the client's provider, as the editor would ask.
        const testFile = path.join(repo, 'src/test/java/org/example/pool/ObjectPoolTest.java');
        const testDoc = textDocument(Uri.file(testFile), 'java', fs.readFileSync(testFile, 'utf8'));
        stub.openDocument(testDoc);
        const lensProvider = stub.record.codeLensProviders[0]?.provider;
        assert.ok(lensProvider, 'a code lens provider');
        const lenses = await lensProvider.provideCodeLenses(testDoc, token);
        const lens = lenses.find((l) => l.command?.command === 'racelens.exploreTest');
        assert.ok(lens, JSON.stringify(lenses));
        assert.match(lens.command.title, /^▶ Explore schedules/);

        // Settings went out nested, without empty values.
        // (The verbose protocol trace in the output channel shows what was sent.)
        let output = stub.record.output.join('');
        const nested = /\{\s*"base": "HEAD",\s*"analysis": \{\s*"exclude": \[\s*"\*\*\/generated\/\*\*"\s*\]\s*\},\s*"diagnostics": \{\s*"hints": true\s*\},\s*"codeLens": \{\s*"enable": true\s*\}\s*\}/;
        assert.match(output, new RegExp(`"initializationOptions": ${nested.source}`));
        assert.match(output, new RegExp(`Sending response 'workspace/configuration - \\(\\d+\\)'.*\\nResult: \\[\\s*${nested.source}`));
        assert.doesNotMatch(output, /"sourceRoots": \[\]/);

        // A changed setting goes to the server at once.
        stub.setSetting('racelens.diagnostics.hints', false);
        await until('didChangeConfiguration with hints off', () =>
            /Sending notification 'workspace\/didChangeConfiguration'.\nParams: \{\s*"settings": \{\s*"racelens": \{[^]*?"hints": false/.test(stub.record.output.join('')),
        );
        output = stub.record.output.join('');
        assert.doesNotMatch(output, /"server": \{/, 'client-only settings stay in the client');

        // racelens: Restart Server brings it back, open documents included.
        stub.record.diagnostics.clear();
        await stub.record.commands.get('racelens.restartServer')();
        await until('RL001 again after the restart', () =>
            (stub.record.diagnostics.get(uri.toString()) ?? []).some((d) => d.code?.value === 'RL001'),
        );
        assert.ok(stub.record.commands.has('racelens.exploreTest'));

        assert.deepEqual(stub.record.messages.filter((m) => m.kind === 'error'), []);
    });
});
