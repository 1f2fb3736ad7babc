// Orders: one row per order, items as JSON, money in integer minor units. Lists are keyset-paged on
// (created_at desc, id desc) — the strict row-value comparison uses the matching index — or offset-paged.
import type { Selectable } from 'kysely';
import type { Db } from '../driver/database.js';
import type { OrdersTable } from '../driver/schema.js';

export type OrderStatus = 'pending' | 'paid' | 'cancelled';

export interface OrderItem {
  sku: string;
  quantity: number;
  unit_price_minor: number;
}

export interface Order {
  id: string;
  userId: string;
  status: OrderStatus;
  currency: string;
  totalMinor: number;
  items: OrderItem[];
  paymentId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface OrderFilter {
  userId?: string | undefined;
  status?: OrderStatus | undefined;
}

export type OrderPage = { after?: { createdAt: Date; id: string }; limit: number } | { offset: number; limit: number };

export interface OrdersRepository {
  create(input: { userId: string; currency: string; totalMinor: number; items: OrderItem[]; now: Date }): Promise<Order>;
  findById(id: string): Promise<Order | undefined>;
  /** Locks the row for the rest of the transaction (state moves serialise on it). */
  findForUpdate(id: string): Promise<Order | undefined>;
  /** Up to `limit` rows of the page, newest first. */
  list(filter: OrderFilter, page: OrderPage): Promise<Order[]>;
  /** pending → `to`; undefined when the order was not pending. */
  transition(id: string, to: Exclude<OrderStatus, 'pending'>, now: Date, paymentId?: string): Promise<Order | undefined>;
}

const toOrder = (r: Selectable<OrdersTable>): Order => ({
  id: r.id,
  userId: r.user_id,
  status: r.status as OrderStatus,
  currency: r.currency,
  totalMinor: Number(r.total_minor),
  items: r.items as OrderItem[],
  paymentId: r.payment_id,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export function ordersRepository(db: Db): OrdersRepository {
  return {
    async create(input) {
      const row = await db
        .insertInto('orders')
        .values({
          user_id: input.userId,
          currency: input.currency,
          total_minor: input.totalMinor,
          items: JSON.stringify(input.items),
          created_at: input.now,
          updated_at: input.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toOrder(row);
    },
    async findById(id) {
      const row = await db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toOrder(row);
    },
    async findForUpdate(id) {
      const row = await db.selectFrom('orders').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      return row && toOrder(row);
    },
    async list(filter, page) {
      let query = db.selectFrom('orders').selectAll();
      if (filter.userId !== undefined) query = query.where('user_id', '=', filter.userId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if ('offset' in page) query = query.offset(page.offset);
      else if (page.after) {
        const { createdAt, id } = page.after;
        query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
      }
      const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map(toOrder);
    },
    async transition(id, to, now, paymentId) {
      const row = await db
        .updateTable('orders')
        .set((eb) => ({ status: to, updated_at: now, version: eb('version', '+', 1), ...(paymentId ? { payment_id: paymentId } : {}) }))
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst();
      return row && toOrder(row);
    },
  };
}
