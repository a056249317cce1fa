import type { UsageRow } from '../../../usage/index.js';
import { usd } from '../format.js';
import { html, type Html } from '../html.js';
import type { DayRange } from './usage-range.js';

const WIDTH = 720;
const HEIGHT = 260;
const LEFT = 64;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 28;
const KNOWN_CHANNELS = new Set(['telegram', 'slack', 'feishu']);

export function channelClass(channel: string): string {
  return KNOWN_CHANNELS.has(channel) ? `channel-${channel}` : 'channel-other';
}

/**
 * Cost per day as bars stacked by channel, drawn on the server as SVG (no script). Its title and
 * description say what it shows; the tables after it carry every figure.
 */
export function usageChart(range: DayRange, rows: UsageRow[]): Html {
  const channels = [...new Set(rows.map((row) => row.channel))].sort();
  const byDay = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const day = byDay.get(row.day) ?? new Map<string, number>();
    day.set(row.channel, (day.get(row.channel) ?? 0) + row.costUsd);
    byDay.set(row.day, day);
  }
  const totals = range.days.map((day) => [...(byDay.get(day)?.values() ?? [])].reduce((sum, value) => sum + value, 0));
  const max = Math.max(...totals);
  const total = totals.reduce((sum, value) => sum + value, 0);
  if (max <= 0) return html`<p>No cost in this range (runs of models without a known price count tokens only).</p>`;

  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / range.days.length;
  const barWidth = Math.max(1, slot * 0.8);
  const y = (value: number) => TOP + plotHeight - (value / max) * plotHeight;
  const bars = range.days.flatMap((day, index) => {
    let base = 0;
    return channels.flatMap((channel) => {
      const value = byDay.get(day)?.get(channel) ?? 0;
      if (value <= 0) return [];
      const top = y(base + value);
      const bottom = y(base);
      base += value;
      return [
        html`<rect class="${channelClass(channel)}" x="${(LEFT + index * slot + (slot - barWidth) / 2).toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(0.5, bottom - top).toFixed(1)}"><title>${day} ${channel}: ${usd(value)}</title></rect>`,
      ];
    });
  });
  const every = Math.ceil(range.days.length / 8);
  const labels = range.days.flatMap((day, index) =>
    // every few days, and the last day unless the label before it would run into it
    index === range.days.length - 1 || (index % every === 0 && range.days.length - 1 - index >= every / 2)
      ? [html`<text x="${(LEFT + index * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${day.slice(5)}</text>`]
      : [],
  );
  const ticks = [0, max / 2, max].map(
    (value) => html`<line class="axis" x1="${LEFT}" x2="${WIDTH - RIGHT}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"></line><text x="${LEFT - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${usd(value)}</text>`,
  );
  const busiest = range.days[totals.indexOf(max)]!;
  return html`<figure>
<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="usage-chart-title usage-chart-description">
<title id="usage-chart-title">Cost per day, by channel</title>
<desc id="usage-chart-description">From ${range.from} to ${range.to}: ${usd(total)} in all; the most expensive day was ${busiest} with ${usd(max)}. The tables below list every figure.</desc>
!${ticks}!${bars}!${labels}
</svg>
<figcaption><ul class="legend">!${channels.map((channel) => html`<li><span class="swatch ${channelClass(channel)}" aria-hidden="true"></span>${channel}</li>`)}</ul></figcaption>
</figure>`;
}
