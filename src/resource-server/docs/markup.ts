import { escapeHtml } from '../../http/html.js';

/** Escapes text for HTML, then shows `backticked` spans as code (the catalogue's only markup). */
export const withCode = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
