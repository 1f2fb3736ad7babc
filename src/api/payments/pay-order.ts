// Paying an order: the payment row and the move pending → paid happen in the caller's transaction,
// with the order row locked, so an order is paid at most once and never half-paid.
import type { Store } from '../../storage/store.js';
import type { Order } from '../../storage/repositories/orders-repository.js';
import type { Payment } from '../../storage/repositories/payments-repository.js';
import { ProblemError } from '../../http/errors.js';
import { canAccessUser, notFound } from '../../resource-server/auth/index.js';
import type { Principal } from '../../http/principal.js';

export interface PayOrderInput {
  principal: Principal;
  orderId: string;
  now: Date;
  account: string | null;
  /** For POST /v1/payments with order_id: the amount must equal the order total. */
  expected?: { amountMinor: number; currency: string };
}

export async function payOrder(tx: Store, input: PayOrderInput): Promise<{ payment: Payment; order: Order }> {
  const orders = tx.orders;
  const order = await orders.findForUpdate(input.orderId);
  if (!order || !canAccessUser(input.principal, order.userId)) throw notFound('order');
  if (order.status !== 'pending') throw stateConflict(order, 'paid');
  if (input.expected && (input.expected.amountMinor !== order.totalMinor || input.expected.currency !== order.currency)) {
    throw new ProblemError('VALIDATION_ERROR', 'The payment must equal the order total.', {
      errors: [{ field: 'amount', message: 'must equal the order total in the order currency' }],
    });
  }
  const payment = await tx.payments.create({
    orderId: order.id,
    clientId: input.principal.clientId,
    userId: order.userId,
    amountMinor: order.totalMinor,
    currency: order.currency,
    account: input.account,
    createdAt: input.now,
  });
  const paid = await orders.transition(order.id, 'paid', input.now, payment.id);
  if (!paid) throw stateConflict(order, 'paid');
  return { payment, order: paid };
}

export const stateConflict = (order: Order, to: string) => new ProblemError('order-state-conflict', `The order is ${order.status} and cannot be ${to}.`);
