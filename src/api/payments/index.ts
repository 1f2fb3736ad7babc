// /v1/payments: POST requires an Idempotency-Key (docs/idempotency.md) and either stands alone or pays an order
// (payment + order → paid in one transaction); GET reads one payment (own payments for user tokens) with
// payments:read or payments:write.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from '../deps.js';
import { idempotencyKeyHeader } from '../../http/idempotency/index.js';
import { guardedPaymentInsert, type Payment } from '../../storage/repositories/payments-repository.js';
import type { Principal } from '../../http/principal.js';
import { authenticatedPrincipal, canAccessUser, notFound, requireAnyScope, requireScope } from '../../resource-server/auth/index.js';
import { payOrder } from './pay-order.js';
import { representPayment } from './payment-representation.js';
import { CreatePaymentSchema, PaymentParamsSchema, PaymentSchema, type CreatePaymentBody } from './payment-schemas.js';
import { problemResponses } from '../../http/openapi-schemas.js';
import { validatePayment, type PaymentInput } from './payment-input.js';

type Create = { Body: CreatePaymentBody };
const tags = ['payments'];

const standAlone = (principal: Principal, input: PaymentInput, now: Date): Omit<Payment, 'id'> => ({
  orderId: null,
  clientId: principal.clientId,
  userId: principal.kind === 'user' ? principal.sub : null,
  amountMinor: input.amountMinor,
  currency: input.currency,
  account: input.account,
  createdAt: now,
});

export type PaymentsServices = Pick<ApiDeps, 'config' | 'clock' | 'payments' | 'idempotency'>;

export async function paymentsRoutes(parent: FastifyInstance, { services: core }: { services: PaymentsServices }): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { idempotency, payments } = core;
  const prefix = app.prefix;
  const created = (payment: Payment) => ({ status: 201, headers: { location: `${prefix}/payments/${payment.id}` }, body: representPayment(payment, prefix) });

  app.post('/payments', {
    schema: {
      tags,
      summary: 'Make a payment, stand-alone or for a pending order (Idempotency-Key required)',
      operationId: 'createPayment',
      body: CreatePaymentSchema,
      headers: idempotencyKeyHeader(true),
      response: { 201: PaymentSchema, ...problemResponses(400, 401, 403, 404, 406, 409, 413, 415, 422) },
    },
    preHandler: requireScope('payments:write'),
    ...idempotency.route<Create>(
      { required: true },
      // Only order payments reach the transactional operation (payment + order → paid): the key is required,
      // and the single-write plan below takes every stand-alone payment.
      async (request, tx) => {
        const input = validatePayment(request.body, core.config.CURRENCIES);
        const order = {
          principal: authenticatedPrincipal(request),
          orderId: input.orderId!,
          now: new Date(core.clock.now()),
          account: input.account,
          expected: input,
        };
        return created((await payOrder(tx, order)).payment);
      },
      // A stand-alone payment is one insert: it runs in the same statement as the key's completion.
      async (request) => {
        if (request.body.order_id !== undefined) return undefined;
        const input = validatePayment(request.body, core.config.CURRENCIES);
        const payment = { id: randomUUID(), ...standAlone(authenticatedPrincipal(request), input, new Date(core.clock.now())) };
        return { ...created(payment), write: guardedPaymentInsert(payment) };
      },
    ),
  });

  app.get('/payments/:id', {
    schema: {
      tags,
      summary: 'Read a payment (payments:read; payments:write also reads)',
      operationId: 'getPayment',
      params: PaymentParamsSchema,
      response: { 200: PaymentSchema, ...problemResponses(401, 403, 404, 406) },
    },
    // Whoever may make a payment already receives it in the POST answer, so payments:write reads too.
    preHandler: requireAnyScope('payments:read', 'payments:write'),
    handler: async (request) => {
      const principal = authenticatedPrincipal(request);
      const payment = await payments.findById(request.params.id);
      // Stand-alone payments of a service token have no user: only service tokens see them.
      if (!payment || !canAccessUser(principal, payment.userId ?? '')) throw notFound('payment');
      return representPayment(payment, prefix);
    },
  });
}
