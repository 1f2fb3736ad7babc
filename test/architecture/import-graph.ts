// The import graph of src/ at folder level, for the import-direction test and for scripts/import-graph.ts
// (which prints the figures). A node is a top-level folder of src/ ("oauth") or a file at the root of src/
// ("services.ts"); an edge is "some file of A imports (or re-exports, or dynamically imports) something of B".
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const src = join(root, 'src');

/**
 * The layers, lowest first: a module may import from its own row or a lower one, never from a higher one
 * (docs/design.md, "Layers"). Inside a row, the circle check keeps the folders from leaning on each other
 * both ways. The last rows are the composition root: only the root files that build and start the app, which
 * no folder imports — the faces declare what they need (their deps.ts) and the root satisfies it.
 */
/** The graph node of the workspace package @gatehouse/resource-server (imported by name, not by path). */
export const KIT = '@gatehouse/resource-server';
export const kitRoot = join(root, 'packages', 'resource-server-kit');

export const LAYERS: readonly (readonly string[])[] = [
  // Vocabulary every layer shares: the clock, configuration, scope names, plugin names, message helpers.
  ['clock.ts', 'config', 'config.ts', 'scopes.ts', 'face-dependencies.ts', 'suggest.ts', 'log-format.ts', 'logger.ts'],
  // Start-up conditions (data directory, Node.js version, start-up errors) and the primitives of cryptography.
  ['startup'],
  ['crypto'],
  // The resource-server kit, a workspace package of its own (packages/resource-server-kit): it knows nothing of
  // src/, and the token, DPoP and resource-API code above it is built on it.
  [KIT],
  // All SQL: the driver and the repositories.
  ['storage'],
  // The HTTP conventions, the audit sink, the job queue.
  ['http', 'audit', 'jobs'],
  // Libraries over them: tokens, the outbox, the upstream round trip, the rules about an account's users,
  // signed webhooks (an outbox channel and the audit subscriber that feeds it).
  ['tokens', 'outbox', 'federation', 'user-rules', 'webhooks'],
  ['mail', 'resource-server'],
  // The authorization server's protocol core (and its endpoints).
  ['oauth'],
  // The administration services both the CLI and /admin/v1 call.
  ['admin-services'],
  ['invitations'],
  // The browser faces: the sign-in flow, the self-service pages that reuse its pieces, the account page.
  ['interaction'],
  ['self-service'],
  ['account'],
  // The other faces.
  // protect: `gatehouse protect`, the reverse proxy built on the kit (it talks to Gatehouse over HTTP only).
  ['api', 'admin', 'console', 'demo', 'cli', 'protect'],
  // The composition root: builds the services (core.ts, services.ts), the app (app.ts, resource-api.ts), and
  // the processes (server.ts, main.ts, cli.ts).
  ['core.ts'],
  // outbound-channels.ts: the outbox channels that POST (webhooks, logout tokens), built for services.ts.
  ['services.ts', 'outbound-channels.ts'],
  ['resource-api.ts'],
  ['app.ts'],
  ['server.ts', 'cli.ts'],
  ['main.ts'],
];

/** The files of the composition root: no folder imports them. */
export const COMPOSITION_ROOT = ['core.ts', 'services.ts', 'resource-api.ts', 'app.ts', 'server.ts', 'main.ts', 'cli.ts'];

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export function sources(dir = src): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The graph node of a file: its top-level folder under src/, or its own name for a file at the root of src/. */
export function nodeOf(file: string): string | undefined {
  const path = relative(src, file);
  if (path.startsWith('..')) return undefined;
  const parts = path.split(sep);
  return parts.length > 1 ? parts[0] : parts[0]!.replace(/\.js$/, '.ts');
}

/** Every specifier of a source file (relative or bare), comments removed so an example in a comment does not count. */
export function allImportsOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return [...code.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Relative specifiers of a source file, and the kit's package name (an edge to the KIT node). */
export function importsOf(text: string): string[] {
  return allImportsOf(text).filter((s) => s.startsWith('.') || s === KIT || s.startsWith(`${KIT}/`));
}

export interface Import {
  /** The importing file, relative to the repository. */
  file: string;
  specifier: string;
  from: string;
  to: string;
}

/** Every import between two different nodes. */
export function crossImports(files = sources()): Import[] {
  const found: Import[] = [];
  for (const file of files) {
    const from = nodeOf(file);
    if (!from) continue;
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const to = specifier.startsWith('.') ? nodeOf(resolve(dirname(file), specifier)) : KIT;
      if (to !== undefined && to !== from) found.push({ file: relative(root, file), specifier, from, to });
    }
  }
  return found;
}

export const layerOf = (node: string): number => LAYERS.findIndex((row) => row.includes(node));

/** Imports from a lower layer to a higher one (or from/to a node the table does not place). */
export function upwardImports(imports: readonly Import[]): Import[] {
  return imports.filter((i) => layerOf(i.from) < 0 || layerOf(i.to) < 0 || layerOf(i.to) > layerOf(i.from));
}

/** Folder → folders it imports. */
export function folderGraph(imports: readonly Import[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of imports) {
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}

/**
 * The circles of the graph: its strongly connected components of more than one node (Tarjan), each written
 * as one path around it (a → b → … → a) so a failure shows where to cut.
 */
export function circles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, indices.get(next)!));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node);
  return components.map((component) => cyclePath(graph, new Set(component)));
}

/** A path through every node of a strongly connected component, back to its start (a closed walk). */
function cyclePath(graph: Map<string, Set<string>>, members: Set<string>): string[] {
  const start = [...members].sort()[0]!;
  const path = [start];
  const seen = new Set([start]);
  // Walk to an unseen member by the shortest route inside the component, until all are seen, then home.
  const route = (from: string, goal: (n: string) => boolean): string[] => {
    const previous = new Map<string, string>([[from, from]]);
    const queue = [from];
    while (queue.length) {
      const node = queue.shift()!;
      if (node !== from && goal(node)) {
        const steps = [node];
        for (let at = node; previous.get(at) !== from; at = previous.get(at)!) steps.unshift(previous.get(at)!);
        return steps;
      }
      for (const next of [...(graph.get(node) ?? [])].sort()) {
        if (members.has(next) && !previous.has(next)) {
          previous.set(next, node);
          queue.push(next);
        }
      }
    }
    return [];
  };
  let at = start;
  while (seen.size < members.size) {
    const steps = route(at, (n) => !seen.has(n));
    for (const step of steps) seen.add(step);
    path.push(...steps);
    at = path[path.length - 1]!;
  }
  path.push(...(at === start && path.length > 1 ? [] : route(at, (n) => n === start)));
  return path;
}
