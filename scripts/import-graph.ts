// `npx tsx scripts/import-graph.ts`: the figures of the import graph of src/ (docs/design.md, "Layers"):
// files that import the composition root, folder-level circles, and imports that run up the layer table of
// test/architecture/import-graph.ts. `--list` prints each upward import.
import { COMPOSITION_ROOT, circles, crossImports, folderGraph, upwardImports } from '../test/architecture/import-graph.js';

const imports = crossImports();
const folderImports = imports.filter((i) => !i.from.endsWith('.ts'));
const rootImporters = new Set(folderImports.filter((i) => COMPOSITION_ROOT.includes(i.to)).map((i) => i.file));
const servicesOrCore = new Set(folderImports.filter((i) => ['services.ts', 'core.ts'].includes(i.to)).map((i) => i.file));
const found = circles(folderGraph(imports));
const graph = folderGraph(imports);
const mutual = [...graph].flatMap(([a, targets]) => [...targets].filter((b) => a < b && graph.get(b)?.has(a)).map((b) => `${a} ↔ ${b}`));
const up = upwardImports(imports);
const upEdges = new Set(up.map((i) => `${i.from} → ${i.to}`));

console.log(`files in a folder importing services.ts or core.ts: ${servicesOrCore.size}`);
console.log(`files in a folder importing a composition-root file: ${rootImporters.size}`);
console.log(`folder-level circles (strongly connected components): ${found.length}`);
for (const circle of found) console.log(`  ${circle.join(' → ')}`);
console.log(`pairs of folders importing each other: ${mutual.length}${mutual.length ? ` (${mutual.join(', ')})` : ''}`);
console.log(`upward imports: ${up.length} (${upEdges.size} folder-to-folder arrows)`);
for (const edge of [...upEdges].sort()) console.log(`  ${edge}`);
if (process.argv.includes('--list')) for (const i of up) console.log(`  ${i.file} imports ${i.specifier}`);
