// Its worker process dies mid-file (killed outright, as an out-of-memory kill would): the file fails and the
// files after it still run on a new worker.
import { test } from 'node:test';

test('the worker process dies', () => {
  process.kill(process.pid, 'SIGKILL');
});
