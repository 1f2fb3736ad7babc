// /v1/orders: create (user tokens), list (own orders; service tokens all, optionally one user's) with
// cursor or offset paging, read with ETag, and the state moves cancel and payment (docs/api-conventions.md).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from '../deps.js';
import { ProblemError } from '../../http/errors.js';
import { checkPreconditions, setValidators } from '../../http/conditional.js';
import { canonicalJson, idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { pagedResponse, sendPage, parsePageQuery, type PageRequest } from '../../http/pagination/index.js';
import type { Order, OrderFilter, OrderStatus } from '../../storage/repositories/orders-repository.js';
import { authenticatedPrincipal, canAccessUser, notFound, requireScope } from '../../resource-server/auth/index.js';
import type { Principal } from '../../http/principal.js';
import { payOrder, stateConflict } from '../payments/pay-order.js';
import { representPayment } from '../payments/payment-representation.js';
import { PaymentSchema } from '../payments/payment-schemas.js';
import { validateOrder } from './order-input.js';
import { orderValidators, representOrder } from './order-representation.js';
import { notModified, problemResponses } from '../../http/openapi-schemas.js';
import {
  CreateOrderSchema,
  ListOrdersQuerySchema,
  OrderListSchema,
  OrderParamsSchema,
  OrderSchema,
  type CreateOrderBody,
  type ListOrdersQuery,
  type OrderParams,
} from './order-schemas.js';

type ById = { Params: OrderParams };
const tags = ['orders'];
const STATUSES: readonly OrderStatus[] = ['pending', 'paid', 'cancelled'];
/** The one order this collection has: newest first (created_at desc, id desc as tie-breaker). */
const SORTS: readonly string[] = ['-created_at'];
const ID = /^[A-Za-z0-9._:-]{1,200}$/;

/** Orders are placed by users for themselves; a service token has no user to place them for. */
async function requireUserToken(request: FastifyRequest): Promise<void> {
  if (authenticatedPrincipal(request).kind !== 'user') throw new ProblemError('forbidden', 'Orders are placed with a user token.');
}

export type OrdersServices = Pick<ApiDeps, 'config' | 'clock' | 'store' | 'orders' | 'idempotency' | 'cursors'>;

export async function ordersRoutes(parent: FastifyInstance, { services: core }: { services: OrdersServices }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, cursors, orders } = core;
  const prefix = app.prefix;
  const now = () => new Date(core.clock.now());

  app.post('/orders', {
    schema: {
      tags,
      summary: 'Place an order (user tokens)',
      operationId: 'createOrder',
      body: CreateOrderSchema,
      headers: idempotencyKeyHeader(false),
      response: { 201: OrderSchema, ...problemResponses(400, 401, 403, 406, 409, 413, 415, 422) },
    },
    preHandler: [requireScope('orders:write'), requireUserToken],
    ...idempotency.route<{ Body: CreateOrderBody }>({ required: false }, async (request, tx) => {
      const input = validateOrder(request.body, core.config.CURRENCIES);
      const order = await tx.orders.create({ ...input, userId: authenticatedPrincipal(request).sub, now: now() });
      return { status: 201, headers: { location: `${prefix}/orders/${order.id}`, etag: orderValidators(order).etag }, body: representOrder(order, prefix) };
    }),
  });

  app.get('/orders', {
    schema: {
      tags,
      summary: "List orders: a user token its own, a service token all (or one user's with user_id)",
      operationId: 'listOrders',
      querystring: ListOrdersQuerySchema,
      response: { 200: OrderListSchema, ...problemResponses(400, 401, 403, 406) },
    },
    preHandler: requireScope('orders:read'),
    handler: async (request, reply) => {
      const filter = listFilter(authenticatedPrincipal(request), request.query);
      const scope = `orders\n${canonicalJson(filter)}`;
      const page = parsePageQuery(request.query, { codec: cursors, scope });
      const rows = await orders.list(filter, repositoryPage(page));
      return sendPage(
        reply,
        pagedResponse(rows, page, {
          requestUrl: new URL(request.url, core.config.ISSUER),
          position: (o: Order) => ({ createdAt: o.createdAt, id: o.id }),
          represent: (o: Order) => representOrder(o, prefix),
          cursors: { codec: cursors, scope },
        }),
      );
    },
  });

  app.get('/orders/:id', {
    schema: {
      tags,
      summary: 'Read an order (ETag, conditional GET)',
      operationId: 'getOrder',
      params: OrderParamsSchema,
      response: { 200: OrderSchema, ...notModified, ...problemResponses(401, 403, 404, 406) },
    },
    preHandler: requireScope('orders:read'),
    handler: async (request, reply) => {
      const order = visible(authenticatedPrincipal(request), await orders.findById(request.params.id));
      if (!checkPreconditions(request, reply, orderValidators(order))) return reply.send();
      setValidators(reply, orderValidators(order));
      return representOrder(order, prefix);
    },
  });

  app.post('/orders/:id/cancel', {
    schema: {
      tags,
      summary: 'Cancel a pending order',
      operationId: 'cancelOrder',
      params: OrderParamsSchema,
      response: { 200: OrderSchema, ...problemResponses(401, 403, 404, 406, 409) },
    },
    preHandler: requireScope('orders:write'),
    handler: async (request, reply: FastifyReply) => {
      const principal = authenticatedPrincipal(request);
      const cancelled = await core.store.transaction(async (tx) => {
        const repository = tx.orders;
        const order = visible(principal, await repository.findForUpdate(request.params.id));
        if (order.status !== 'pending') throw stateConflict(order, 'cancelled');
        return (await repository.transition(order.id, 'cancelled', now()))!;
      });
      setValidators(reply, orderValidators(cancelled));
      return representOrder(cancelled, prefix);
    },
  });

  app.post('/orders/:id/payment', {
    schema: {
      tags,
      summary: 'Pay a pending order (Idempotency-Key required)',
      operationId: 'payOrder',
      params: OrderParamsSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: PaymentSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 422) },
    },
    preHandler: requireScope('payments:write'),
    ...idempotency.route<ById>({ required: true }, async (request, tx) => {
      const { payment } = await payOrder(tx, { principal: authenticatedPrincipal(request), orderId: request.params.id, now: now(), account: null });
      return { status: 201, headers: { location: `${prefix}/payments/${payment.id}` }, body: representPayment(payment, prefix) };
    }),
  });
}

/** Another user's order is answered exactly like a missing one (404), so ids cannot be probed. */
function visible(principal: Principal, order: Order | undefined): Order {
  if (!order || !canAccessUser(principal, order.userId)) throw notFound('order');
  return order;
}

/**
 * A user token lists only its own orders; a service token all of them, or one user's with `user_id`.
 * Filter and sort values that cannot be understood are 400: never ignored, never page 1.
 */
function listFilter(principal: Principal, query: Pick<ListOrdersQuery, 'user_id' | 'status' | 'sort'>): OrderFilter {
  if (query.sort !== undefined && !SORTS.includes(query.sort)) throw badQuery('sort', `must be one of ${SORTS.join(', ')}`);
  if (query.status !== undefined && !STATUSES.includes(query.status as OrderStatus)) throw badQuery('status', `must be one of ${STATUSES.join(', ')}`);
  if (query.user_id !== undefined && !ID.test(query.user_id)) throw badQuery('user_id', 'is not a user id');
  const status = query.status as OrderStatus | undefined;
  if (principal.kind === 'user') {
    if (query.user_id !== undefined && query.user_id !== principal.sub) throw notFound('user');
    return { userId: principal.sub, status };
  }
  return { userId: query.user_id, status };
}

const badQuery = (field: string, message: string) =>
  new ProblemError('bad-request', `The ${field} parameter is not understood.`, { errors: [{ field, message }] });

const repositoryPage = (page: PageRequest) =>
  page.style === 'offset' ? { offset: page.offset, limit: page.limit + 1 } : { ...(page.after ? { after: page.after } : {}), limit: page.limit + 1 };
