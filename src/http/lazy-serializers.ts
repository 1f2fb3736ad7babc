// Response serializers compiled on a route's first response instead of at start-up. Fastify compiles a
// fast-json-stringify function for every response schema of every route when the app boots (each route
// declares its Problem Details answers too), and most are never used by a given process. Measured on
// `node dist/src/main.js` (embedded default, restart on an existing DATA_DIR, load average ~30, 3 runs
// each): the process's CPU from spawn to ready went from 3.2–3.7 s (eager) to 2.8–3.0 s (lazy).
// The serializer is the same function, compiled from the same schema by Fastify's own compiler; only
// the moment changes. docs/embedded-database.md (start-up).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

export function lazySerializers(): SerializerFactory {
  const eager = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc) => {
        serialize ??= compile(route);
        return serialize(doc);
      };
    };
  };
}
