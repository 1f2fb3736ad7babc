// Dependencies point one way (docs/design.md, "Layers"): storage knows no protocol, the authorization server
// and the resource API know nothing of each other, /v1 and /admin/v1 know nothing of each other (what they share
// is src/resource-server/, which knows neither), shared HTTP conventions know no face, crypto and the shared
// token code know neither, and the audit log and the /account pages know no resource. Every relative import
// (and re-export, and dynamic import) of src/**/*.ts is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');

/** Top-level folder of src/ → the top-level folders it must never import from. */
const FORBIDDEN: Record<string, readonly string[]> = {
  storage: ['oauth', 'api', 'http', 'interaction'],
  oauth: ['api'],
  api: ['oauth', 'interaction', 'admin'],
  // The two resource-server faces share src/resource-server/, never each other's modules.
  admin: ['api'],
  'resource-server': ['api', 'admin', 'oauth', 'interaction'],
  interaction: ['api', 'account'],
  http: ['api', 'oauth', 'interaction'],
  crypto: ['oauth', 'api', 'interaction'],
  tokens: ['oauth', 'api', 'interaction'],
  audit: ['oauth', 'api', 'http', 'interaction', 'admin'],
  account: ['api', 'oauth'],
  // The upstream round trip is a library the sign-in pipeline and the admin services call, never the reverse.
  federation: ['oauth', 'api', 'interaction', 'admin', 'admin-services', 'account', 'accounts'],
  // What leaves the process (docs/outbox.md) knows no face; e-mail only the HTTP conventions of its pages.
  outbox: ['oauth', 'api', 'http', 'interaction', 'admin', 'account'],
  mail: ['oauth', 'api', 'interaction', 'admin', 'account'],
  invitations: ['oauth', 'api', 'interaction', 'admin', 'account'],
  // Forgotten passwords, sign-up, e-mail change (docs/email.md): pages of their own beside the flow's; the
  // account face uses them, never the other way round.
  'self-service': ['oauth', 'api', 'admin', 'account'],
};

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const layerOf = (file: string): string | undefined => {
  const parts = relative(src, file).split(sep);
  return parts.length > 1 ? parts[0] : undefined;
};

/** Relative specifiers of a source file, comments removed so an example in a comment does not count. */
export function importsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return [...code.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]!).filter((s) => s.startsWith('.'));
}

export function forbiddenImports(files = sources(src)): string[] {
  const found: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    const forbidden = from ? FORBIDDEN[from] : undefined;
    if (!forbidden) continue;
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const to = layerOf(resolve(dirname(file), specifier));
      if (to !== undefined && forbidden.includes(to)) found.push(`${relative(root, file)} imports ${specifier} (${from} → ${to})`);
    }
  }
  return found;
}

test('import direction: no module imports from a layer it must not know (storage, oauth ↔ api, api ↔ admin, resource-server, interaction, http, crypto, tokens, audit, account)', () => {
  assert.deepEqual(forbiddenImports(), []);
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
