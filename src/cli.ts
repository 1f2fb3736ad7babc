// `gatehouse <command>`: JSON on stdout, errors on stderr, exit code 0 / 1 (failure) / 2 (usage). Part of the
// composition root (like server.ts for the server): it builds the core a command runs against, or hands the
// command to a running server's admin socket; the commands themselves live in src/cli/.
import { ConfigError, loadConfig } from './config.js';
import { createCore, type Core } from './core.js';
import { connectDatabase, dataDirOwner, StartupError, usesSingleProcessDatabase } from './storage/driver/connect.js';
import { migrate } from './storage/driver/migrate.js';
import { registerBuiltInResourceServers } from './admin-services/built-in-resource-servers.js';
import { systemClock } from './clock.js';
import { executeCommand, findCommand, unknownCommand, usage } from './cli/execute.js';
import { CommandFailure, UsageError } from './cli/command.js';
import { sendToAdminSocket } from './cli/admin-socket.js';
import { PRIVATE_UMASK } from './startup/data-dir.js';

export async function runCli(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    console.log(usage());
    return argv.length === 0 ? 2 : 0;
  }
  if (!findCommand(argv)) {
    console.error(`gatehouse: ${unknownCommand(argv)}`);
    return 2;
  }
  // The proxy is a long-running process that needs no configuration of this server and no database.
  if (argv[0] === 'protect') return (await import('./protect/run.js')).runProtect(argv.slice(1));
  try {
    const config = loadConfig();
    if (usesSingleProcessDatabase(config) && dataDirOwner(config.DATA_DIR) !== undefined) {
      const reply = await sendToAdminSocket(config.DATA_DIR, argv);
      if (reply.ok) {
        console.log(JSON.stringify(reply.result, null, 2));
        return 0;
      }
      if (reply.result !== undefined) console.log(JSON.stringify(reply.result, null, 2));
      console.error(`gatehouse: ${reply.error}`);
      return reply.usage ? 2 : 1;
    }
    // Opening the embedded database directly: what it creates is private to its owner, as under the server.
    if (!config.DATABASE_URL || usesSingleProcessDatabase(config)) process.umask(PRIVATE_UMASK);
    const database = await connectDatabase(config, (m) => console.error(`gatehouse: ${m}`));
    let core: Core | undefined;
    try {
      core = createCore({ config, clock: systemClock, database });
      // Every other command works on an up-to-date schema with keys; `migrate` itself reports what it applied.
      if (findCommand(argv)?.command.name !== 'migrate') {
        await migrate(database.db);
        await registerBuiltInResourceServers(core.store.resourceServers, config);
        await core.keys.ensureKeys();
      }
      console.log(JSON.stringify(await executeCommand(argv, core), null, 2));
      return 0;
    } finally {
      // With REDIS_URL set the core holds a Redis connection, which would keep the process alive.
      core?.redis?.disconnect();
      await database.close();
    }
  } catch (error) {
    if (error instanceof CommandFailure) {
      console.log(JSON.stringify(error.result, null, 2));
      console.error(`gatehouse: ${error.message}`);
      return 1;
    }
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof StartupError) {
      console.error(`gatehouse: ${error.message}`);
      return error instanceof UsageError ? 2 : 1;
    }
    console.error(`gatehouse: ${(error as Error).message ?? error}`);
    return 1;
  }
}
