// What PostgreSQL's error codes (SQLSTATE) mean to the code above storage, as error classes: a repository
// translates the code where it knows what the statement was doing, and services catch the class. No SQLSTATE
// is read outside src/storage.

const sqlState = (error: unknown): string | undefined => (error as { code?: unknown } | null)?.code as string | undefined;

/** 23505 unique_violation. */
export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505';
/** 23503 foreign_key_violation. */
export const isForeignKeyViolation = (error: unknown): boolean => sqlState(error) === '23503';

/**
 * Text PostgreSQL cannot store (a NUL character, in text or jsonb): 22021 character_not_in_repertoire or
 * 22P05 untranslatable_character — the input is at fault, not the server.
 */
export const isUnstorableText = (error: unknown): boolean => sqlState(error) === '22021' || sqlState(error) === '22P05';

/** A row could not be deleted: rows elsewhere (a user's orders and payments) still refer to it. */
export class StillReferencedError extends Error {
  override readonly name = 'StillReferencedError';
}
