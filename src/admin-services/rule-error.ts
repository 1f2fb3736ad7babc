// Errors of the administration services, as values with stable codes. Each face turns them into its own
// format in one place: the admin API into Problem Details (src/admin/service-errors.ts), the CLI into
// usage errors naming its flags (src/cli/commands/*).
export type AdminRuleCode = 'invalid' | 'not-found' | 'stale' | 'conflict';

export class AdminRuleError extends Error {
  override readonly name = 'AdminRuleError';
  constructor(
    readonly code: AdminRuleCode,
    message: string,
    /** The field (API member name) at fault, and its value when quoting it helps. */
    readonly field?: string,
    readonly value?: string,
  ) {
    super(message);
  }
}

/** Several fields at fault at once (each face lists them all). */
export class AdminFieldErrors extends AdminRuleError {
  constructor(readonly errors: readonly { field: string; message: string }[]) {
    super('invalid', errors.map((e) => `${e.field} ${e.message}`).join('; '), errors[0]?.field);
  }
}
