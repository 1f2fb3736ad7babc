// `node --import tsx bench/profile-summary.ts <file.cpuprofile> [top]`: self and inclusive time per function
// from a V8 CPU profile written by `npm run bench -- <scenario> --cpu-prof`, to name hot spots precisely.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
// Paths inside this checkout print relative to it, wherever it is.
const checkout = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const self = new Map<number, number>();
for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const label = (n: Node) => {
  const url = n.callFrame.url.replace(/^file:\/\//, '');
  const where = url ? `${url.startsWith(checkout + sep) ? relative(checkout, url) : url}:${n.callFrame.lineNumber + 1}` : '(native)';
  return `${n.callFrame.functionName || '(anonymous)'} ${where}`;
};

const selfBy = new Map<string, number>();
const inclusiveBy = new Map<string, number>();
for (const [id, t] of self) {
  selfBy.set(label(byId.get(id)!), (selfBy.get(label(byId.get(id)!)) ?? 0) + t);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const l = label(byId.get(cur)!);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusiveBy.set(l, (inclusiveBy.get(l) ?? 0) + t);
  }
}
const pct = (t: number) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (of ${(total / 1e6).toFixed(1)} s sampled)`);
  for (const [l, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${l}`);
};
print('self time', selfBy);
print('inclusive time', inclusiveBy);
print('inclusive time, Gatehouse code only (src/)', new Map([...inclusiveBy].filter(([l]) => / src\//.test(l))));
