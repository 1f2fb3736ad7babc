// Regenerates the configuration table in README.md from src/config.ts (tables in src/config/), between the markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { describeSettings } from '../src/config.js';

const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

export function configTable(): string {
  const rows = describeSettings().map((s) => `| \`${s.name}\` | ${s.default ? `\`${s.default}\`` : ''} | ${s.doc.replace(/\|/g, '\\|')} |`);
  return [START, '| Variable | Default | Meaning |', '| --- | --- | --- |', ...rows, END].join('\n');
}

if (process.argv[1]?.endsWith('gen-config-docs.ts')) {
  const path = new URL('../README.md', import.meta.url);
  const readme = readFileSync(path, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < 0) throw new Error('README.md lacks the config-table markers');
  writeFileSync(path, readme.slice(0, start) + configTable() + readme.slice(end + END.length));
  console.log('README.md configuration table updated');
}
