import { html, type Html } from './html.js';

/** `2025-01-01 10:00:00 UTC` in a `<time>` element. */
export function timeOf(date: Date): Html {
  return html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 19).replace('T', ' ')} UTC</time>`;
}

export function usd(amount: number): string {
  if (Math.abs(amount) >= 1) return `$${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  // small amounts keep three significant digits: a turn often costs a fraction of a cent
  return `$${amount.toLocaleString('en-US', { maximumSignificantDigits: 3, maximumFractionDigits: 20 })}`;
}

export function count(value: number): string {
  return value.toLocaleString('en-US');
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `13 %` of a limit; a little spent never reads as `0 %`. */
export function sharePercent(spent: number, limit: number): string {
  const share = Math.round((spent / limit) * 100);
  return share === 0 && spent > 0 ? '<1 %' : `${share} %`;
}

/** Long text cut for a table cell or preview, saying how much was left out. */
export function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${count(text.length - max)} more characters)`;
}

/** `/admin/…` with a query string of the defined values. */
export function pathWithQuery(path: string, query: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}
