import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PairingService } from '../../access/index.js';
import type { OperatorDenial } from '../../approvals/index.js';
import type { DmPolicy } from '../../config/app-config.js';
import type { BudgetsOverview } from '../../budgets/index.js';
import type { Logger } from '../../observability/logger.js';
import type { ApprovalRecord } from '../../approvals/approval-records.js';
import type { StoreDatabase } from '../../store/index.js';
import type { ServiceStatus } from '../service-status.js';
import type { Html } from './html.js';

/** Pending approval requests of tool calls, and an operator's Deny (the requester's Deny path). */
export interface ConsoleApprovals {
  pending(limit: number): Promise<{ records: ApprovalRecord[]; total: number }>;
  pendingCount(): Promise<number>;
  deny(approvalId: string, operator: string): Promise<OperatorDenial>;
}

/** Cancelling a scheduled task (the `/tasks cancel` service: PostgreSQL, then its firings in Redis). */
export interface ConsoleSchedules {
  cancel(sessionKey: string, taskId: string): Promise<unknown>;
}

/** What the sections read and act on. A new section adds the dependency it needs here. */
export interface ConsoleDependencies {
  db: StoreDatabase;
  pairing: PairingService;
  dmPolicy: DmPolicy;
  /** ADMIN_READONLY: actions are hidden and every state-changing request is refused with 403. */
  readOnly: boolean;
  logger: Logger;
  clock?: () => number;
  /** Daily budgets: limits and today's spend (absent: the Budgets section says they are not available). */
  budgets?: BudgetsOverview;
  /** Queues and channel connections for the home page (absent: it says they are not available here). */
  status?: ServiceStatus;
  /** Absent: tasks are listed without a Cancel button. */
  schedules?: ConsoleSchedules;
  /** Absent: the Approvals section says approvals are not available in this process. */
  approvals?: ConsoleApprovals;
}

export interface PageOptions {
  /** The section the page belongs to (highlighted in the navigation); undefined for the overview. */
  section: string | undefined;
  title: string;
  body: Html;
  status?: number;
}

export interface ActionForm {
  /** An absolute path under /admin. */
  action: string;
  /** Hidden fields besides the CSRF token. */
  fields: Record<string, string>;
  /** The button's visible label. */
  label: string;
  /** Added to the button's accessible name (e.g. whom the action is about); visually hidden. */
  detail?: string;
}

/** Handed to every section: the dependencies and the shared page chrome. */
export interface ConsoleContext {
  readonly deps: ConsoleDependencies;
  readonly readOnly: boolean;
  now(): Date;
  /** Sends a whole HTML page: layout, navigation from the section registry, security headers. */
  page(reply: FastifyReply, options: PageOptions): FastifyReply;
  /**
   * A POST form with a button and the CSRF token, or nothing in read-only mode. Every non-GET route of
   * the console is checked (read-only, same origin, CSRF token) before its handler runs, so a section's
   * action route only does its job.
   */
  actionForm(reply: FastifyReply, form: ActionForm): Html;
  /** The hidden CSRF field for a section's own POST form (with inputs of its own); nothing in read-only mode. */
  csrfField(reply: FastifyReply): Html;
}

/**
 * One entry of the console's navigation and its routes. Adding a section (scheduled tasks, budgets) is a
 * new file with one of these and a line in `consoleSections`; nothing else changes.
 */
export interface ConsoleSection {
  /** The path under /admin (`/admin/<id>`) and the navigation entry's key: lower-case letters and dashes. */
  id: string;
  title: string;
  /** One line on the overview page. */
  description: string;
  /**
   * Registers the section's page(s) at `/<id>…`, its JSON API at `/api/<id>…` and its actions (POST), on
   * the console's authenticated scope (paths are relative to /admin).
   */
  register(routes: FastifyInstance, context: ConsoleContext): void | Promise<void>;
}
