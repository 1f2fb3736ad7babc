// What a scenario is: set-up → the load (target URL and requests) per subject → measured runs → checks.
import type { ChildServer } from '../lib/child.js';
import type { Environment } from '../lib/environment.js';
import type { LoadResult, LoadSpec } from '../lib/load.js';

/** A load the scenario drives itself (multi-step flows autocannon cannot express). */
export interface DrivenLoad {
  drive(): Promise<LoadResult>;
}
import type { UsageWindow } from '../lib/proc-stats.js';

export interface Settings {
  quick: boolean;
  connections: number;
  /** Length of one measured run. */
  seconds: number;
  runs: number;
  warmupSeconds: number;
  soakSeconds: number;
}

export interface ScenarioContext {
  env: Environment;
  settings: Settings;
  log(message: string): void;
}

export type Role = 'gatehouse' | 'peer' | 'baseline';

export interface RunInfo {
  seconds: number;
  connections: number;
  /** Requests per second this subject reached so far (sizes pools of single-use requests). */
  expectedRate: number;
}

export interface Subject {
  key: string;
  label: string;
  role: Role;
  server: ChildServer;
  /** First guess of the rate, before a run has measured it. */
  initialRate?: number;
  /** Connections for this subject when it differs from the run's (slow contrasts that would time out). */
  connections?: number;
  /** Database whose pg_stat_statements calls are counted per request. */
  statementsDatabase?: string;
  load(run: RunInfo): Promise<LoadSpec | DrivenLoad>;
}

export interface RunRecord {
  load: LoadResult;
  usage: Omit<UsageWindow, 'samples'>;
  statementsPerRequest?: number;
  /**
   * The statements behind statementsPerRequest: text (truncated) and calls per request, most frequent first, with
   * pg_stat_statements' mean execution and planning time per call (µs, inside the backend) and WAL bytes per call.
   */
  statements?: { query: string; perRequest: number; execUs?: number; planUs?: number; walBytes?: number }[];
}

export interface SubjectSummary {
  key: string;
  label: string;
  role: Role;
  runs: RunRecord[];
  warmupErrors: number;
  median: {
    rps: number;
    /** Requests per CPU-second of the server process alone (PostgreSQL not counted). */
    perCpuSecond: number;
    /** Requests per CPU-second of the server plus its PostgreSQL server; equals perCpuSecond for a side without one. */
    perCpuSecondWithDb: number;
    p50: number;
    p99: number;
    /** Server process CPU, percent of one core. */
    cpuPercent: number;
    /** The server's main thread (event loop) alone, percent of one core. */
    mainThreadCpuPercent: number;
    /** PostgreSQL server CPU (postmaster + backends), percent of one core; only for subjects backed by it. */
    dbCpuPercent?: number;
    rssMaxMiB: number;
    statementsPerRequest?: number;
  };
  errors: number;
}

export interface Unavailable {
  label: string;
  reason: string;
}

export interface Check {
  label: string;
  value: number;
  unit: string;
  /** e.g. "≥ 2.0" */
  target: string;
  pass: boolean;
}

export interface ScenarioOutcome {
  subjects: SubjectSummary[];
  unavailable: Unavailable[];
  checks: Check[];
  /** Figures that are reported but judged against no target (e.g. offset at the same depth). */
  figures?: { label: string; value: number; unit: string }[];
  notes: string[];
}

export interface Scenario {
  name: string;
  title: string;
  /** The Gatehouse capability it needs, for the "not runnable yet" message. */
  run(context: ScenarioContext): Promise<ScenarioOutcome>;
}
