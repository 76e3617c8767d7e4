import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

// Raw HTML in the Markdown is kept by the parser and removed by the sanitiser: the allow-list
// below is all that can reach a buyer's page (no script, style, iframe, event handler or
// `javascript:` URL).
const parser = new Marked({ async: false, gfm: true });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel'], ol: ['start'], th: ['align'], td: ['align'] },
  allowedSchemes: ['https', 'http', 'mailto'],
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener' }) },
};

/** Markdown to HTML that is safe to put in a page. */
export function renderMarkdown(markdown: string): string {
  return sanitizeHtml(parser.parse(markdown) as string, SANITIZE);
}
