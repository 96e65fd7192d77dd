// Finds the racelens binary: the `racelens.server.path` setting, else the binary bundled in
// a platform package (`server/racelens` inside the extension), else `racelens` on PATH, else
// in Cargo's bin directory, where `cargo install` puts it.

import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

export type ServerSource = 'setting' | 'PATH' | 'cargo' | 'bundled';

export interface FoundServer {
    readonly kind: 'found';
    readonly command: string;
    readonly source: ServerSource;
}

export interface MissingServer {
    readonly kind: 'missing';
    /** The expanded `racelens.server.path`, when it is set but not an executable file. */
    readonly configured?: string;
    /** Every place that was looked at, in order. */
    readonly searched: readonly string[];
}

export type ServerLookup = FoundServer | MissingServer;

export interface LookupInput {
    /** The raw `racelens.server.path` setting ('' when unset). */
    readonly setting: string;
    /** The first workspace folder's path, for `${workspaceFolder}` and relative paths. */
    readonly workspaceFolder?: string;
    /** The extension's install directory (for `server/racelens`). */
    readonly extensionPath: string;
    readonly env?: NodeJS.ProcessEnv;
    readonly platform?: NodeJS.Platform;
    readonly homedir?: string;
}

/** Expands `~`, `${userHome}` and `${workspaceFolder}`; resolves relative paths against the workspace folder. */
export function expandPath(raw: string, workspaceFolder: string | undefined, homedir: string): string {
    let p = raw.trim();
    if (p === '~') {
        p = homedir;
    } else if (p.startsWith('~/') || p.startsWith('~\\')) {
        p = path.join(homedir, p.slice(2));
    }
    p = p.replace(/\$\{userHome\}/g, homedir);
    if (workspaceFolder !== undefined) {
        p = p.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
    }
    if (!path.isAbsolute(p) && workspaceFolder !== undefined) {
        p = path.resolve(workspaceFolder, p);
    }
    return p;
}

/** The value of PATH (its key is `Path` on Windows, in any case). */
function pathVariable(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string {
    if (platform === 'win32') {
        const key = Object.keys(env).find((k) => k.toUpperCase() === 'PATH');
        return key !== undefined ? (env[key] ?? '') : '';
    }
    return env.PATH ?? '';
}

/** The folder of a platform package that holds the server binary. */
export const BUNDLED_DIR = 'server';

export function executableNames(platform: NodeJS.Platform): string[] {
    return platform === 'win32' ? ['racelens.exe', 'racelens'] : ['racelens'];
}

/** True if `file` is a regular file that may be executed. */
export async function isExecutableFile(file: string, platform: NodeJS.Platform = process.platform): Promise<boolean> {
    try {
        const stat = await fs.stat(file);
        if (!stat.isFile()) {
            return false;
        }
        if (platform !== 'win32') {
            await fs.access(file, fs.constants.X_OK);
        }
        return true;
    } catch {
        return false;
    }
}

/** Looks for the server binary; never throws. */
export async function findServer(input: LookupInput): Promise<ServerLookup> {
    const env = input.env ?? process.env;
    const platform = input.platform ?? process.platform;
    const homedir = input.homedir ?? os.homedir();
    const delimiter = platform === 'win32' ? ';' : ':';
    const paths = platform === 'win32' ? path.win32 : path.posix;
    const names = executableNames(platform);
    const searched: string[] = [];

    if (input.setting.trim() !== '') {
        const configured = expandPath(input.setting, input.workspaceFolder, homedir);
        if (await isExecutableFile(configured, platform)) {
            return { kind: 'found', command: configured, source: 'setting' };
        }
        // An explicit setting that points nowhere is an error to fix, not a reason to
        // silently run some other racelens.
        return { kind: 'missing', configured, searched: [configured] };
    }

    // The bundled binary first: a platform package was built for this very extension.
    const candidates: { file: string; source: ServerSource }[] = names.map((name) => ({
        file: paths.join(input.extensionPath, BUNDLED_DIR, name),
        source: 'bundled',
    }));
    for (const dir of pathVariable(env, platform).split(delimiter)) {
        const cleaned = dir.trim().replace(/^"(.*)"$/, '$1');
        if (cleaned === '') {
            continue;
        }
        for (const name of names) {
            candidates.push({ file: paths.join(cleaned, name), source: 'PATH' });
        }
    }
    const cargoHome = env.CARGO_HOME !== undefined && env.CARGO_HOME !== '' ? env.CARGO_HOME : paths.join(homedir, '.cargo');
    for (const name of names) {
        candidates.push({ file: paths.join(cargoHome, 'bin', name), source: 'cargo' });
    }

    for (const candidate of candidates) {
        searched.push(candidate.file);
        if (await isExecutableFile(candidate.file, platform)) {
            return { kind: 'found', command: candidate.file, source: candidate.source };
        }
    }
    return { kind: 'missing', searched };
}

export type ProbeResult = { readonly ok: true } | { readonly ok: false; readonly detail: string };

/**
 * Runs `<command> lsp --help` to check, before the language client starts, that the
 * binary runs here and knows the `lsp` command (an older racelens does not). Its error
 * output makes a far better message than a connection that closed during initialize.
 */
export function probeServer(command: string, timeoutMs = 10_000): Promise<ProbeResult> {
    return new Promise((resolve) => {
        execFile(command, ['lsp', '--help'], { timeout: timeoutMs, windowsHide: true }, (error, _stdout, stderr) => {
            if (error === null) {
                resolve({ ok: true });
                return;
            }
            const firstLines = stderr.trim().split(/\r?\n/).slice(0, 3).join(' ').trim();
            const code = typeof error.code === 'number' ? `exit status ${error.code}` : (error.code ?? error.message);
            resolve({ ok: false, detail: firstLines !== '' ? `${firstLines} (${code})` : error.message });
        });
    });
}

/** How to get a working server, for error messages. */
export const INSTALL_HINT =
    'Install the platform package of the extension (racelens-linux-x64.vsix), which carries it; or install racelens ' +
    'from its repository with `cargo install --path server/cli` (it goes to ~/.cargo/bin), or set `racelens.server.path` to the `racelens` binary.';

/** The message shown when no binary was found. */
export function missingServerMessage(lookup: MissingServer): string {
    if (lookup.configured !== undefined) {
        return (
            `racelens: \`racelens.server.path\` points to ${lookup.configured}, which is not an executable file. ` +
            'Fix the setting (or clear it to use `racelens` from PATH), or build the server with ' +
            '`cargo install --path server/cli` from the racelens repository.'
        );
    }
    return `racelens: the language server \`racelens\` was not found in the extension, on PATH or in ~/.cargo/bin. ${INSTALL_HINT}`;
}
