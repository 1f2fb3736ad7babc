export interface FileFailure {
  file: string;
  name: string;
  error: string;
}

export interface Totals {
  files: number;
  tests: number;
  pass: number;
  fail: number;
  cancelled: number;
  skipped: number;
  todo: number;
  failures: FileFailure[];
}

export const DURATIONS_FILE: string;

export function runFiles(options: {
  label: string;
  env?: Record<string, string>;
  files: string[];
  workers: number;
  durationsFile?: string;
  write?: (text: string) => void;
}): Promise<Totals>;

export function printTotals(label: string, totals: Totals): number;
