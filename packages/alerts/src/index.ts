// @svc/alerts: alert rules and their deliveries. The rules' writes
// (rule-store.ts, the gateway's routes call them), the scanner that turns
// ended, late and missed executions into deliveries (scanner.ts), and the
// deliverer that sends them by email, webhook or Slack (deliverer.ts), the
// outbox their deliveries are jobs of (delivery-queue.ts, on @svc/jobs), and
// every other statement on the alert tables (sql.ts). Maintenance runs the scanner
// and the deliverer; the apps hold only their wiring.
export { AlertScanner, SETTLE_MS, type AlertScannerOptions } from './scanner.js';
export { ALERT_QUEUED_CHANNEL, ALERT_RETRY, deliveryQueue, type DeliveryJob, type ClaimedDelivery } from './delivery-queue.js';
export { AlertDeliverer, MAX_ATTEMPTS as ALERT_MAX_ATTEMPTS, type AlertDelivererOptions, type DeliveryOutcome } from './deliverer.js';
export { buildMessage, type AlertMessage } from './message.js';
export { inScope, endEvent, channelTarget, ALERT_EVENTS, type AlertChannel, type AlertEvent, type AlertRuleRow } from './rules.js';
export {
  lockAndCountAlertRules,
  createAlertRule,
  updateAlertRule,
  deleteAlertRule,
  alertRuleNamespace,
  alertDeliveryPage,
  deleteAlertDeliveriesBefore,
  type RuleGuard,
} from './rule-store.js';
export { ruleProblems, type RuleProblem } from './rule-check.js';
