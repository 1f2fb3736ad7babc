import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MIN_NODE_VERSION, nodeVersionProblem } from '../../src/startup/node-version.js';

test('a Node.js older than the requirement is refused in one sentence; the requirement is the one package.json states', () => {
  assert.equal(nodeVersionProblem('20.20.2'), 'Node.js 22.15 or newer is required (this is 20.20.2); see https://nodejs.org/en/download');
  assert.ok(nodeVersionProblem('v22.11.0'));
  for (const ok of ['22.15.0', '22.21.1', '24.0.0', 'v24.11.1', '25.1.0']) assert.equal(nodeVersionProblem(ok), undefined, ok);
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
  assert.equal(pkg.engines.node, `>=${MIN_NODE_VERSION.replace(/\.0$/, '')}`);
});

const atLeast = (version: string, minimum: string) => nodeVersionProblem(version, minimum) === undefined;
const major = (version: string) => version.replace(/^v/, '').split('.')[0];

/** Enough of semver for the engines ranges in the lock file: comparator sets ("14 >=14.17") joined by "||". */
function satisfies(version: string, range: string): boolean {
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|>|\^)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => {
        const m = /^(>=|>|\^)?(\d+)((?:\.(?:\d+|x|\*)){0,2})$/.exec(comparator);
        if (!m) throw new Error(`unsupported engines range ${range}`);
        const bound = `${m[2]}${m[3]!.replace(/\.(x|\*)/g, '.0')}`;
        if (m[1] === '>=') return atLeast(version, bound);
        if (m[1] === '>') return atLeast(version, bound) && version !== bound;
        if (m[1] === '^') return atLeast(version, bound) && major(version) === m[2];
        return major(version) === m[2] && atLeast(version, bound);
      }),
  );
}

test('every package the lock file installs supports the oldest Node.js we state (no EBADENGINE on npm install)', () => {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
    packages: Record<string, { engines?: { node?: string }; optional?: boolean; os?: string[] }>;
  };
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = entry.engines?.node;
    if (path === '' || !range) continue;
    if (!satisfies(MIN_NODE_VERSION, range)) refused.push(`${path} (node ${range})`);
  }
  assert.deepEqual(refused, []);
  assert.ok(
    satisfies('22.12.0', '>=22') && !satisfies('20.20.2', '>=22') && satisfies('24.1.0', '^16 || ^18 || >=20') && !satisfies('15.0.0', '>=16 || 14 >=14.17'),
  );
});

test('this machine runs a supported Node.js', () => {
  assert.equal(nodeVersionProblem(process.versions.node), undefined, `Node.js ${process.versions.node}`);
});
