// Dependencies point one way (docs/design.md, "Layers"). Every folder of src/ and every file at its root has a
// row in LAYERS (test/architecture/import-graph.ts), lowest first: storage knows no protocol, the shared HTTP
// conventions know no face, the protocol core knows no face, and no folder imports the composition root
// (core.ts, services.ts, app.ts, server.ts, …): each face declares what it needs in its deps.ts and the root
// satisfies it. On top of the table, a few pairs that share a row or sit in the same order must still not
// meet (FORBIDDEN), and the folder graph has no circle at all. Every relative import (and re-export, and
// dynamic import) of src/**/*.ts is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  COMPOSITION_ROOT,
  KIT,
  LAYERS,
  allImportsOf,
  circles,
  crossImports,
  folderGraph,
  importsOf,
  kitRoot,
  layerOf,
  sources,
  src,
  upwardImports,
} from './import-graph.js';

/** Folders that may not know each other although the layer table alone would allow it. */
const FORBIDDEN: Record<string, readonly string[]> = {
  // The two resource-server faces share src/resource-server/, never each other's modules.
  api: ['admin', 'oauth', 'interaction', 'account', 'console', 'demo', 'cli'],
  admin: ['api', 'account', 'interaction', 'console', 'demo', 'cli'],
  console: ['api', 'admin', 'account', 'interaction', 'demo', 'cli'],
  demo: ['api', 'admin', 'account', 'interaction', 'console', 'cli'],
  cli: ['api', 'admin', 'account', 'interaction', 'console', 'demo', 'protect'],
  // The proxy knows Gatehouse only over HTTP: no storage, no protocol core, no face.
  protect: ['storage', 'oauth', 'tokens', 'resource-server', 'admin-services', 'api', 'admin', 'account', 'interaction', 'console', 'demo', 'cli', 'http'],
  // The /account page and the pages beside the flow's know no protocol endpoint: they sign in through the
  // flow's pipeline (src/interaction/sign-in/) and reach the authorization server only through it.
  account: ['oauth', 'api', 'admin'],
  'self-service': ['oauth', 'api', 'admin', 'account'],
  invitations: ['oauth', 'interaction', 'account'],
  http: ['audit', 'jobs'],
  // The upstream round trip and what leaves the process are libraries, used by faces, never the reverse.
  federation: ['tokens', 'outbox', 'user-rules'],
  outbox: ['tokens', 'federation', 'user-rules'],
  mail: ['resource-server'],
};

const imports = crossImports();
const describe = (list: readonly { file: string; specifier: string; from: string; to: string }[]) =>
  list.map((i) => `${i.file} imports ${i.specifier} (${i.from} → ${i.to})`);

test('import direction: every folder of src/ and every file at its root has a row in the layer table', () => {
  const nodes = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory() || name.endsWith('.ts'));
  assert.deepEqual(
    nodes.filter((node) => layerOf(node) < 0),
    [],
  );
  assert.deepEqual(
    LAYERS.flat().filter((node) => !nodes.includes(node) && node !== 'cli.ts' && node !== KIT),
    [],
    'a row names a folder or file that does not exist',
  );
});

test('import direction: no module imports from a higher layer (storage lowest, then libraries, the protocol core, the faces, the composition root)', () => {
  assert.deepEqual(describe(upwardImports(imports)), []);
});

test('import direction: no folder imports the composition root (core.ts, services.ts, app.ts, server.ts, main.ts, …); faces declare their deps', () => {
  assert.deepEqual(describe(imports.filter((i) => !i.from.endsWith('.ts') && COMPOSITION_ROOT.includes(i.to))), []);
});

test('import direction: faces that share a layer know nothing of each other (api ↔ admin, …), nor libraries of their row', () => {
  assert.deepEqual(describe(imports.filter((i) => FORBIDDEN[i.from]?.includes(i.to))), []);
});

test('import direction: the folder graph has no circle', () => {
  const found = circles(folderGraph(imports));
  assert.deepEqual(
    found.map((circle) => circle.join(' → ')),
    [],
  );
});

test('import direction: the resource-server kit (packages/resource-server-kit) stands alone: its own files, jose, node: built-ins and fastify types, nothing of src/', () => {
  const files = sources(join(kitRoot, 'src'));
  assert.ok(files.length > 5);
  const outside = files.flatMap((file) =>
    allImportsOf(readFileSync(file, 'utf8'))
      .filter((specifier) =>
        specifier.startsWith('.')
          ? relative(join(kitRoot, 'src'), resolve(dirname(file), specifier)).startsWith('..')
          : !/^(jose|fastify|node:.+)$/.test(specifier),
      )
      .map((specifier) => `${relative(kitRoot, file)} imports ${specifier}`),
  );
  assert.deepEqual(outside, []);
});

test('import direction: src/ reaches the kit by its package name, from the layers above it', () => {
  const kitImports = crossImports().filter((i) => i.to === KIT);
  assert.ok(
    kitImports.some((i) => i.from === 'tokens'),
    'the token code is built on the kit',
  );
  assert.deepEqual(describe(kitImports.filter((i) => layerOf(i.from) < layerOf(KIT))), []);
});

test('import direction: the check sees imports, re-exports and dynamic imports, and ignores comments', () => {
  const code = [
    "import type { Principal } from '../../api/principal.js';",
    "export { x } from '../oauth/scopes.js';",
    "const m = await import('../api/index.js');",
    "// import { y } from '../api/commented-out.js';",
    "import { z } from 'kysely';",
  ].join('\n');
  assert.deepEqual(importsOf(code), ['../../api/principal.js', '../oauth/scopes.js', '../api/index.js']);
});

test('import direction: the circle check finds a circle and names its path', () => {
  const graph = new Map([
    ['storage', new Set(['crypto'])],
    ['crypto', new Set(['oauth'])],
    ['oauth', new Set(['storage', 'http'])],
    ['http', new Set<string>()],
  ]);
  assert.deepEqual(circles(graph), [['crypto', 'oauth', 'storage', 'crypto']]);
});
