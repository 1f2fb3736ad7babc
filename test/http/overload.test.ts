import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/app.js';

function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Deliberately block the event loop: this is the forced pressure under test.
  }
}

test('under forced event-loop pressure new requests are shed with 503 + Retry-After, while /healthz and /readyz keep answering', async () => {
  const t = await startTestApp({
    env: { OVERLOAD_MAX_EVENT_LOOP_DELAY: '100' },
    configure(app) {
      app.get('/test/block', async () => {
        busy(400);
        return { blocked: true };
      });
      app.get('/test/ping', async () => ({ pong: true }));
    },
  });
  try {
    let shed: Response | undefined;
    // Each round blocks the loop for 400 ms; the next sample (every 250 ms) sees the delay.
    for (let round = 0; round < 20 && !shed; round++) {
      await fetch(`${t.url}/test/block`);
      const res = await fetch(`${t.url}/test/ping`);
      if (res.status === 503) shed = res;
      else assert.equal(res.status, 200);
    }
    assert.ok(shed, 'a request was shed under pressure');
    assert.equal(shed.headers.get('retry-after'), '5');
    assert.equal(((await shed.json()) as { code: string }).code, 'service-unavailable');
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
    // Readiness means "the database answers": start-up work or a busy loop never makes an instance unready.
    busy(400);
    assert.equal((await fetch(`${t.url}/readyz`)).status, 200);
  } finally {
    await t.close();
  }
});

test('a freshly started instance serves its first requests even though start-up blocked the event loop', async () => {
  const t = await startTestApp({
    env: { OVERLOAD_MAX_EVENT_LOOP_DELAY: '100' },
    configure(app) {
      // Start-up work (module loading, key import) keeps the loop busy in long slices just before the
      // server listens, so the delay samples of start-up read far above the threshold.
      app.addHook('onReady', async () => {
        for (let slice = 0; slice < 4; slice++) {
          busy(300);
          await new Promise((resolve) => setImmediate(resolve));
        }
      });
      app.get('/test/ping', async () => ({ pong: true }));
    },
  });
  try {
    const first = await fetch(`${t.url}/test/ping`);
    assert.equal(first.status, 200, await first.text());
  } finally {
    await t.close();
  }
});
