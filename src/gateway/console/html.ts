import { html as escapingHtml } from 'ghtml';

declare const trusted: unique symbol;

/** Markup built by `html`: every interpolated value in it was escaped, or was itself `Html`. */
export type Html = string & { readonly [trusted]: true };

/**
 * The view layer is ghtml's tagged template rather than a template language (eta, EJS) or JSX: the views
 * are TypeScript functions, type-checked against the data they render and compiled into dist/ with the
 * rest (the image ships only dist/ and drizzle/, no template files), with no JSX settings to change.
 *
 * ghtml's tagged template: `${value}` is always escaped (text and attribute values alike). `!${value}`
 * inserts without escaping and is only for `Html` (nested templates, lists of them); user data never
 * goes there. Message text is shown as text, never turned into markup.
 */
export const html = escapingHtml as (literals: TemplateStringsArray, ...expressions: unknown[]) => Html;

export const EMPTY_HTML = '' as Html;
