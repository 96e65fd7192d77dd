// A fixture of tests/fixtures as the editor-side end-to-end tests see a project: a git
// repository with the fixture's `base/` committed and its `change.patch` applied to the
// working tree (unless `change` is false). Shared by tests/lsp and editors/vscode/test;
// Node's standard library only, so that either can import it.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** Fills the empty folder `dir` with the fixture `name` as a git repository; returns `dir`. */
export function commitFixture(name, dir, { change = true } = {}) {
    const fixture = path.join(fixtures, name);
    fs.cpSync(path.join(fixture, 'base'), dir, { recursive: true });
    const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'base');
    if (change) {
        git('apply', path.join(fixture, 'change.patch'));
    }
    return dir;
}
