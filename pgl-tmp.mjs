import { PGlite } from '@electric-sql/pglite';
let t=Date.now(); const pg = await PGlite.create(); console.log('create', Date.now()-t);
t=Date.now(); await pg.query('select 1'); console.log('q', Date.now()-t);
t=Date.now(); const pg2 = await PGlite.create(); console.log('create2', Date.now()-t);
t=Date.now(); const dump = await pg.dumpDataDir('none'); console.log('dump', Date.now()-t, dump.size);
t=Date.now(); const pg3 = await PGlite.create({loadDataDir: dump}); console.log('create-from-dump', Date.now()-t);
