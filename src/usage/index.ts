// Usage, one home: the stored runs summed per owner (`/usage`) and per day (the console's cost page), the
// `/usage` report with what is left of the budgets, and `/status`'s session numbers. The chat command and
// the console page are views over these.
export { usageTotals, type UsageOwner, type UsageTotals } from './usage-totals.js';
export { usageByDay, type UsageRange, type UsageRow } from './usage-by-day.js';
export { createUsageReport, formatTotals, formatUsd, usageOwnerOf, type UsageReport, type UsageReportOptions } from './usage-report.js';
export { sessionUsageOf, type SessionUsage } from './session-usage.js';
