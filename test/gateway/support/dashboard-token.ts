/**
 * What bull-board's page does for its own write requests: the page sets the CSRF secret cookie and an
 * `XSRF-TOKEN` cookie, and axios sends that token back as `X-XSRF-TOKEN` with the cookies.
 */
export async function dashboardWriteHeaders(baseUrl: string, authorization: string): Promise<Record<string, string>> {
  const page = await fetch(`${baseUrl}/admin/queues`, { headers: { authorization } });
  if (page.status !== 200) throw new Error(`the dashboard page answered ${page.status}`);
  const cookies = page.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!);
  const token = cookies.find((cookie) => cookie.startsWith('XSRF-TOKEN='))?.slice('XSRF-TOKEN='.length);
  if (!token) throw new Error(`the dashboard page set no XSRF-TOKEN cookie (set: ${cookies.join(', ')})`);
  return { authorization, cookie: cookies.join('; '), 'x-xsrf-token': token };
}
