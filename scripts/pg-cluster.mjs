// A throwaway PostgreSQL server from the Debian binaries: initdb in a temp dir, start on a free
// loopback port, and remove everything on stop. Used by `npm test`, the multi-process tests and `npm run bench`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function findPostgresBin() {
  if (process.env.PG_BIN && existsSync(join(process.env.PG_BIN, 'initdb'))) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** initdb refuses to run as root; as root we run the server as the Debian `postgres` user. */
function asServerUser(bin, args, dir) {
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    chownRecursive(dir);
    return spawnSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8' });
  }
  return spawnSync(bin, args, { encoding: 'utf8' });
}

function chownRecursive(dir) {
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  chownSync(dir, uid, gid);
}

export async function startCluster({ maxConnections = 300 } = {}) {
  const bin = findPostgresBin();
  if (!bin) throw new Error('PostgreSQL binaries not found (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  let r = asServerUser(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], dir);
  if (r.status !== 0) throw new Error(`initdb failed: ${r.stderr || r.stdout}`);
  const start = () =>
    asServerUser(
      join(bin, 'pg_ctl'),
      [
        '-D',
        data,
        '-w',
        '-t',
        '60',
        '-l',
        join(dir, 'server.log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=${maxConnections}`,
        'start',
      ],
      dir,
    );
  r = start();
  if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr || r.stdout}`);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    dir,
    databaseUrl: (name) => `postgres://postgres@127.0.0.1:${port}/${name}`,
    /** Stops the server (fast shutdown) keeping the data; `start()` brings it back on the same port. */
    pause: () => asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-w', '-m', 'fast', 'stop'], dir),
    resume: () => start(),
    /** The running postmaster's pid (first line of postmaster.pid; it changes across pause/resume), or undefined when stopped. */
    postmasterPid() {
      try {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
        return Number.isInteger(pid) && pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    stop() {
      asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-w', '-m', 'immediate', 'stop'], dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
