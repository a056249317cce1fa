import { approvalsSection } from './approvals/approvals-section.js';
import { budgetsSection } from './budgets/budgets-section.js';
import type { ConsoleSection } from './console-section.js';
import { pairingsSection } from './pairings/pairings-section.js';
import { schedulesSection } from './schedules/schedules-section.js';
import { sessionsSection } from './sessions/sessions-section.js';
import { usageSection } from './usage/usage-section.js';

/**
 * The console's sections, in navigation order. A new section is one more
 * entry here; its file registers its pages, JSON routes and POST actions (which the console guards).
 */
export const consoleSections: readonly ConsoleSection[] = [sessionsSection, usageSection, schedulesSection, approvalsSection, pairingsSection, budgetsSection];
