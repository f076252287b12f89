// Alert rules (beyond the spec's operation index, see
// EXTENSION_OPERATION_IDS): a scope, events and channels per rule, and the
// deliveries maintenance made of them with their attempts. Reads are the
// viewer's (a rule names secrets, never holds one); changes are the
// editor's, like the flows and secrets they watch, and audited.
import type { Operation } from '../operation.js';
import { AlertDelivery, AlertRule, CreateAlertRuleRequest, UpdateAlertRuleRequest } from '../schemas/alerts.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { Page } from '../schemas/helpers.js';
import { ListQuery, OpaqueId, Params } from '../schemas/requests.js';
import { EDITOR, VIEWER, created, err, noContent, ok } from './shared.js';

const RuleParams = Params({ ruleId: OpaqueId });
const noRule = err(404, 'No such alert rule');

export const alertOperations: Operation[] = [
  {
    operationId: 'listAlertRules',
    method: 'get',
    path: '/api/v1/alerts',
    tag: 'alerts',
    summary: 'Alert rules, newest first',
    auth: VIEWER,
    request: { query: ListQuery, cursor: OPERATION_CURSORS.listAlertRules },
    responses: ok(Page(AlertRule)),
  },
  {
    operationId: 'createAlertRule',
    method: 'post',
    path: '/api/v1/alerts',
    tag: 'alerts',
    summary: 'Create an alert rule: a scope (a namespace and its children, or one flow), events and channels',
    auth: EDITOR,
    request: { body: CreateAlertRuleRequest },
    responses: created(AlertRule),
  },
  {
    operationId: 'getAlertRule',
    method: 'get',
    path: '/api/v1/alerts/{ruleId}',
    tag: 'alerts',
    summary: 'One alert rule',
    auth: VIEWER,
    request: { params: RuleParams },
    responses: { ...ok(AlertRule), ...noRule },
  },
  {
    operationId: 'updateAlertRule',
    method: 'patch',
    path: '/api/v1/alerts/{ruleId}',
    tag: 'alerts',
    summary: 'Change an alert rule (the fields given)',
    auth: EDITOR,
    request: { params: RuleParams, body: UpdateAlertRuleRequest },
    responses: { ...ok(AlertRule), ...noRule },
  },
  {
    operationId: 'deleteAlertRule',
    method: 'delete',
    path: '/api/v1/alerts/{ruleId}',
    tag: 'alerts',
    summary: 'Delete an alert rule and its deliveries (pending ones are not sent)',
    auth: EDITOR,
    request: { params: RuleParams },
    responses: { ...noContent('Deleted'), ...noRule },
  },
  {
    operationId: 'listAlertDeliveries',
    method: 'get',
    path: '/api/v1/alerts/{ruleId}/deliveries',
    tag: 'alerts',
    summary: 'Deliveries of a rule, newest first, each with its attempts',
    auth: VIEWER,
    request: { params: RuleParams, query: ListQuery, cursor: OPERATION_CURSORS.listAlertDeliveries },
    responses: { ...ok(Page(AlertDelivery)), ...noRule },
  },
];
