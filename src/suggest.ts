// "Did you mean …?" for a mistyped name: the closest candidate by edit distance, if it is close enough to
// be the likely intent (a third of the word's length, at least two edits).
function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  for (const candidate of candidates) {
    const d = distance(input.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** " (did you mean X?)" or "", for appending to an error message. */
export const didYouMean = (input: string, candidates: readonly string[]): string => {
  const match = closest(input, candidates);
  return match ? ` (did you mean ${match}?)` : '';
};

/** Levenshtein distance, two rows at a time. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
