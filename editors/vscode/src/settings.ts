// The `racelens` settings as the server wants them: a nested JSON object
// (`java.sourceRoots` -> `{ java: { sourceRoots: [...] } }`), without the client-only
// keys and without empty values, which mean "not set" (let the server detect or default).
// Settings that run project code by themselves (`explore.onSave`) are sent as off until
// the user trusts the workspace.

import * as vscode from 'vscode';

export const SECTION = 'racelens';

/** The keys the server reads (see editors/README.md), relative to `racelens`. */
export const SERVER_KEYS = [
    'base',
    'java.sourceRoots',
    'java.classpath',
    'analysis.exclude',
    'analysis.jdkSources',
    'diagnostics.hints',
    'codeLens.enable',
    'explore.onSave',
    'explore.parallel',
    'explore.heuristic',
    'explore.bound',
    'explore.maxSchedules',
] as const;

/**
 * Settings that make the server run the project's code without a click: off in a
 * workspace the user has not trusted (package.json also lists them in
 * `capabilities.untrustedWorkspaces.restrictedConfigurations`, which only covers values
 * set in the workspace itself, not the user's own settings).
 */
export const TRUST_REQUIRED: readonly (typeof SERVER_KEYS)[number][] = ['explore.onSave'];

export type Json = null | boolean | number | string | Json[] | JsonObject;
// An interface, not a Record: a recursive type alias cannot go through Record.
export interface JsonObject {
    [key: string]: Json;
}

/** True for values that stand for "not set": undefined, null, blank strings, empty arrays. */
export function isUnset(value: unknown): boolean {
    return (
        value === undefined ||
        value === null ||
        (typeof value === 'string' && value.trim() === '') ||
        (Array.isArray(value) && value.length === 0)
    );
}

/** Stores `value` under a dotted key, creating the intermediate objects. */
export function setNested(target: JsonObject, dottedKey: string, value: Json): void {
    const parts = dottedKey.split('.');
    let current = target;
    for (const part of parts.slice(0, -1)) {
        const next = current[part];
        if (next === undefined || next === null || typeof next !== 'object' || Array.isArray(next)) {
            const created: JsonObject = {};
            current[part] = created;
            current = created;
        } else {
            current = next;
        }
    }
    const last = parts[parts.length - 1];
    if (last !== undefined) {
        current[last] = value;
    }
}

/** Reads a nested value by dotted key, or undefined. */
export function getNested(source: JsonObject, dottedKey: string): Json | undefined {
    let current: Json | undefined = source;
    for (const part of dottedKey.split('.')) {
        if (current === null || current === undefined || typeof current !== 'object' || Array.isArray(current)) {
            return undefined;
        }
        current = current[part];
    }
    return current;
}

/** Copies a configuration value into plain JSON (VS Code returns frozen proxies). */
function toJson(value: unknown): Json {
    return JSON.parse(JSON.stringify(value)) as Json;
}

/** The current `racelens` settings for `scope` (a file or folder URI, or the workspace). */
export function readSettings(scope?: vscode.ConfigurationScope): JsonObject {
    const config = vscode.workspace.getConfiguration(SECTION, scope);
    const result: JsonObject = {};
    for (const key of SERVER_KEYS) {
        const value = config.get<unknown>(key);
        if (!isUnset(value)) {
            setNested(result, key, toJson(value));
        }
    }
    if (!vscode.workspace.isTrusted) {
        for (const key of TRUST_REQUIRED) {
            setNested(result, key, false);
        }
    }
    return result;
}

/**
 * The answer to one `workspace/configuration` item for a section under `racelens`
 * (`racelens` itself or e.g. `racelens.java`), or undefined for other sections.
 */
export function settingsForSection(section: string, scope?: vscode.ConfigurationScope): Json | undefined {
    if (section === SECTION) {
        return readSettings(scope);
    }
    if (section.startsWith(`${SECTION}.`)) {
        return getNested(readSettings(scope), section.slice(SECTION.length + 1)) ?? null;
    }
    return undefined;
}
