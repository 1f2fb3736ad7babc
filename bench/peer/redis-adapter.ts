// A Redis adapter for node-oidc-provider, as a production deployment of it would run: every model a JSON
// value under `<Model>:<id>` with the model's TTL, a list per grant of the keys issued under it (for
// revokeByGrantId), and the uid/user-code indexes. Codes, refresh tokens and the other single-use models
// are hashes (payload + consumed), so that `consume` is one atomic step: a Lua script marks the value
// consumed only if nobody has, and a second, concurrent consumer is refused — the library's own check
// (find, then consume) alone would let two parallel requests redeem one code.
import { Redis } from 'ioredis';
import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';

const consumable = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);
const grantable = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest', 'PreAuthorizedCode']);

const grantKeyFor = (id: string) => `grant:${id}`;
const userCodeKeyFor = (userCode: string) => `userCode:${userCode}`;
const uidKeyFor = (uid: string) => `uid:${uid}`;

// 1 consumed now, 0 consumed before (by someone else), -1 no such value (expired or revoked meanwhile).
const CONSUME = `
if redis.call('hexists', KEYS[1], 'payload') == 0 then return -1 end
return redis.call('hsetnx', KEYS[1], 'consumed', ARGV[1])`;

type RedisWithConsume = Redis & { consumeOnce(key: string, at: number): Promise<number> };

export function redisAdapterFactory(url: string): { adapter: (model: string) => Adapter; quit(): Promise<void> } {
  const redis = new Redis(url, { keyPrefix: 'oidc:', enableAutoPipelining: true }) as RedisWithConsume;
  redis.defineCommand('consumeOnce', { numberOfKeys: 1, lua: CONSUME });
  return {
    adapter: (model) => new RedisAdapter(model, redis),
    quit: async () => {
      await redis.quit();
    },
  };
}

class RedisAdapter implements Adapter {
  constructor(
    private readonly model: string,
    private readonly redis: RedisWithConsume,
  ) {}

  private key(id: string): string {
    return `${this.model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const key = this.key(id);
    const multi = this.redis.multi();
    if (consumable.has(this.model)) multi.hset(key, { payload: JSON.stringify(payload) });
    else multi.set(key, JSON.stringify(payload));
    if (expiresIn) multi.expire(key, expiresIn);
    if (grantable.has(this.model) && payload.grantId) {
      const grantKey = grantKeyFor(payload.grantId);
      multi.rpush(grantKey, key);
      // The grant list lives as long as its longest member.
      const ttl = await this.redis.ttl(grantKey);
      if (expiresIn && expiresIn > ttl) multi.expire(grantKey, expiresIn);
    }
    if (payload.userCode) {
      multi.set(userCodeKeyFor(payload.userCode), id);
      if (expiresIn) multi.expire(userCodeKeyFor(payload.userCode), expiresIn);
    }
    if (payload.uid) {
      multi.set(uidKeyFor(payload.uid), id);
      if (expiresIn) multi.expire(uidKeyFor(payload.uid), expiresIn);
    }
    await multi.exec();
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    const key = this.key(id);
    if (consumable.has(this.model)) {
      const { payload, consumed } = await this.redis.hgetall(key);
      if (!payload) return undefined;
      return { ...(JSON.parse(payload) as AdapterPayload), ...(consumed ? { consumed: Number(consumed) } : {}) };
    }
    const data = await this.redis.get(key);
    return data ? (JSON.parse(data) as AdapterPayload) : undefined;
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const id = await this.redis.get(uidKeyFor(uid));
    return id ? this.find(id) : undefined;
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const id = await this.redis.get(userCodeKeyFor(userCode));
    return id ? this.find(id) : undefined;
  }

  async consume(id: string): Promise<void> {
    const outcome = await this.redis.consumeOnce(this.key(id), Math.floor(Date.now() / 1000));
    if (outcome !== 1) throw new errors.InvalidGrant(`${this.model} already consumed or no longer valid`);
  }

  async destroy(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const grantKey = grantKeyFor(grantId);
    const keys = await this.redis.lrange(grantKey, 0, -1);
    const multi = this.redis.multi();
    for (const key of keys) multi.del(key);
    multi.del(grantKey);
    await multi.exec();
  }
}
