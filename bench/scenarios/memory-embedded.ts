// The embedded default's footprint (issue targets: ≤ 150 MB idle, ≤ 250 MB under the client_credentials load,
// start to ready ≤ 3 s). Its memory is two parts: Gatehouse's RSS (one process) plus its own PostgreSQL server,
// counted as the sum of PSS over the postmaster and its backends — they share PostgreSQL's shared memory, so a sum
// of their RSS would count shared_buffers once per process (see lib/proc-stats.ts, docs/embedded-database.md).
import { setTimeout as delay } from 'node:timers/promises';
import { footprint, measureFootprint, measureUsage, processTree, type FootprintSample } from '../lib/proc-stats.js';
import { runLoad } from '../lib/load.js';
import { summarise } from '../lib/measure.js';
import { atMost } from '../lib/checks.js';
import { gatehouseLabel } from '../lib/environment.js';
import type { Check, ScenarioContext, SubjectSummary } from './scenario.js';
import { gatehouseTokenSubject, tokenSubject } from './client-credentials.js';

/** "Idle" is read this long after the ready message: start-up's own allocations settle, nothing has been requested. */
const IDLE_AFTER_READY_MS = 5_000;

export interface EmbeddedFootprint {
  summary: SubjectSummary;
  checks: Check[];
  figures: { label: string; value: number; unit: string }[];
  notes: string[];
}

const parts = (s: FootprintSample) => `Gatehouse RSS ${s.serverRssMiB.toFixed(1)} + server PSS ${s.databasePssMiB.toFixed(1)} = ${s.totalMiB.toFixed(1)} MB`;

export async function embeddedFootprint(context: ScenarioContext): Promise<EmbeddedFootprint> {
  const { env, settings, log } = context;
  const kind = 'embedded';
  // First start on an empty DATA_DIR (initdb, migrations, signing keys), then the client the load uses.
  const first = await gatehouseTokenSubject(context, kind);
  const firstMs = env.readyMs(first.subject.server);

  // A restart on the same DATA_DIR: the clean stop shuts the embedded server down (last process out), so the
  // new process starts it again rather than adopting it.
  const firstDatabasePid = await env.databasePid(first.subject.server);
  // The restart runs the built server (`node dist/src/main.js`, what `npm start` runs): the targets concern what
  // users run, not the bench's tsx harness.
  log('  restarting the embedded default on its DATA_DIR as `node dist/src/main.js` (start to ready)');
  const server = await env.restartGatehouse(kind, { built: true });
  const restartMs = env.readyMs(server);
  const databasePid = await env.databasePid(server);
  if (databasePid === undefined) throw new Error(`${server.name}: no postmaster.pid in its DATA_DIR after the restart`);
  // Same postmaster = the server outlived the stop and was adopted: then the restart did not start a server.
  const restartedServer = databasePid !== firstDatabasePid;
  log(`  postmaster ${firstDatabasePid} → ${databasePid}${restartedServer ? ' (a new server)' : ' (adopted, not restarted)'}`);

  await delay(IDLE_AFTER_READY_MS);
  const idle = footprint(server.pid, databasePid);
  const idleProcesses = processTree(databasePid).length;
  log(`  idle (ready + ${IDLE_AFTER_READY_MS / 1000} s): ${parts(idle)}, ${idleProcesses} server processes`);

  const subject = tokenSubject(`gatehouse-${kind}`, gatehouseLabel(kind), 'gatehouse', server, first.client);
  const spec = await subject.load({ seconds: settings.seconds, connections: settings.connections, expectedRate: 0 });
  if ('drive' in spec) throw new Error('the memory scenario needs an autocannon load');
  log(`  client_credentials ${settings.seconds} s at ${settings.connections} connections (after ${settings.warmupSeconds} s warm-up), sampled every 500 ms`);
  let peakProcesses = 0;
  const { result, peak } = await measureFootprint(server.pid, databasePid, async () => {
    if (settings.warmupSeconds > 0) await runLoad(spec, { connections: settings.connections, seconds: settings.warmupSeconds });
    const measured = await measureUsage(server.pid, () => runLoad(spec, { connections: settings.connections, seconds: settings.seconds }), 1_000);
    peakProcesses = processTree(databasePid).length;
    return measured;
  });
  log(`  peak under load: ${parts(peak)}`);
  const { samples: _samples, ...window } = result.usage;
  const summary = summarise(subject, [{ load: result.result, usage: window }]);

  const checks = [
    atMost('embedded default idle, Gatehouse RSS + server PSS (ready + 5 s)', idle.totalMiB, 150, 'MB'),
    atMost('embedded default peak under client_credentials load, Gatehouse RSS + server PSS', peak.totalMiB, 250, 'MB'),
  ];
  if (restartMs !== undefined && restartedServer) checks.push(atMost('embedded default restart on its DATA_DIR, spawn to ready', restartMs / 1000, 3, 's'));
  const figures = [
    { label: 'embedded idle: Gatehouse RSS', value: idle.serverRssMiB, unit: 'MB' },
    { label: 'embedded idle: server PSS (postmaster + children)', value: idle.databasePssMiB, unit: 'MB' },
    { label: 'embedded peak: Gatehouse RSS at the peak', value: peak.serverRssMiB, unit: 'MB' },
    { label: 'embedded peak: server PSS at the peak', value: peak.databasePssMiB, unit: 'MB' },
    ...(firstMs !== undefined
      ? [{ label: 'embedded first start, includes initdb (spawn to ready, started beside the other servers)', value: firstMs / 1000, unit: 's' }]
      : []),
  ];
  const notes = [
    `embedded default: idle ${parts(idle)} (${idleProcesses} server processes); load peak ${parts(peak)} (${peakProcesses} server processes at the end of the load)`,
    `embedded default: postmaster ${firstDatabasePid} → ${databasePid}${restartedServer ? '' : ': the server was adopted, so the restart time is not judged'}`,
    `embedded default: restart ${restartMs === undefined ? '?' : (restartMs / 1000).toFixed(2)} s, first start ${firstMs === undefined ? '?' : (firstMs / 1000).toFixed(2)} s (restart: spawn of \`node dist/src/main.js\` to its first /healthz answer; first start: the bench's tsx harness, beside the other servers)`,
  ];
  return { summary, checks, figures, notes };
}
