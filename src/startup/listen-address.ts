// The listen address is checked before the database is opened (which takes seconds on a new PGlite
// directory), so a busy port or a bad HOST is reported at once, in one line naming the variable.
import { lookup } from 'node:dns/promises';
import { createServer } from 'node:net';
import { StartupError } from './startup-error.js';

type Lookup = (host: string) => Promise<{ address: string }>;

/** The settings a listener's address comes from, named in the errors (HOST/PORT, or METRICS_HOST/METRICS_PORT). */
export interface ListenSettings {
  host: string;
  port: string;
}
const MAIN_LISTENER: ListenSettings = { host: 'HOST', port: 'PORT' };

/** Resolves HOST and binds PORT on it for an instant; throws a StartupError naming the variable at fault. */
export async function checkListenAddress(host: string, port: number, resolve: Lookup = lookup, names: ListenSettings = MAIN_LISTENER): Promise<void> {
  let address: string;
  try {
    ({ address } = await resolve(host));
  } catch (error) {
    throw new StartupError(
      `${names.host} ${JSON.stringify(host)} cannot be resolved to an address (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`,
    );
  }
  const probe = createServer();
  try {
    await new Promise<void>((done, fail) => {
      probe.once('error', fail);
      probe.listen({ host: address, port, exclusive: true }, done);
    });
  } catch (error) {
    throw listenError(error, host, port, names);
  } finally {
    await new Promise<void>((done) => (probe.listening ? probe.close(() => done()) : done()));
  }
}

/** The one-line explanation of a failed listen, or the error itself when it is not about the address. */
export function listenError(error: unknown, host: string, port: number, names: ListenSettings = MAIN_LISTENER): Error {
  const where = `${host}:${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new StartupError(
        `${names.port} ${port} is already in use on ${host} (another server is running there); stop it or set ${names.port} to a free port`,
      );
    case 'EACCES':
      return new StartupError(`${names.port} ${port} on ${host} needs privileges this process lacks; choose a ${names.port} above 1023`);
    case 'EADDRNOTAVAIL':
      return new StartupError(`${names.host} ${JSON.stringify(host)} is not an address of this machine (cannot listen on ${where})`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(`${names.host} ${JSON.stringify(host)} cannot be resolved to an address`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}
