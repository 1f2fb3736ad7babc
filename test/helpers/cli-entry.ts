// Runs the CLI from source (tests spawn this instead of the compiled bin).
import { runCli } from '../../src/cli.js';

process.exitCode = await runCli(process.argv.slice(2));
