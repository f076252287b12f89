// The engine's NOTIFY channels. NOTIFY is only a wake-up hint: every listener also polls.
export const CHANNELS = {
  /** A task run became QUEUED (payload: executor type). */
  queued: 'svc_task_queued',
  /** An execution is being cancelled or timed out (payload: execution id). */
  stop: 'svc_execution_stop',
  /** An execution or one of its task runs changed state (payload: execution id). */
  changed: 'svc_execution_changed',
} as const;

/** The channel of new log lines (payload: execution id): the gateway's live streams listen to it. */
export const LOG_CHANNEL = 'svc_log_lines';
