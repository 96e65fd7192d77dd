// The SARIF logs racelens prints (`check --format sarif`, `explore --format sarif`), on real
// git repositories made from tests/fixtures, validated against the official SARIF 2.1.0
// schema: the one the npm package @microsoft/jest-sarif ships
// (lib/schemas/sarif-2.1.0-rtm.5.json), read from node_modules and never copied here.
//
// The schema is JSON Schema draft-04, which Ajv 8 validates through ajv-draft-04; ajv-formats
// checks its `uri`, `uri-reference` and `date-time` formats. What each log says is tested in
// server/cli/tests/sarif.rs; here, that GitHub code scanning and IDEs can read it.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { commitFixture } from './repository.mjs';
import { assertServerBuilt, serverBin } from './session.mjs';

const require = createRequire(import.meta.url);
const SCHEMA = require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json');

/** A JVM starts in a second or two and the exploration takes seconds: generous, not slow. */
const EXPLORATION_MS = 120_000;
const LOST_UPDATE = 'org.example.metrics.LatencyStatsTest#concurrentRecordsAreAllCounted';

/** The schema, compiled. */
function sarifValidator() {
    const schema = JSON.parse(fs.readFileSync(SCHEMA, 'utf8'));
    assert.equal(schema.$schema, 'http://json-schema.org/draft-04/schema#', `${SCHEMA} is no longer draft-04: use the matching Ajv`);
    // The schema's pattern of `language` (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`) is
    // not a valid regular expression under the `u` flag Ajv 8 sets by default.
    const ajv = new Ajv({ allErrors: true, unicodeRegExp: false });
    addFormats(ajv);
    return ajv.compile(schema);
}

const validate = sarifValidator();

function assertValid(log, what) {
    const valid = validate(log);
    assert.ok(valid, `${what} is not valid SARIF 2.1.0:\n${JSON.stringify(validate.errors, null, 2)}`);
}

const scratch = [];
after(() => {
    for (const dir of scratch) {
        fs.rmSync(dir, { recursive: true, force: true });
    }
});

function tempDir(prefix) {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
    scratch.push(dir);
    return dir;
}

/** A fixture as a git repository: its base committed, its change applied (unless `change` is false). */
function repository(fixture, options) {
    return commitFixture(fixture, tempDir('racelens-sarif-'), options);
}

/** Compiled classes go to a cache of this run, not the user's. */
const cacheHome = tempDir('racelens-sarif-cache-');

/** Runs `racelens <args> --format sarif` in `dir`; returns the exit status and the log. */
function sarif(dir, args) {
    assertServerBuilt();
    const run = spawnSync(serverBin, [...args, '--format', 'sarif'], { cwd: dir, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cacheHome }, timeout: EXPLORATION_MS });
    assert.equal(run.error, undefined, String(run.error));
    let log;
    try {
        log = JSON.parse(run.stdout);
    } catch (e) {
        assert.fail(`racelens ${args.join(' ')} printed no JSON (status ${run.status}): ${e}\n${run.stdout}\n${run.stderr}`);
    }
    return { status: run.status, log };
}

describe('SARIF 2.1.0 against the official schema', () => {
    test('racelens check --format sarif: several warnings with related locations', () => {
        const { status, log } = sarif(repository('object-pool'), ['check']);
        assert.equal(status, 0);
        assertValid(log, 'the log of check');
        const results = log.runs[0].results;
        assert.ok(results.length >= 2, JSON.stringify(results, null, 2));
        assert.ok(results.some((r) => r.relatedLocations?.length > 0), 'a warning with related locations');
        assert.ok(results.every((r) => r.locations[0].physicalLocation.region.startColumn >= 1));

        // An invalid log is rejected, so this test can fail: a result without its message,
        // a region on line 0, a level SARIF does not have, a base URI with a space.
        const broken = [
            (l) => delete l.runs[0].results[0].message,
            (l) => (l.runs[0].results[0].locations[0].physicalLocation.region.startLine = 0),
            (l) => (l.runs[0].results[0].level = 'warn'),
            (l) => (l.runs[0].originalUriBaseIds['%SRCROOT%'].uri = 'file:///a work tree/'),
        ];
        for (const breakIt of broken) {
            const copy = structuredClone(log);
            breakIt(copy);
            assert.equal(validate(copy), false, `the schema accepts a log broken by ${breakIt}`);
            assert.ok(validate.errors.some((e) => e.instancePath.startsWith('/runs/0/')), JSON.stringify(validate.errors, null, 2));
        }
    });

    test('racelens check --format sarif --show hints: hints are notes', () => {
        const { log } = sarif(repository('simrt-hashmap'), ['check', '--show', 'hints']);
        assertValid(log, 'the log of check --show hints');
        assert.ok(log.runs[0].results.some((r) => r.ruleId === 'RL100' && r.level === 'note'));
    });

    test('racelens explore --format sarif: a failing schedule with its thread flows', { timeout: EXPLORATION_MS }, () => {
        const { status, log } = sarif(repository('explore-lost-update'), ['explore', '--test', LOST_UPDATE]);
        assert.equal(status, 1, JSON.stringify(log, null, 2));
        assertValid(log, 'the log of a failing exploration');
        const [result] = log.runs[0].results;
        assert.equal(result.ruleId, 'RL200');
        assert.ok(result.codeFlows[0].threadFlows.length >= 2, JSON.stringify(result.codeFlows, null, 2));
        assert.equal(log.runs[0].invocations[0].exitCode, 1);
    });

    test('racelens explore --format sarif: a budget that ran out is a note, the claim in the properties', { timeout: EXPLORATION_MS }, () => {
        const { status, log } = sarif(repository('explore-lost-update', { change: false }), ['explore', '--test', LOST_UPDATE, '--max-schedules', '1']);
        assert.equal(status, 0, JSON.stringify(log, null, 2));
        assertValid(log, 'the log of an exploration that ran out of budget');
        assert.deepEqual(log.runs[0].results.map((r) => [r.ruleId, r.level]), [['RL202', 'note']]);
        assert.equal(log.runs[0].properties.coverage.budget_exhausted, true);
    });

    test('racelens explore --affected --format sarif: the selected tests in one run', { timeout: EXPLORATION_MS }, () => {
        const { status, log } = sarif(repository('explore-models'), ['explore', '--affected', '--fail-fast']);
        assert.equal(status, 1, JSON.stringify(log, null, 2));
        assertValid(log, 'the log of explore --affected');
        assert.deepEqual(log.runs[0].results.map((r) => r.ruleId), ['RL200']);
        assert.equal(log.runs[0].properties.tests.length, 1);
    });
});
