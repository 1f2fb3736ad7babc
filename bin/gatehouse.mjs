#!/usr/bin/env node
// The `gatehouse` command: runs the compiled CLI, building first when the sources are newer.
import { ensureBuilt } from '../scripts/build-if-needed.mjs';

await ensureBuilt({ quiet: true });
const { runCli } = await import('../dist/src/cli/main.js');
process.exitCode = await runCli(process.argv.slice(2));
