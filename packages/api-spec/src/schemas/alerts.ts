// Schemas of the alert operations (operations/alerts.ts): a rule
// (scope, events, channels; a channel names secrets, never holds one), and its
// deliveries with their attempts.
import { Type } from '@sinclair/typebox';
import { ALERT_EVENTS } from '@svc/vocabulary';
import { component, DateTime, Nullable } from './helpers.js';
import { FlowId, NamespaceName } from './requests.js';

/** A secret reference (a key of the rule's namespace, its parents or global, or `provider:path#field`): a name, never a value. */
const SecretRef = (description: string) => Type.String({ minLength: 1, maxLength: 1024, description });

export const AlertEmailChannel = component(
  'AlertEmailChannel',
  Type.Object(
    {
      type: Type.Literal('email'),
      organization: Type.String({ minLength: 1, maxLength: 63, description: 'The organization of the email interface that sends it (its verified senders and daily quota apply)' }),
      from: Type.String({ minLength: 3, maxLength: 320, description: 'A verified sender of the organization' }),
      to: Type.String({ minLength: 3, maxLength: 320 }),
    },
    { additionalProperties: false },
  ),
);

export const AlertWebhookChannel = component(
  'AlertWebhookChannel',
  Type.Object(
    {
      type: Type.Literal('webhook'),
      url: Type.String({
        minLength: 8,
        maxLength: 2048,
        pattern: '^https?://',
        description:
          'Receives a POST of the JSON message. A host that is or resolves to a loopback, private, link-local or other non-public address is refused (422 for a literal address or localhost, a failed delivery for a name) unless SVC_ALERT_ALLOW_PRIVATE_TARGETS is set; redirects are not followed',
      }),
      signing_secret: SecretRef('The secret whose value keys X-Svc-Alert-Signature: `sha256=` and the hex HMAC-SHA256 of `<X-Svc-Alert-Timestamp>.<body>`'),
    },
    { additionalProperties: false },
  ),
);

export const AlertSlackChannel = component(
  'AlertSlackChannel',
  Type.Object(
    {
      type: Type.Literal('slack'),
      url_secret: SecretRef('The secret that holds the Slack-compatible incoming webhook URL (the URL is a credential)'),
    },
    { additionalProperties: false },
  ),
);

export const AlertChannel = Type.Union([AlertEmailChannel, AlertWebhookChannel, AlertSlackChannel]);

export const AlertEvent = Type.Union(
  ALERT_EVENTS.map((e) => Type.Literal(e)),
  {
    description:
      '`failed`, `timed_out`: an execution ended so; `recovered`: the first success of a flow after a failure; `late`: an execution still running `late_after_seconds` after its start, or a schedule `schedule_grace_seconds` past its due fire time; `approval_requested`: a task run started waiting for approval (an approval gate, an extension), with a link to the execution page',
  },
);

const ruleFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  namespace: NamespaceName,
  flow_id: Nullable(FlowId), // One flow of the namespace; null: every flow of the namespace and of its children.
  events: Type.Array(AlertEvent, { minItems: 1, maxItems: 4, uniqueItems: true }),
  late_after_seconds: Nullable(Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'late: how long an execution may run' })),
  schedule_grace_seconds: Nullable(Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'late: how long past its due time a schedule may not have fired' })),
  channels: Type.Array(AlertChannel, { minItems: 1, maxItems: 10 }),
  rate_limit_per_hour: Type.Integer({ minimum: 1, maximum: 10_000, description: 'Alerts per hour; past it, further ones are recorded `suppressed` and not sent' }),
  enabled: Type.Boolean(),
};

export const AlertRule = component(
  'AlertRule',
  Type.Object({ id: Type.String(), ...ruleFields, created_by: Type.String(), created_at: DateTime(), updated_at: DateTime() }, { additionalProperties: false }),
);

export const CreateAlertRuleRequest = component(
  'CreateAlertRuleRequest',
  Type.Object(
    {
      name: ruleFields.name,
      namespace: ruleFields.namespace,
      flow_id: Type.Optional(ruleFields.flow_id),
      events: ruleFields.events,
      late_after_seconds: Type.Optional(ruleFields.late_after_seconds),
      schedule_grace_seconds: Type.Optional(ruleFields.schedule_grace_seconds),
      channels: ruleFields.channels,
      rate_limit_per_hour: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 10_000, default: 20, description: 'Alerts per hour (default 20); past it, further ones are recorded `suppressed` and not sent' }),
      ),
      enabled: Type.Optional(Type.Boolean({ default: true })),
    },
    { additionalProperties: false },
  ),
);

export const UpdateAlertRuleRequest = component(
  'UpdateAlertRuleRequest',
  Type.Object(
    {
      name: Type.Optional(ruleFields.name),
      namespace: Type.Optional(ruleFields.namespace),
      flow_id: Type.Optional(ruleFields.flow_id),
      events: Type.Optional(ruleFields.events),
      late_after_seconds: Type.Optional(ruleFields.late_after_seconds),
      schedule_grace_seconds: Type.Optional(ruleFields.schedule_grace_seconds),
      channels: Type.Optional(ruleFields.channels),
      rate_limit_per_hour: Type.Optional(ruleFields.rate_limit_per_hour),
      enabled: Type.Optional(ruleFields.enabled),
    },
    { additionalProperties: false },
  ),
);

export const AlertDeliveryAttempt = component(
  'AlertDeliveryAttempt',
  Type.Object(
    {
      number: Type.Integer(),
      at: DateTime(),
      ok: Type.Boolean(),
      http_status: Nullable(Type.Integer({ description: 'A webhook answer; null for an email' })),
      detail: Type.String({ description: 'The answer or the error, masked' }),
      duration_ms: Type.Integer(),
      instance_id: Type.String({ description: 'The maintenance instance that tried' }),
    },
    { additionalProperties: false },
  ),
);

export const AlertDelivery = component(
  'AlertDelivery',
  Type.Object(
    {
      id: Type.String({ description: 'Also X-Svc-Alert-Delivery of a webhook, and the id of an email' }),
      rule_id: Type.String(),
      event: AlertEvent,
      subject: Type.String({ description: 'The execution id, or `schedule:<namespace>/<flow>/<trigger>@<due time>`' }),
      execution_id: Nullable(Type.String()),
      namespace: Type.String(),
      flow_id: Nullable(Type.String()),
      channel: Type.Integer({ description: 'The index of the channel in the rule' }),
      channel_type: Type.Union([Type.Literal('email'), Type.Literal('webhook'), Type.Literal('slack')]),
      target: Type.String({ description: 'Where it goes, without secrets: an address, a URL without its query, a secret name' }),
      status: Type.Union([Type.Literal('pending'), Type.Literal('sending'), Type.Literal('delivered'), Type.Literal('failed'), Type.Literal('suppressed')]),
      attempts: Type.Integer(),
      error: Type.String({ description: 'The last error, masked; empty when none' }),
      next_attempt_at: Nullable(DateTime({ description: 'When a pending delivery is tried next' })),
      created_at: DateTime(),
      delivered_at: Nullable(DateTime()),
      attempt_log: Type.Array(AlertDeliveryAttempt),
    },
    { additionalProperties: false },
  ),
);
