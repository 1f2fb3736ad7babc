// The human table per scenario and the JSON file per run (bench/results/<time>-<mode>.json).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { ScenarioOutcome, Settings, SubjectSummary } from '../scenarios/scenario.js';

export type ScenarioStatus = 'ran' | 'not-runnable' | 'failed';

export interface ScenarioRecord {
  name: string;
  title: string;
  status: ScenarioStatus;
  /** For not-runnable and failed scenarios. */
  reason?: string;
  outcome?: ScenarioOutcome;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const num = (v: number | undefined, digits = 0) => (v === undefined || !Number.isFinite(v) ? '-' : v.toFixed(digits));

// Column widths after the subject; the two req/cpu-s columns share one heading (server alone, server + PostgreSQL).
const W = { subject: 34, rps: 7, perCpu: 7, perCpuDb: 7, p50: 7, p99: 7, errors: 6, cpu: 5, main: 6, dbCpu: 8, rss: 6, sql: 7 };

/** Quick mode shows no speed (req/s, per-core, latency); CPU use and memory are shown as measured. */
function row(s: SubjectSummary, quick: boolean): string {
  return [
    pad(s.label, W.subject),
    lpad(quick ? '(quick)' : num(s.median.rps), W.rps),
    lpad(quick ? '' : num(s.median.perCpuSecond), W.perCpu),
    lpad(quick ? '' : num(s.median.perCpuSecondWithDb), W.perCpuDb),
    lpad(quick ? '' : num(s.median.p50, 1), W.p50),
    lpad(quick ? '' : num(s.median.p99, 1), W.p99),
    lpad(String(s.errors + s.warmupErrors), W.errors),
    lpad(num(s.median.cpuPercent), W.cpu),
    lpad(num(s.median.mainThreadCpuPercent), W.main),
    lpad(num(s.median.dbCpuPercent), W.dbCpu),
    lpad(num(s.median.rssMaxMiB), W.rss),
    lpad(num(s.median.statementsPerRequest, 1), W.sql),
  ].join(' ');
}

function header(): string[] {
  const perCpuWidth = W.perCpu + 1 + W.perCpuDb;
  const group = ' req/cpu-s ';
  const side = (perCpuWidth - group.length) / 2;
  return [
    `   ${pad('', W.subject)} ${lpad('', W.rps)} ${'─'.repeat(Math.floor(side))}${group}${'─'.repeat(Math.ceil(side))}`,
    `   ${pad('subject', W.subject)} ${lpad('req/s', W.rps)} ${lpad('server', W.perCpu)} ${lpad('+db', W.perCpuDb)} ${lpad('p50 ms', W.p50)} ${lpad('p99 ms', W.p99)} ` +
      `${lpad('errors', W.errors)} ${lpad('cpu %', W.cpu)} ${lpad('main %', W.main)} ${lpad('db cpu %', W.dbCpu)} ${lpad('rss MB', W.rss)} ${lpad('sql/req', W.sql)}`,
  ];
}

export function formatScenario(record: ScenarioRecord, quick: boolean): string {
  const lines = [`\n== ${record.name}: ${record.title}`];
  if (record.status === 'not-runnable') return [...lines, `   NOT RUNNABLE YET: ${record.reason}`].join('\n');
  if (record.status === 'failed') return [...lines, `   FAILED: ${record.reason}`].join('\n');
  const o = record.outcome!;
  lines.push(...header());
  for (const s of o.subjects) lines.push(`   ${row(s, quick)}`);
  for (const u of o.unavailable) lines.push(`   ${pad(u.label, 34)} NOT RUNNABLE YET: ${u.reason}`);
  for (const f of o.figures ?? []) lines.push(`   ${quick ? '' : `${f.label}: ${num(f.value, 2)} ${f.unit}`}`.trimEnd());
  for (const c of o.checks) {
    lines.push(
      quick
        ? `   target ${c.label} ${c.target}: not judged in quick mode`
        : `   ${c.pass ? 'PASS' : 'MISS'} ${c.label}: ${c.value} ${c.unit === '×' ? '×' : c.unit} (target ${c.target})`,
    );
  }
  if (!quick) {
    for (const s of o.subjects.filter((x) => x.role === 'gatehouse')) {
      const statements = s.runs.at(-1)?.statements ?? [];
      if (statements.length === 0) continue;
      lines.push(`   SQL per request, ${s.label} (last run; per call: execution µs, planning µs, WAL bytes):`);
      for (const st of statements.slice(0, 6)) {
        const cost = st.execUs !== undefined ? `${lpad(num(st.execUs, 1), 6)} ${lpad(num(st.planUs ?? 0, 1), 5)} ${lpad(num(st.walBytes ?? 0, 0), 5)}  ` : '';
        lines.push(`     ${st.perRequest.toFixed(2)} × ${cost}${st.query.slice(0, 110)}`);
      }
    }
  }
  for (const n of o.notes) lines.push(`   note: ${n}`);
  return lines.filter((l) => l.trim() !== '').join('\n');
}

export function writeResults(dir: string, mode: 'quick' | 'full', settings: Settings, records: ScenarioRecord[]): string {
  mkdirSync(dir, { recursive: true });
  const at = new Date();
  const file = join(dir, `${at.toISOString().replace(/[:.]/g, '-')}-${mode}.json`);
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return undefined;
    }
  })();
  const machine = { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, platform: process.platform };
  writeFileSync(file, JSON.stringify({ at: at.toISOString(), mode, commit, machine, settings, scenarios: records }, null, 2));
  return file;
}
