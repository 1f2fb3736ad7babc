/** Compiles src/ into dist/ with tsc when a source is newer than the last build (`npm start`, `npx gatehouse`). */
export function ensureBuilt(options?: { quiet?: boolean }): Promise<void>;
