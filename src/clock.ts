// The only source of "now" in Gatehouse: expiry logic takes a Clock so tests move time instead of sleeping.
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const epochSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);

/** A clock tests can move by hand. */
export function manualClock(start = Date.now()): Clock & { advance(ms: number): void; set(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
