// The app-wide plugins a face relies on, by their fastify-plugin names. Each face lists the ones it needs
// as `dependencies`, so an app assembled without one (no error edge, no form parser, no running job worker
// to purge what the face stores) fails at boot with FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED instead of
// misbehaving quietly (docs/design.md, "Composition root").
export const ERROR_EDGE_PLUGIN = 'gatehouse-error-edge';
export const JOBS_PLUGIN = 'gatehouse-jobs';
/** @fastify/formbody's own plugin name. */
export const FORM_BODY_PLUGIN = '@fastify/formbody';
