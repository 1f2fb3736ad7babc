// RFC 6749 5.1: responses carrying tokens or credentials must not be cached (Pragma for HTTP/1.0 caches).
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;
