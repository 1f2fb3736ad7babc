// The oldest Node.js Gatehouse runs on (package.json "engines" says the same; a test keeps them equal): the
// oldest LTS line still supported (Node 20 reached its end of life in April 2026), and what our dependencies need
// (cookie@2, through @fastify/cookie, declares Node 22; the OpenTelemetry SDK packages declare 22.15).
// Checked before anything else is loaded, so an old runtime gets one line instead of a syntax or API error.
export const MIN_NODE_VERSION = '22.15.0';

const parts = (version: string): number[] =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((p) => Number.parseInt(p, 10) || 0);

/** A sentence saying why `version` is too old, or undefined when it will do. */
export function nodeVersionProblem(version: string, minimum = MIN_NODE_VERSION): string | undefined {
  const have = parts(version);
  const need = parts(minimum);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i]!;
    if (a > b) return undefined;
    if (a < b) return `Node.js ${minimum.replace(/\.0$/, '')} or newer is required (this is ${version.replace(/^v/, '')}); see https://nodejs.org/en/download`;
  }
  return undefined;
}
