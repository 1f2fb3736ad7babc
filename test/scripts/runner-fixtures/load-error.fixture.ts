// A file that throws while it is imported: one failure, not a silent file without tests.
import { test } from 'node:test';

const broken = (): never => {
  throw new Error('broken at import');
};
broken();
test('never registered', () => {});
