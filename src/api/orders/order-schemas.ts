// The /v1/orders schemas: one source for input validation (wrong shapes or JSON types → 400), response
// serialisation and the OpenAPI document. Value rules live in order-input.ts (failures → 422).
import { Type, type Static } from '@sinclair/typebox';
import { pageQueryProperties } from '../../http/pagination/index.js';

const LinkSchema = Type.Object({ href: Type.String(), method: Type.Optional(Type.Literal('POST')) });

export const OrderSchema = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('cancelled')]),
  currency: Type.String(),
  items: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer(), unit_price: Type.String() })),
  total: Type.String({ description: 'Decimal string in the currency (e.g. "12.50").' }),
  payment_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  _links: Type.Record(Type.String(), LinkSchema),
});

export const CreateOrderSchema = Type.Object({
  currency: Type.String({ description: 'ISO 4217 code from the configured list.' }),
  items: Type.Array(
    Type.Object({
      sku: Type.String(),
      quantity: Type.Integer(),
      unit_price: Type.Union([Type.String(), Type.Number()], { description: 'Decimal, at most the currency minor-unit digits.' }),
    }),
  ),
});

export const OrderParamsSchema = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const ListOrdersQuerySchema = Type.Object({
  ...pageQueryProperties,
  user_id: Type.Optional(Type.String({ description: 'Service tokens only: orders of this user.' })),
  status: Type.Optional(Type.String({ description: 'pending, paid or cancelled.' })),
  sort: Type.Optional(Type.String({ description: 'Only `-created_at` (newest first, the default).' })),
});

export const OrderListSchema = Type.Object({
  data: Type.Array(OrderSchema),
  pagination: Type.Object({
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    has_more: Type.Boolean(),
    limit: Type.Integer(),
    offset: Type.Optional(Type.Integer()),
  }),
});

export type CreateOrderBody = Static<typeof CreateOrderSchema>;
export type OrderParams = Static<typeof OrderParamsSchema>;
export type ListOrdersQuery = Static<typeof ListOrdersQuerySchema>;
