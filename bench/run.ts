// `npm run bench [-- scenario…] [--runs N] [--seconds S] [--soak S] [--cpu-prof]` and `npm run bench:quick`.
// Starts everything it needs, runs the scenarios, prints a table each, writes bench/results/<time>.json.
// Quick mode runs each scenario briefly once and asserts only that it ran without errors — never a speed.
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { environment } from './lib/environment.js';
import { NotRunnable } from './lib/not-runnable.js';
import { formatScenario, writeResults, type ScenarioRecord } from './lib/report.js';
import { scenarios } from './scenarios/index.js';
import type { Settings } from './scenarios/scenario.js';

const { values, positionals } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    runs: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    soak: { type: 'string' },
    connections: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const quick = values.quick;
const settings: Settings = {
  quick,
  connections: Number(values.connections ?? 64),
  seconds: Number(values.seconds ?? (quick ? 1.5 : 10)),
  runs: Number(values.runs ?? (quick ? 1 : 3)),
  warmupSeconds: Number(values.warmup ?? (quick ? 0 : 3)),
  soakSeconds: Number(values.soak ?? (quick ? 0 : 60)),
};

const unknown = positionals.filter((p) => !scenarios.some((s) => s.name === p));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${scenarios.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
const selected = positionals.length > 0 ? scenarios.filter((s) => positionals.includes(s.name)) : scenarios;
const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
const t0 = performance.now();
const log = (m: string) => console.log(m.startsWith('\n') ? m : `[${((performance.now() - t0) / 1000).toFixed(1).padStart(5)} s] ${m}`);
const env = environment({ log, quick, ...(values['cpu-prof'] ? { cpuProfileDir: `${resultsDir}profiles` } : {}) });

// Ctrl-C must not leave a PostgreSQL server or a child behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers`);
    env.stop().finally(() => process.exit(130));
  });
}

const records: ScenarioRecord[] = [];
const started = performance.now();
try {
  console.log(
    `gatehouse bench (${quick ? 'quick: brief single runs, no speed is judged' : `full: warm-up ${settings.warmupSeconds} s, ${settings.runs} × ${settings.seconds} s alternating runs`}), ${settings.connections} connections`,
  );
  // Child start-up (tsx compiling the sources) dominates a quick run: start every server at once.
  env.prestart();
  for (const scenario of selected) {
    log(`\n-- ${scenario.name}`);
    let record: ScenarioRecord;
    try {
      const outcome = await scenario.run({ env, settings, log });
      record = outcome.subjects.some((s) => s.role === 'gatehouse')
        ? { name: scenario.name, title: scenario.title, status: 'ran', outcome }
        : {
            name: scenario.name,
            title: scenario.title,
            status: 'not-runnable',
            reason: outcome.unavailable.map((u) => `${u.label}: ${u.reason}`).join('; ') || 'no Gatehouse side',
            outcome,
          };
    } catch (error) {
      record =
        error instanceof NotRunnable
          ? { name: scenario.name, title: scenario.title, status: 'not-runnable', reason: error.message }
          : { name: scenario.name, title: scenario.title, status: 'failed', reason: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    records.push(record);
    console.log(formatScenario(record, quick));
  }
} finally {
  await env.stop();
}

const file = writeResults(resultsDir, quick ? 'quick' : 'full', settings, records);
const failed = records.filter((r) => r.status === 'failed' || (r.outcome?.subjects.some((s) => s.errors + s.warmupErrors > 0) ?? false));
console.log(`\nresults: ${file} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
const notRunnable = records.filter((r) => r.status === 'not-runnable');
if (notRunnable.length > 0) console.log(`not runnable yet: ${notRunnable.map((r) => r.name).join(', ')}`);
if (failed.length > 0) {
  console.log(`FAILED (errors or a scenario that did not run): ${failed.map((r) => r.name).join(', ')}`);
  process.exitCode = 1;
}
