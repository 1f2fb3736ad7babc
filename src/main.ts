// `npm start`: refuses a too-old Node.js in one line before loading anything that could fail on it,
// then starts the server (src/server.ts).
import { nodeVersionProblem } from './startup/node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(`gatehouse: ${problem}`);
  process.exit(1);
}
await import('./server.js');
