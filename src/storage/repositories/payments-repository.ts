// Payments, stand-alone or for one order (a partial unique index allows one payment per order).
import { sql, type Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { GuardedWrite } from './idempotency-keys-repository.js';
import type { PaymentsTable } from '../driver/schema.js';

export interface Payment {
  id: string;
  orderId: string | null;
  clientId: string;
  userId: string | null;
  amountMinor: number;
  currency: string;
  account: string | null;
  createdAt: Date;
}

export interface PaymentsRepository {
  create(input: Omit<Payment, 'id'>): Promise<Payment>;
  findById(id: string): Promise<Payment | undefined>;
  count(): Promise<number>;
}

/** The insert of a payment whose id was chosen by the caller, for idempotencyKeys.completeWith(). */
export const guardedPaymentInsert = (p: Payment): GuardedWrite => sql`
  insert into payments (id, order_id, client_id, user_id, amount_minor, currency, account, created_at)
  select ${p.id}, ${p.orderId}, ${p.clientId}, ${p.userId}, ${p.amountMinor}, ${p.currency}, ${p.account}, ${p.createdAt}
  where exists (select 1 from completed)`;

const toPayment = (r: Selectable<PaymentsTable>): Payment => ({
  id: r.id,
  orderId: r.order_id,
  clientId: r.client_id,
  userId: r.user_id,
  amountMinor: Number(r.amount_minor),
  currency: r.currency,
  account: r.account,
  createdAt: r.created_at,
});

export function paymentsRepository(db: Db): PaymentsRepository {
  return {
    async create(input) {
      const row = await db
        .insertInto('payments')
        .values({
          order_id: input.orderId,
          client_id: input.clientId,
          user_id: input.userId,
          amount_minor: input.amountMinor,
          currency: input.currency,
          account: input.account,
          created_at: input.createdAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toPayment(row);
    },
    async findById(id) {
      const row = await db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toPayment(row);
    },
    async count() {
      const row = await db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
