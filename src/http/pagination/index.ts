export { cursorCodec, cursorKey, type CursorCodec, type CursorPosition } from './cursor.js';
export { parsePageQuery, pageQueryProperties, type PageQuery, type PageRequest } from './page-query.js';
export { pagedResponse, sendPage, type Page, type Pagination } from './paged-response.js';
