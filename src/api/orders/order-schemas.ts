// Route schemas of /v1/orders: they validate input (wrong types → 400) and document the API.
import { Type } from '@sinclair/typebox';
import { pageQueryProperties } from '../../http/pagination/index.js';

const link = Type.Object({ href: Type.String(), method: Type.Optional(Type.Literal('POST')) });

export const orderSchema = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('paid'), Type.Literal('cancelled')]),
  currency: Type.String(),
  items: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer(), unit_price: Type.String() })),
  total: Type.String({ description: 'Decimal string in the currency (e.g. "12.50").' }),
  payment_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  _links: Type.Record(Type.String(), link),
});

export const createOrderBody = Type.Object({
  currency: Type.String({ description: 'ISO 4217 code from the configured list.' }),
  items: Type.Array(
    Type.Object({
      sku: Type.String(),
      quantity: Type.Integer(),
      unit_price: Type.Union([Type.String(), Type.Number()], { description: 'Decimal, at most the currency minor-unit digits.' }),
    }),
  ),
});

export const orderParams = Type.Object({ id: Type.String({ maxLength: 200 }) });

export const listOrdersQuery = Type.Object({
  ...pageQueryProperties,
  user_id: Type.Optional(Type.String({ description: 'Service tokens only: orders of this user.' })),
  status: Type.Optional(Type.String({ description: 'pending, paid or cancelled.' })),
  sort: Type.Optional(Type.String({ description: 'Only `-created_at` (newest first, the default).' })),
});

export const orderListSchema = Type.Object({
  data: Type.Array(orderSchema),
  pagination: Type.Object({
    next_cursor: Type.Union([Type.String(), Type.Null()]),
    has_more: Type.Boolean(),
    limit: Type.Integer(),
    offset: Type.Optional(Type.Integer()),
  }),
});
