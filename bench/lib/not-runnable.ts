// A scenario (or one side of it) whose Gatehouse feature has not landed yet: reported as such, never as a number.
export class NotRunnable extends Error {
  override readonly name = 'NotRunnable';
}

/** How a NotRunnable crosses the IPC channel from a child. */
export const NOT_RUNNABLE_PREFIX = 'NOT RUNNABLE: ';
