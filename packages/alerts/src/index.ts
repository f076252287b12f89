// @svc/alerts: alert rules and their deliveries. The rules' writes
// (rule-store.ts, the gateway's routes call them), the scanner that turns
// ended, late and missed executions into deliveries (scanner.ts), and the
// deliverer that sends them by email, webhook or Slack (deliverer.ts), with
// every statement on the alert tables (sql.ts). Maintenance runs the scanner
// and the deliverer; the apps hold only their wiring.
export { AlertScanner, ALERT_QUEUED_CHANNEL, SETTLE_MS, type AlertScannerOptions } from './scanner.js';
export { AlertDeliverer, MAX_ATTEMPTS as ALERT_MAX_ATTEMPTS, type AlertDelivererOptions } from './deliverer.js';
export { buildMessage, type AlertMessage } from './message.js';
export { inScope, endEvent, channelTarget, retryDelayMs, ALERT_EVENTS, type AlertChannel, type AlertEvent, type AlertRuleRow } from './rules.js';
export { lockAndCountAlertRules, createAlertRule, updateAlertRule, deleteAlertRule, alertRuleNamespace, deleteAlertDeliveriesBefore, type RuleGuard } from './rule-store.js';
export { ruleProblems, type RuleProblem } from './rule-check.js';
