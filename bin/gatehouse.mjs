#!/usr/bin/env node
// The `gatehouse` command: runs the compiled CLI, building first when the sources are newer.
import { ensureBuilt } from '../scripts/build-if-needed.mjs';

await ensureBuilt({ quiet: true });
const { nodeVersionProblem } = await import('../dist/src/startup/node-version.js');
const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(`gatehouse: ${problem}`);
  process.exit(1);
}
const { runCli } = await import('../dist/src/cli.js');
process.exitCode = await runCli(process.argv.slice(2));
