// The /v1/payments schemas: one source for input validation (wrong shapes or JSON types → 400), response
// serialisation and the OpenAPI document. Value rules live in payment-input.ts (failures → 422).
import { Type, type Static } from '@sinclair/typebox';

export const PaymentSchema = Type.Object({
  id: Type.String(),
  amount: Type.String(),
  currency: Type.String(),
  account: Type.Union([Type.String(), Type.Null()]),
  order_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  _links: Type.Record(Type.String(), Type.Object({ href: Type.String() })),
});

export const CreatePaymentSchema = Type.Object({
  amount: Type.Union([Type.String(), Type.Number()], { description: 'Decimal, at most the currency minor-unit digits.' }),
  currency: Type.String({ description: 'ISO 4217 code from the configured list.' }),
  account: Type.String({ description: '1 to 64 characters.' }),
  order_id: Type.Optional(Type.String({ description: 'Pay this pending order; amount and currency must equal its total.' })),
});

export const PaymentParamsSchema = Type.Object({ id: Type.String({ maxLength: 200 }) });

export type CreatePaymentBody = Static<typeof CreatePaymentSchema>;
