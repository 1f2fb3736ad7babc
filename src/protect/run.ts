// The `gatehouse protect` process: parse the command line, start the proxy, log where it listens (one JSON
// line, structured like every Gatehouse log), and shut down gracefully on SIGTERM/SIGINT.
import { pino } from 'pino';
import { loggerOptions } from '../logger.js';
import { parseProtectArgs, PROTECT_USAGE, ProtectUsageError } from './options.js';
import { startProtect } from './proxy.js';

export { PROTECT_USAGE };

/** Resolves with the exit code once the proxy has stopped (2: usage). */
export async function runProtect(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let options: ReturnType<typeof parseProtectArgs>;
  try {
    options = parseProtectArgs(args, env);
  } catch (error) {
    if (error instanceof ProtectUsageError) {
      console.error(`gatehouse: ${error.message}`);
      return 2;
    }
    throw error;
  }
  const log = pino({ ...loggerOptions(options.logLevel), name: 'gatehouse-protect' });
  let proxy: Awaited<ReturnType<typeof startProtect>>;
  try {
    proxy = await startProtect(options, log);
  } catch (error) {
    console.error(`gatehouse: protect could not start: ${(error as Error).message}`);
    return 1;
  }
  log.info({ listen: proxy.url, ops: proxy.opsUrl, resource: options.resource, upstream: options.upstream.href, issuer: options.issuer }, 'protect listening');
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info({ signal }, 'shutting down');
      proxy.close().then(resolve, resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  log.info('stopped');
  return 0;
}
