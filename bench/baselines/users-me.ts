// GET /users/me?id=… without authentication: the user row read through Gatehouse's own users repository
// from the same PostgreSQL database, serialised as JSON. It is the fallback baseline of the users-me
// scenario when Gatehouse's handler cannot be mounted unauthenticated inside the app itself.
import type { FastifyInstance } from 'fastify';
import { openPostgres } from '../../src/storage/driver/database.js';
import { usersRepository } from '../../src/storage/repositories/users-repository.js';
import { systemClock } from '../../src/clock.js';

export async function bareUsersMe(app: FastifyInstance, databaseUrl: string): Promise<{ close(): Promise<void> }> {
  const database = await openPostgres(databaseUrl, Number(process.env.DATABASE_POOL_SIZE ?? 20));
  const users = usersRepository(database.db, systemClock);
  app.get('/users/me', async (request, reply) => {
    const user = await users.findById((request.query as { id: string }).id);
    if (!user) return reply.code(404).send({ error: 'not found' });
    const { passwordHash: _omit, ...visible } = user;
    return reply.header('cache-control', 'private, no-cache').send(visible);
  });
  return { close: () => database.close() };
}
