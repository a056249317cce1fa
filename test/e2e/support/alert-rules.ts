import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** The alerting rules the project ships (deploy/prometheus/alerts.yml). */
const RULES_FILE = join(import.meta.dirname, '..', '..', '..', 'deploy', 'prometheus', 'alerts.yml');

interface RuleFile {
  groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
}

export const FAILED_TURNS_ALERT = 'BotTurnsFailed';
export const RETRYING_TURNS_ALERT = 'BotTurnsRetrying';
export const PAUSED_TURNS_ALERT = 'BotTurnsPaused';
export const TURNS_BACKLOG_ALERT = 'BotTurnsBacklog';

export function ruleExpression(alert: string): string {
  const rules = (parse(readFileSync(RULES_FILE, 'utf8')) as RuleFile).groups.flatMap((group) => group.rules);
  const rule = rules.find((candidate) => candidate.alert === alert);
  if (!rule) throw new Error(`no alert ${alert} in ${RULES_FILE}`);
  return rule.expr;
}

/**
 * Whether an alert's expression is true of a scrape (its `for:` aside), as Prometheus would evaluate it: the rules
 * use one form only, `sum|max(<metric>{<label>="<value>",…}) <op> <number>`; another form fails the test rather
 * than being guessed at.
 */
export function alertFires(alert: string, exposition: string): boolean {
  const expression = ruleExpression(alert);
  const match = /^(sum|max)\((\w+)\{([^}]*)\}\)\s*(>|>=|<|==)\s*([\d.]+)$/.exec(expression.trim());
  if (!match) throw new Error(`cannot evaluate ${expression}: extend alertFires`);
  const [, aggregate, metric, selector, op, threshold] = match;
  const wanted = selector!.split(',').map((pair) => pair.trim()).filter(Boolean);
  const values = exposition
    .split('\n')
    .filter((line) => line.startsWith(`${metric}{`) && wanted.every((pair) => line.includes(pair)))
    .map((line) => Number(line.split(' ').at(-1)));
  // no series: the expression has no value, and the alert does not fire
  if (values.length === 0) return false;
  const value = aggregate === 'sum' ? values.reduce((a, b) => a + b, 0) : Math.max(...values);
  const limit = Number(threshold);
  return op === '>' ? value > limit : op === '>=' ? value >= limit : op === '<' ? value < limit : value === limit;
}
