// The Idempotency-Key header as a route schema, so the OpenAPI document shows it on every opted-in POST.
import { Type } from '@sinclair/typebox';

export const idempotencyKeyHeader = (required: boolean) =>
  Type.Object({
    'idempotency-key': Type.Optional(
      Type.String({
        description: `${required ? 'Required' : 'Optional'}: a UUID or an RFC 8941 quoted string (1–255 printable characters), unique per logical operation; a retry with the same key and body replays the first response.`,
      }),
    ),
  });
