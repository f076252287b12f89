// The API's closed vocabulary, declared once: roles, the rule that makes a
// namespace cover its children, execution and task run states, alert events,
// and the Kubernetes quantity grammar the flow schema and the executors share.
// No dependencies and no node modules, so the web UI bundles it as the
// server, the CLI and maintenance import it (docs/architecture/overview.md).
export { ROLES, SPEC_ROLES, isRole, roleAtLeast, lowerRole, type Role, type SpecRole } from './roles.js';
export { namespaceCovers, ALL_NAMESPACES } from './namespaces.js';
export { EXECUTION_STATES, TASK_RUN_STATES, isExecutionState, isTaskRunState, type ExecutionState, type TaskRunState } from './states.js';
export { ALERT_EVENTS, isAlertEvent, type AlertEvent } from './alerts.js';
export { QUANTITY_PATTERN, parseQuantity, isQuantity, quantityScaled, compareQuantities, type Quantity } from './quantity.js';
export { QUANTITY_EXAMPLES } from './quantity-examples.js';
