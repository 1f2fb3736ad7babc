// Targets from the issue, judged on medians of the same run.
import type { Check, SubjectSummary } from '../scenarios/scenario.js';
import { round } from './stats.js';

export function ratioAtLeast(label: string, a: SubjectSummary | undefined, b: SubjectSummary | undefined, min: number): Check[] {
  if (!a || !b) return [];
  const value = round(a.median.rps / b.median.rps, 2);
  return [{ label, value, unit: '×', target: `≥ ${min}`, pass: value >= min }];
}

export function ratioAtMost(label: string, value: number, max: number): Check {
  return { label, value: round(value, 2), unit: '×', target: `≤ ${max}`, pass: value <= max };
}

export function atMost(label: string, value: number, max: number, unit: string): Check {
  return { label, value: round(value, 1), unit, target: `≤ ${max} ${unit}`, pass: value <= max };
}

export function atLeast(label: string, value: number, min: number, unit: string): Check {
  return { label, value: round(value, 1), unit, target: `≥ ${min} ${unit}`, pass: value >= min };
}

/** The same comparison per core: requests per server CPU-second (robust when the machine is shared). */
export function perCoreRatioAtLeast(label: string, a: SubjectSummary | undefined, b: SubjectSummary | undefined, min: number): Check[] {
  if (!a || !b) return [];
  const value = round(a.median.perCpuSecond / b.median.perCpuSecond, 2);
  return [{ label, value, unit: '×', target: `≥ ${min}`, pass: value >= min }];
}
