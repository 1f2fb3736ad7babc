// What the CLI's commands run against: the core the administration services are built from
// (src/admin-services/deps.ts). The composition root builds it: src/cli.ts for a command run directly,
// src/server.ts (through the admin socket) for a command sent to a running server.
import type { AdminCore } from '../admin-services/deps.js';
import type { Database } from '../storage/driver/database.js';

/** `database`: the driver, for `migrate` (every other command goes through the core's store). */
export type CliDeps = AdminCore & { readonly database: Database };
