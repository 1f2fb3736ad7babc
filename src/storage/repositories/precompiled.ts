// Statements of the hot paths (the login pages run twelve per flow) are built with Kysely, typed from the
// schema as everywhere else, but compiled once instead of on every call: building and compiling a
// select with two joins costs ~28 µs of event-loop time warm, several times that before V8 optimises the
// builder, and it produced the same text every time. The builder gets placeholders where values go; each
// call swaps the real values in for them, in the order the compiler put them.
//
// The build function must not look at the values (a placeholder is always truthy and cannot be computed
// with: it throws when used as a string or a number), so conditional parts belong in the SQL, not in the
// builder. Every database Gatehouse opens compiles PostgreSQL, so one compiled text serves them all.
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from '../driver/database.js';

class Placeholder {
  constructor(readonly name: string) {}
  [Symbol.toPrimitive](): never {
    throw new TypeError(`precompiled statement: "${this.name}" is a placeholder while the statement is built; it cannot be computed with`);
  }
}

/** Named like the Kysely builder methods the call sites used before. */
export interface PrecompiledStatement<P, O> {
  execute(db: Db, values: P): Promise<O[]>;
  executeTakeFirst(db: Db, values: P): Promise<O | undefined>;
}

export function precompiled<P extends Record<string, unknown>, O>(build: (db: Db, values: P) => Compilable<O>): PrecompiledStatement<P, O> {
  let compiled: CompiledQuery<O> | undefined;

  const compile = (db: Db): CompiledQuery<O> => {
    const placeholders = new Map<string, Placeholder>();
    const values = new Proxy({} as P, {
      get(_, name) {
        if (typeof name !== 'string') return undefined;
        let placeholder = placeholders.get(name);
        if (!placeholder) placeholders.set(name, (placeholder = new Placeholder(name)));
        return placeholder;
      },
    });
    return build(db, values).compile();
  };

  const execute = async (db: Db, values: P): Promise<O[]> => {
    compiled ??= compile(db);
    const parameters = compiled.parameters.map((parameter) => {
      if (!(parameter instanceof Placeholder)) return parameter;
      const value = values[parameter.name];
      // Kysely leaves an undefined column out of an insert; here it would silently become NULL.
      if (value === undefined) throw new TypeError(`precompiled statement: no value for "${parameter.name}"`);
      return value;
    });
    return (await db.executeQuery<O>({ ...compiled, parameters })).rows;
  };
  return { execute, executeTakeFirst: async (db, values) => (await execute(db, values))[0] };
}
