// Leaves work behind that throws after its suite has ended: no test can be blamed, and the runner must still
// count it as a failure rather than lose it with the worker's never-ending root test.
import { after, test } from 'node:test';

test('passes', () => {});
after(() => {
  setImmediate(() => {
    throw new Error('stray after the suite');
  });
});
