// A payment's representation (its schema is PaymentSchema in payment-schemas.ts).
import { formatMinor } from '../money.js';
import type { Payment } from '../../storage/repositories/payments-repository.js';

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
