import type { ServiceProcess } from '../../support/service-process.js';

/** `bot_deliveries_in_doubt_total` of one process, by resolution. */
export async function inDoubt(service: ServiceProcess, channel: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const match of text.matchAll(/^bot_deliveries_in_doubt_total\{([^}]*)\} (\d+)/gm)) {
    if (!match[1]!.includes(`channel="${channel}"`)) continue;
    counts[/resolution="([^"]+)"/.exec(match[1]!)![1]!] = Number(match[2]);
  }
  return counts;
}
