// `racelens.exploreWith` (racelens: Explore a Test With a Heuristic or Seed…): explores a
// test again with a heuristic and a seed the user picks instead of the settings'. The test
// is the one whose lens is at or above the cursor in the active editor (the first of the
// file when the cursor is above them all); the command also takes a test's argument
// (`{uri, class, method}`, optionally with `heuristic` and `seed`, which skip the pickers),
// as a keybinding can pass it. The server checks what is sent; its error (an unknown
// heuristic) is shown here.

import * as vscode from 'vscode';
import { CodeLensRequest, ExecuteCommandRequest } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { SERVER_COMMANDS, type TestArgument } from './protocol';

export const EXPLORE_WITH_COMMAND = 'racelens.exploreWith';
const EXPLORE_COMMAND = SERVER_COMMANDS.explore;

/** The heuristics the server knows (server/explore/src/search/heuristics.rs and capp.rs), in
 * the order of the setting `racelens.explore.heuristic`. */
export const HEURISTICS: readonly { name: string; description: string }[] = [
    { name: 'basic', description: 'no prioritization: iterative context bounding, depth first' },
    { name: 'pair', description: 'preemptions before the accesses of impacted pairs first' },
    { name: 'pct', description: 'change-aware probabilistic concurrency testing' },
    { name: 'pct+LA', description: '10 schedules of change-aware PCT, then CAPP LA, with POS from five threads on (the default)' },
    { name: 'pos', description: 'partial-order sampling alone: random schedules, no claim' },
    { name: 'random', description: 'a random walk alone: random schedules, no claim' },
    // CAPP's fourteen (Table 1): a unit (class, class on the stack, method, ..., field), then A (all) or S (some).
    ...['C', 'CO', 'M', 'MO', 'L', 'LO', 'F'].flatMap((unit) => [
        { name: `${unit}A`, description: `CAPP ${unit}A: where every enabled thread is in impacted code` },
        { name: `${unit}S`, description: `CAPP ${unit}S: where some enabled thread is in impacted code` },
    ]),
];


function isTestArgument(value: unknown): value is TestArgument {
    const v = value as Record<string, unknown> | null;
    return typeof v === 'object' && v !== null && typeof v.class === 'string' && typeof v.method === 'string';
}

/** The tests of a document (one per test, from the server's lenses), with their lens's line. */
async function testsOf(client: LanguageClient, document: vscode.TextDocument): Promise<{ argument: TestArgument; line: number }[]> {
    const uri = client.code2ProtocolConverter.asUri(document.uri);
    const lenses = (await client.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
    const tests = new Map<string, { argument: TestArgument; line: number }>();
    for (const lens of lenses) {
        const argument: unknown = lens.command?.arguments?.[0];
        if (lens.command?.command === EXPLORE_COMMAND && isTestArgument(argument) && !tests.has(`${argument.class}#${argument.method}`)) {
            tests.set(`${argument.class}#${argument.method}`, { argument, line: lens.range.start.line });
        }
    }
    return [...tests.values()].sort((a, b) => a.line - b.line);
}

/** The test whose lens is at or above `line` (the nearest), else the first. */
export function testAt<T extends { line: number }>(tests: T[], line: number): T | undefined {
    return tests.filter((t) => t.line <= line).at(-1) ?? tests[0];
}

/** Asks for the heuristic (undefined: the settings') and the seed; undefined when dismissed. */
export async function pickHeuristicAndSeed(test: string): Promise<{ heuristic?: string; seed?: number } | undefined> {
    const items: { label: string; description: string; name?: string }[] = [
        { label: 'the setting', description: 'racelens.explore.heuristic' },
        ...HEURISTICS.map((h) => ({ label: h.name, description: h.description, name: h.name })),
    ];
    const picked = await vscode.window.showQuickPick(items, { placeHolder: `Explore ${test} again with the heuristic…` });
    if (picked === undefined) {
        return undefined;
    }
    const seed = await vscode.window.showInputBox({
        prompt: "Seed of the search's random choices (empty: none)",
        placeHolder: 'a whole number, for example 7',
        validateInput: (text) => (/^\s*\d*\s*$/.test(text) ? undefined : 'a whole number (0 or more), or nothing'),
    });
    if (seed === undefined) {
        return undefined;
    }
    return { heuristic: picked.name, seed: seed.trim() === '' ? undefined : Number(seed.trim()) };
}

/** `racelens.exploreWith [test]`: explores the test again with a picked heuristic and seed. */
export async function exploreWith(client: LanguageClient | undefined, given?: unknown): Promise<void> {
    if (client === undefined) {
        void vscode.window.showWarningMessage('racelens: the server is not running');
        return;
    }
    let argument = isTestArgument(given) ? given : undefined;
    if (argument === undefined) {
        const editor = vscode.window.activeTextEditor;
        const tests = editor ? await testsOf(client, editor.document) : [];
        argument = editor && testAt(tests, editor.selection.active.line)?.argument;
        if (argument === undefined) {
            void vscode.window.showWarningMessage('racelens: no test that starts threads in this editor (open a test with a ▶ Explore schedules lens)');
            return;
        }
    }
    const test = `${argument.class}#${argument.method}`;
    const choice = argument.heuristic !== undefined || argument.seed !== undefined ? { heuristic: argument.heuristic, seed: argument.seed } : await pickHeuristicAndSeed(test);
    if (choice === undefined) {
        return;
    }
    const { heuristic, seed } = choice;
    const sent = { ...argument, again: true, ...(heuristic !== undefined ? { heuristic } : {}), ...(seed !== undefined ? { seed } : {}) };
    try {
        await client.sendRequest(ExecuteCommandRequest.type, { command: EXPLORE_COMMAND, arguments: [sent] });
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(`racelens: ${message}`);
        return;
    }
    const by = `${heuristic ?? 'the heuristic of the settings'}${seed !== undefined ? `, seed ${seed}` : ''}`;
    void vscode.window.showInformationMessage(`racelens: exploring ${test} again with ${by}`);
}
