// The CLI talks to a running server through a Unix socket in DATA_DIR: whoever can connect to it runs
// admin commands, so it must never be open to other local users, not even for an instant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { Server } from 'node:net';
import { startTestApp } from '../helpers/app.js';
import { adminSocketPath, sendToAdminSocket, startAdminSocket } from '../../src/cli/admin-socket.js';

test('the admin socket is never accessible to group or others, not even at the instant it is bound (umask set before listen, restored after)', async () => {
  const t = await startTestApp();
  const path = adminSocketPath(t.config.DATA_DIR);
  // Binding a Unix socket creates its file synchronously inside listen(): record its mode right then.
  const modesAtBind: number[] = [];
  const listen = Server.prototype.listen;
  const previousUmask = process.umask(0o000);
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const result = (listen as (...a: unknown[]) => Server).apply(this, args);
    if (args[0] === path) modesAtBind.push(statSync(path).mode & 0o777);
    return result;
  } as typeof listen;
  let server: Server | undefined;
  try {
    server = await startAdminSocket(t.core, () => {});
    const current = process.umask(0o000);
    assert.equal(current, 0o000, 'the process umask is restored after listen');
  } finally {
    Server.prototype.listen = listen;
    process.umask(previousUmask);
  }
  try {
    assert.equal(modesAtBind.length, 1);
    assert.equal(modesAtBind[0]! & 0o077, 0, `mode at bind was 0${modesAtBind[0]!.toString(8)}`);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const reply = await sendToAdminSocket(t.config.DATA_DIR, ['clients', 'list']);
    // A fresh server has registered no client but its built-in console client.
    const { ok, result } = reply as { ok: boolean; result: { clients: { client_id: string }[] } };
    assert.equal(ok, true);
    assert.deepEqual(
      result.clients.map((c) => c.client_id),
      ['gatehouse-console'],
    );
  } finally {
    server?.close();
    await t.close();
  }
});
