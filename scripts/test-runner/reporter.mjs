// Reporter of a shared test process: formats events with node's own spec reporter, and when a file's
// suite (nesting 0) ends, sends the file's whole output and its counts to the parent in one message, so
// the parent prints each file in one piece although several processes run at once.
import { spec } from 'node:test/reporters';

// The spec reporter prints a failure's details only in its end-of-run summary, which a shared process never
// reaches per file; so the failure's whole message (bounded) travels with the counts, and a CI log says why a
// test failed, not only that it did.
const MAX_FAILURE_TEXT = 4000;
const failureText = (error) => {
  const text = String(error?.cause?.message ?? error?.message ?? error ?? '');
  return text.length > MAX_FAILURE_TEXT ? `${text.slice(0, MAX_FAILURE_TEXT)}…` : text;
};

function newFile() {
  return { text: '', tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0, failures: [] };
}

function count(file, type, data) {
  if (data.details?.type === 'suite') {
    // A suite that failed by itself (a hook, not one of its tests) is a failure of its own.
    const failureType = data.details.error?.failureType;
    if (type === 'test:fail' && failureType !== 'subtestsFailed' && failureType !== 'cancelledByParent') {
      file.fail += 1;
      file.failures.push({ name: data.name, error: failureText(data.details.error) });
    }
    return;
  }
  file.tests += 1;
  if (type === 'test:pass') {
    if (data.skip !== undefined) file.skipped += 1;
    else if (data.todo !== undefined) file.todo += 1;
    else file.pass += 1;
  } else if (data.details?.error?.failureType === 'cancelledByParent') {
    file.cancelled += 1;
    file.failures.push({ name: data.name, error: 'cancelled' });
  } else {
    file.fail += 1;
    file.failures.push({ name: data.name, error: failureText(data.details?.error) });
  }
}

export default async function* fileReporter(source) {
  const formatter = new spec();
  // The spec reporter is a Transform whose _transform answers synchronously; calling it directly keeps the
  // formatted text in step with the event that produced it.
  const format = (event) => {
    let out = '';
    formatter._transform(event, 'utf8', (_error, text) => {
      out = text ?? '';
    });
    return out;
  };
  let file = newFile();
  for await (const event of source) {
    if (event.type === 'test:stdout' || event.type === 'test:stderr') continue;
    file.text += format(event);
    const { type, data } = event;
    if ((type !== 'test:pass' && type !== 'test:fail') || !data) continue;
    if (data.nesting > 0) {
      count(file, type, data);
      continue;
    }
    process.send?.({ type: 'result', name: data.name, ok: type === 'test:pass', durationMs: data.details?.duration_ms ?? 0, ...file });
    file = newFile();
  }
  yield '';
}
