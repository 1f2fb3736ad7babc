// POST /v1/orders body → validated items and a total in integer minor units. The schema already made
// the shape right (wrong types are 400); the rules here are semantic, so failures are 422 with a field each.
import { fieldErrors } from '../../http/validation.js';
import { MAX_MINOR, parseAmount } from '../money.js';
import type { OrderItem } from '../../storage/repositories/orders-repository.js';

export interface OrderBody {
  currency: string;
  items: { sku: string; quantity: number; unit_price: string | number }[];
}

const MAX_ITEMS = 100;
const MAX_QUANTITY = 10_000;
const SKU = /^[\x21-\x7E]{1,64}$/;

export function validateOrder(body: OrderBody, currencies: readonly string[]): { currency: string; items: OrderItem[]; totalMinor: number } {
  const errors = fieldErrors();
  const currencyOk = currencies.includes(body.currency);
  if (!currencyOk) errors.add('currency', `must be one of ${currencies.join(', ')}`);
  if (body.items.length < 1 || body.items.length > MAX_ITEMS) errors.add('items', `must hold 1 to ${MAX_ITEMS} items`);
  const items: OrderItem[] = [];
  let total = 0n;
  body.items.forEach((item, i) => {
    if (!SKU.test(item.sku)) errors.add(`items.${i}.sku`, 'must be 1 to 64 printable characters without spaces');
    if (item.quantity < 1 || item.quantity > MAX_QUANTITY) errors.add(`items.${i}.quantity`, `must be between 1 and ${MAX_QUANTITY}`);
    if (!currencyOk) return;
    const price = parseAmount(item.unit_price, body.currency);
    if ('error' in price) {
      errors.add(`items.${i}.unit_price`, price.error);
      return;
    }
    total += price.minor * BigInt(Math.max(0, Math.trunc(item.quantity)));
    items.push({ sku: item.sku, quantity: item.quantity, unit_price_minor: Number(price.minor) });
  });
  if (total > MAX_MINOR) errors.add('items', 'the order total is too large');
  errors.throwIfAny();
  return { currency: body.currency, items, totalMinor: Number(total) };
}
