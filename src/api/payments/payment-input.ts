// POST /v1/payments body rules (docs/api-conventions.md); shape errors are 400 from the schema, these 422.
import { fieldErrors } from '../../http/validation.js';
import { MAX_MINOR, parseAmount } from '../money.js';

export interface PaymentBody {
  amount: string | number;
  currency: string;
  account: string;
  order_id?: string | undefined;
}

export function validatePayment(body: PaymentBody, currencies: readonly string[]) {
  const errors = fieldErrors();
  let amountMinor = 0;
  if (!currencies.includes(body.currency)) errors.add('currency', `must be one of ${currencies.join(', ')}`);
  else {
    const amount = parseAmount(body.amount, body.currency);
    if ('error' in amount) errors.add('amount', amount.error);
    else if (amount.minor <= 0n || amount.minor > MAX_MINOR) errors.add('amount', 'must be greater than zero and not absurdly large');
    else amountMinor = Number(amount.minor);
  }
  if (body.account.trim().length === 0 || body.account.length > 64) errors.add('account', 'must be 1 to 64 characters');
  if (body.order_id !== undefined && (body.order_id.length === 0 || body.order_id.length > 200)) errors.add('order_id', 'is not an order id');
  errors.throwIfAny();
  return { amountMinor, currency: body.currency, account: body.account, orderId: body.order_id };
}

export type PaymentInput = ReturnType<typeof validatePayment>;
