// Ends its worker process mid-file: the file fails and the files after it still run on a new worker.
import { test } from 'node:test';

test('exits the process', () => {
  process.exit(0);
});
