// The order as clients see it, with `_links` by state: pending → self, cancel, pay;
// paid → self, payment; cancelled → self. Money leaves as decimal strings (never binary floats).
import { strongEtag, type Validators } from '../../http/conditional.js';
import { formatMinor } from '../money.js';
import type { Order } from '../../storage/repositories/orders-repository.js';

interface Link {
  href: string;
  method?: 'POST';
}

function orderLinks(order: Order, prefix: string): Record<string, Link> {
  const self = `${prefix}/orders/${order.id}`;
  switch (order.status) {
    case 'pending':
      return { self: { href: self }, cancel: { href: `${self}/cancel`, method: 'POST' }, pay: { href: `${self}/payment`, method: 'POST' } };
    case 'paid':
      return { self: { href: self }, ...(order.paymentId ? { payment: { href: `${prefix}/payments/${order.paymentId}` } } : {}) };
    case 'cancelled':
      return { self: { href: self } };
  }
}

export function representOrder(order: Order, prefix: string) {
  return {
    id: order.id,
    user_id: order.userId,
    status: order.status,
    currency: order.currency,
    items: order.items.map((i) => ({ sku: i.sku, quantity: i.quantity, unit_price: formatMinor(i.unit_price_minor, order.currency) })),
    total: formatMinor(order.totalMinor, order.currency),
    payment_id: order.paymentId,
    created_at: order.createdAt.toISOString(),
    updated_at: order.updatedAt.toISOString(),
    _links: orderLinks(order, prefix),
  };
}

export const orderValidators = (order: Order): Validators => ({ etag: strongEtag('order', order.id, order.version), lastModified: order.updatedAt });
