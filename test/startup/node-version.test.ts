import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MIN_NODE_VERSION, nodeVersionProblem } from '../../src/startup/node-version.js';

test('a Node.js older than the requirement is refused in one sentence; the requirement is the one package.json states', () => {
  assert.equal(nodeVersionProblem('18.20.4'), 'Node.js 20.19 or newer is required (this is 18.20.4); see https://nodejs.org/en/download');
  assert.ok(nodeVersionProblem('v20.18.3'));
  for (const ok of ['20.19.0', '20.20.2', '22.1.0', 'v24.0.0']) assert.equal(nodeVersionProblem(ok), undefined, ok);
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, `>=${MIN_NODE_VERSION.replace(/\.0$/, '')}`);
  assert.equal(nodeVersionProblem(process.versions.node), undefined, 'this machine meets it');
});

/** Enough of semver for engines ranges of the forms ">=X", ">= X" and "^X", joined by "||". */
function satisfies(version: string, range: string): boolean {
  return range.split('||').some((alternative) => {
    const m = /^\s*(>=|\^)\s*(\d+(?:\.\d+){0,2})\s*$/.exec(alternative);
    if (!m) throw new Error(`unsupported engines range ${range}`);
    const atLeast = nodeVersionProblem(version, m[2]!) === undefined;
    return m[1] === '>=' ? atLeast : atLeast && version.split('.')[0] === m[2]!.split('.')[0];
  });
}

test('every runtime dependency supports the stated Node.js (no EBADENGINE on install)', () => {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(pkg.dependencies)) {
    const manifest = JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { engines?: { node?: string } };
    if (manifest.engines?.node) assert.ok(satisfies(MIN_NODE_VERSION, manifest.engines.node), `${name} declares node ${manifest.engines.node}`);
  }
});
