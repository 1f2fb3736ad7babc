/** Milliseconds since the epoch; injected so tests (and Gatehouse's own clock) decide what "now" is. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
