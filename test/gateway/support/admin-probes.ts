import { rawRequest, type RawResponse } from './raw-http.js';

export interface AdminProbe {
  name: string;
  method: string;
  target: string;
}

const API = 'queues/api/queues';
const PAUSE = 'queues/api/queues/inbound/pause';

/**
 * Request targets that a router may decode or normalize into an `/admin/…` route while the raw URL
 * does not start with `/admin`: percent-encoding (once and twice), absolute-form request lines, dot
 * segments, doubled and encoded slashes, other cases; reads and state-changing methods.
 */
export function adminBypassProbes(port: number): AdminProbe[] {
  const origin = `http://127.0.0.1:${port}`;
  const reads: Array<[string, string]> = [
    ['plain', `/admin/${API}`],
    ['plain entry page', '/admin/queues'],
    ['percent-encoded a', `/%61dmin/${API}`],
    ['percent-encoded entry page', '/%61dmin/queues'],
    ['percent-encoded A (upper hex)', `/%61%64%6D%69%6E/${API}`],
    ['double-encoded a', `/%2561dmin/${API}`],
    ['encoded second segment', `/admin/%71ueues/api/queues`],
    ['absolute-form', `${origin}/admin/${API}`],
    ['absolute-form, other host', `http://evil.example/admin/${API}`],
    ['absolute-form, encoded', `${origin}/%61dmin/${API}`],
    ['double slash', `//admin/${API}`],
    ['dot segment inside', `/admin/./${API}`],
    ['dot segment first', `/./admin/${API}`],
    ['dot-dot segment', `/x/../admin/${API}`],
    ['encoded slash', `/admin%2f${API}`],
    ['encoded slash (upper)', `/admin%2F${API}`],
    ['upper case', `/ADMIN/${API}`],
    ['mixed case', `/Admin/Queues/api/queues`],
    ['trailing slash', `/admin/${API}/`],
    ['query string', `/admin/${API}?x=1`],
    ['semicolon', `/admin;x/${API}`],
    ['static asset', '/admin/queues/static/favicon-32x32.png'],
  ];
  const writes: Array<[string, string]> = [
    ['PUT plain', `/admin/${PAUSE}`],
    ['PUT percent-encoded', `/%61dmin/${PAUSE}`],
    ['PUT double-encoded', `/%2561dmin/${PAUSE}`],
    ['PUT absolute-form', `${origin}/admin/${PAUSE}`],
    ['PUT double slash', `//admin/${PAUSE}`],
    ['PUT dot segment', `/./admin/${PAUSE}`],
    ['PUT upper case', `/ADMIN/${PAUSE}`],
  ];
  return [
    ...reads.map(([name, target]) => ({ name: `GET ${name}`, method: 'GET', target })),
    { name: 'HEAD percent-encoded', method: 'HEAD', target: `/%61dmin/${API}` },
    ...writes.map(([name, target]) => ({ name, method: 'PUT', target })),
    { name: 'PUT clean completed, encoded', method: 'PUT', target: `/%61dmin/queues/api/queues/inbound/clean/completed` },
  ];
}

/** What a probe must never see without credentials: queue data, the dashboard page, a redirect. */
export function leaksAdminData(response: RawResponse): boolean {
  if (response.status !== undefined && response.status < 400) return true;
  return /"queues"|"inbound"|<html/i.test(response.body);
}

/** Sends every probe without credentials; the answer per probe is its status (`closed` if none) and whether it leaked. */
export async function runAdminBypassProbes(port: number, headers: Record<string, string> = {}): Promise<Array<AdminProbe & { status: number | 'closed'; leaked: boolean }>> {
  const results = [];
  for (const probe of adminBypassProbes(port)) {
    const response = await rawRequest(port, probe.method, probe.target, headers);
    results.push({ ...probe, status: response.status ?? ('closed' as const), leaked: leaksAdminData(response) });
  }
  return results;
}
