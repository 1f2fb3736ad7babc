// The embedded database belongs to one process, so while a server runs on DATA_DIR the CLI sends its
// command over a Unix socket in DATA_DIR (mode 0600: only the owner of the data can use it) and the
// server runs it. The socket is created under a umask that leaves it owner-only from its first instant: a
// chmod after listen() would leave a window in which any local user could connect and run commands. With DATABASE_URL the CLI talks to PostgreSQL directly and this is not used.
import { createConnection, createServer, type Server } from 'node:net';
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CliDeps } from './deps.js';
import { executeCommand } from './execute.js';
import { CommandFailure, UsageError } from './command.js';

export const adminSocketPath = (dataDir: string): string => join(dataDir, 'admin.sock');

interface Reply {
  ok: boolean;
  result?: unknown;
  error?: string;
  usage?: boolean;
}

export async function startAdminSocket(core: CliDeps, log: (error: unknown) => void): Promise<Server> {
  const path = adminSocketPath(core.config.DATA_DIR);
  if (existsSync(path)) rmSync(path);
  const server = createServer((socket) => {
    let input = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      input += chunk;
      if (!input.includes('\n') || input.length > 1_000_000) return;
      const answer = (reply: Reply) => socket.end(`${JSON.stringify(reply)}\n`);
      let argv: unknown;
      try {
        argv = (JSON.parse(input) as { argv?: unknown }).argv;
      } catch {
        return answer({ ok: false, error: 'malformed request' });
      }
      if (!Array.isArray(argv) || !argv.every((a) => typeof a === 'string')) return answer({ ok: false, error: 'malformed request' });
      executeCommand(argv, core).then(
        (result) => answer({ ok: true, result }),
        (error: unknown) => {
          if (error instanceof UsageError) return answer({ ok: false, error: error.message, usage: true });
          if (error instanceof CommandFailure) return answer({ ok: false, error: error.message, result: error.result });
          log(error);
          return answer({ ok: false, error: 'the command failed; see the server log' });
        },
      );
    });
    socket.on('error', () => {});
  });
  await listenOwnerOnly(server, path);
  chmodSync(path, 0o600);
  return server;
}

/** Binding a Unix socket creates its file synchronously inside listen(), under the umask in force then. */
function listenOwnerOnly(server: Server, path: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const previous = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
}

export function sendToAdminSocket(dataDir: string, argv: string[]): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(adminSocketPath(dataDir));
    let output = '';
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.on('data', (chunk: string) => (output += chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(output) as Reply);
      } catch {
        reject(new Error('the running server gave no answer'));
      }
    });
    socket.on('error', reject);
  });
}
