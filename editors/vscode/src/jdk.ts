// Looks for a JDK (JAVA_HOME/bin/java, else `java` on PATH). Only exploring test schedules
// needs one; the analysis itself does not, so a missing JDK is a one-time warning.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { isExecutableFile } from './server';

const WARNED_KEY = 'racelens.jdkWarningShown';

export async function findJava(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
    const exe = platform === 'win32' ? 'java.exe' : 'java';
    const paths = platform === 'win32' ? path.win32 : path.posix;
    const candidates: string[] = [];
    const javaHome = env.JAVA_HOME;
    if (javaHome !== undefined && javaHome.trim() !== '') {
        candidates.push(paths.join(javaHome.trim(), 'bin', exe));
    }
    const pathKey = Object.keys(env).find((k) => (platform === 'win32' ? k.toUpperCase() === 'PATH' : k === 'PATH'));
    const pathValue = pathKey !== undefined ? (env[pathKey] ?? '') : '';
    for (const dir of pathValue.split(platform === 'win32' ? ';' : ':')) {
        if (dir.trim() !== '') {
            candidates.push(paths.join(dir.trim(), exe));
        }
    }
    for (const candidate of candidates) {
        if (await isExecutableFile(candidate, platform)) {
            return candidate;
        }
    }
    return undefined;
}

/** Warns once (per installation of the extension) when no JDK can be found. */
export async function warnIfNoJdk(context: vscode.ExtensionContext, output: vscode.OutputChannel): Promise<void> {
    const java = await findJava();
    if (java !== undefined) {
        output.appendLine(`[racelens] JDK: ${java}`);
        return;
    }
    output.appendLine('[racelens] no JDK found (neither JAVA_HOME/bin/java nor java on PATH)');
    if (context.globalState.get<boolean>(WARNED_KEY) === true) {
        return;
    }
    await context.globalState.update(WARNED_KEY, true);
    void vscode.window.showWarningMessage(
        'racelens: no JDK found (JAVA_HOME/bin/java or `java` on PATH). The analysis works without it, ' +
            'but exploring the schedules of a test needs a JDK 17 or newer, e.g. ' +
            '`sudo apt-get install openjdk-17-jdk-headless`, then set JAVA_HOME or put `java` on PATH.',
    );
}
