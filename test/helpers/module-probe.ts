// Preloaded into a server process by tests (`--import`) that need to know which packages the process loads:
// it writes one `module-probe: <url>` line to stderr for each module of OpenTelemetry's SDK, its
// instrumentations or @fastify/otel that is resolved, however it is imported.
import { registerHooks } from 'node:module';

const WATCHED = /\/node_modules\/(@opentelemetry\/(?!api\/)[^/]+|@fastify\/otel)\//;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (WATCHED.test(resolved.url)) process.stderr.write(`module-probe: ${resolved.url}\n`);
    return resolved;
  },
});
