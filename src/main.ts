// `npm start`: refuses a too-old Node.js in one line before loading anything that could fail on it, starts
// OpenTelemetry tracing when an OTLP endpoint is set (docs/observability.md#traces), then starts the server
// (src/server.ts).
//
// The order is the point: the tracing instrumentations patch `http` and `pg` when they are loaded, and
// @fastify/otel hooks Fastify instances as they are created, so the SDK must start before the server's
// modules are imported: hence the dynamic imports. With tracing off, the SDK is never imported at all.
import { nodeVersionProblem } from './startup/node-version.js';

const problem = nodeVersionProblem(process.versions.node);
if (problem) {
  console.error(`gatehouse: ${problem}`);
  process.exit(1);
}
// `.env` is read here already (the server reads it again, changing nothing), so that OTEL_* variables set there count.
// Imported only now: a too-old Node.js is refused before any of the configuration's modules load.
const { loadEnvFile } = await import('./config.js');
const { tracingRequested } = await import('./telemetry/tracing-settings.js');
loadEnvFile();
if (tracingRequested(process.env)) {
  const { startTracing } = await import('./telemetry/start-tracing.js');
  const tracing = startTracing();
  const { onShutdown } = await import('./startup/shutdown-hooks.js');
  onShutdown(() => tracing.shutdown());
}
await import('./server.js');
