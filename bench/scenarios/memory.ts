// Memory under the client_credentials load. Gatehouse on PostgreSQL: peak RSS ≤ 200 MB, and a leak check —
// RSS growth ≤ 5% over a soak. The issue asks for a 3-minute soak; `npm run bench` soaks 60 s by default to
// spare the shared machine (`--soak 180` for the full length). Quick mode runs the load briefly, no soak.
// Then the embedded default (memory-embedded.ts): idle and peak footprint with its own server, and restart time.
import { measureUsage } from '../lib/proc-stats.js';
import { runLoad } from '../lib/load.js';
import { summarise } from '../lib/measure.js';
import { atMost } from '../lib/checks.js';
import { median } from '../lib/stats.js';
import type { Scenario, Unavailable } from './scenario.js';
import { gatehouseTokenSubject } from './client-credentials.js';
import { embeddedFootprint } from './memory-embedded.js';
import { unlessNotRunnable } from './subjects.js';

export const memory: Scenario = {
  name: 'memory',
  title:
    'Memory under client_credentials load: Gatehouse on PostgreSQL (RSS, soak growth); the embedded default (RSS + server PSS, idle and peak; restart time)',
  async run(context) {
    const { settings, log } = context;
    const { subject } = await gatehouseTokenSubject(context, 'postgres');
    const spec = await subject.load({ seconds: settings.seconds, connections: settings.connections, expectedRate: 0 });
    if ('drive' in spec) throw new Error('memory soak needs an autocannon load');
    const warm = Math.max(settings.warmupSeconds, settings.quick ? 0 : 10);
    if (warm > 0) {
      log(`  warm-up ${warm} s (JIT, pools and caches reach their working size before the soak starts)`);
      await runLoad(spec, { connections: settings.connections, seconds: warm });
    }
    const seconds = settings.soakSeconds > 0 ? settings.soakSeconds : settings.seconds;
    log(`  ${settings.soakSeconds > 0 ? 'soak' : 'load'} ${seconds} s, RSS sampled every second`);
    const { result, usage } = await measureUsage(subject.server.pid, () => runLoad(spec, { connections: settings.connections, seconds }), 1_000);
    const { samples, ...window } = usage;
    const summary = summarise(subject, [{ load: result, usage: window }]);
    const tenth = Math.max(1, Math.floor(samples.length / 10));
    const startRss = median(samples.slice(0, tenth).map((s) => s.rssMiB));
    const endRss = median(samples.slice(-tenth).map((s) => s.rssMiB));
    const growth = ((endRss - startRss) / startRss) * 100;
    const checks = [atMost('Gatehouse (PostgreSQL) peak RSS under client_credentials load', usage.rssMaxMiB, 200, 'MB')];
    if (settings.soakSeconds > 0) checks.push(atMost(`RSS growth over the ${seconds} s soak (first vs last tenth)`, growth, 5, '%'));
    const unavailable: Unavailable[] = [];
    const embedded = await unlessNotRunnable('Gatehouse (embedded default)', unavailable, () => embeddedFootprint(context));
    return {
      subjects: [summary, ...(embedded ? [embedded.summary] : [])],
      unavailable,
      checks: [...checks, ...(embedded?.checks ?? [])],
      figures: [
        { label: 'RSS at the start of the window (MB)', value: startRss, unit: 'MB' },
        { label: 'RSS at the end of the window (MB)', value: endRss, unit: 'MB' },
        ...(embedded?.figures ?? []),
      ],
      notes: [
        settings.soakSeconds > 0 ? `soak of ${seconds} s (the issue's figure is 180 s: --soak 180)` : 'no soak in this mode: growth is not judged',
        ...(embedded?.notes ?? []),
      ],
    };
  },
};
