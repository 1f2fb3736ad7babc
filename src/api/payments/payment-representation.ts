import { Type } from '@sinclair/typebox';
import { formatMinor } from '../money.js';
import type { Payment } from '../../storage/payments-repository.js';

export const paymentSchema = Type.Object({
  id: Type.String(),
  amount: Type.String(),
  currency: Type.String(),
  account: Type.Union([Type.String(), Type.Null()]),
  order_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
  _links: Type.Record(Type.String(), Type.Object({ href: Type.String() })),
});

export function representPayment(payment: Payment, prefix: string) {
  return {
    id: payment.id,
    amount: formatMinor(payment.amountMinor, payment.currency),
    currency: payment.currency,
    account: payment.account,
    order_id: payment.orderId,
    created_at: payment.createdAt.toISOString(),
    _links: {
      self: { href: `${prefix}/payments/${payment.id}` },
      ...(payment.orderId ? { order: { href: `${prefix}/orders/${payment.orderId}` } } : {}),
    },
  };
}
