-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "display_name" TEXT NOT NULL DEFAULT '',
    "password_hash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "must_change_password" BOOLEAN NOT NULL DEFAULT false,
    "preferences" JSONB NOT NULL DEFAULT '{}',
    "password_changed_at" TIMESTAMPTZ(6),
    "last_login_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "ip" TEXT NOT NULL DEFAULT '',
    "user_agent" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6),
    "expires_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "login_attempts" (
    "id" BIGSERIAL NOT NULL,
    "email" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "succeeded" BOOLEAN NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "login_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "namespaces" (
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "head_version" INTEGER NOT NULL DEFAULT 0,
    "head_version_id" TEXT,
    "created_by" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "namespaces_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "file_objects" (
    "hash" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "file_objects_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "snapshots" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "manifest_hash" TEXT NOT NULL,
    "file_count" INTEGER NOT NULL,
    "total_bytes" BIGINT NOT NULL,
    "git_sha" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "bundle_hash" TEXT,
    "bundle_key" TEXT,
    "bundle_size" BIGINT,
    "bundle_built_at" TIMESTAMPTZ(6),
    "last_used_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "snapshots_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "snapshot_files" (
    "snapshot_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "file_hash" TEXT NOT NULL,
    "executable" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "snapshot_files_pkey" PRIMARY KEY ("snapshot_id","path")
);

-- CreateTable
CREATE TABLE "namespace_versions" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "version" INTEGER,
    "author" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "snapshot_id" TEXT NOT NULL,
    "manifest_hash" TEXT NOT NULL,
    "file_count" INTEGER NOT NULL,
    "git_sha" TEXT,
    "parent_id" TEXT,
    "changes" JSONB NOT NULL DEFAULT '[]',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "namespace_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "flows" (
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "current_revision_id" TEXT,
    "revision_count" INTEGER NOT NULL DEFAULT 0,
    "description" TEXT NOT NULL DEFAULT '',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(6),

    CONSTRAINT "flows_pkey" PRIMARY KEY ("namespace","flow_id")
);

-- CreateTable
CREATE TABLE "flow_revisions" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "source_yaml" TEXT NOT NULL,
    "definition" JSONB NOT NULL,
    "hash" TEXT NOT NULL,
    "namespace_version_id" TEXT,
    "created_by" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flow_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "flow_triggers" (
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "upstream_namespace" TEXT,
    "upstream_flow_id" TEXT,
    "states" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "definition" JSONB NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flow_triggers_pkey" PRIMARY KEY ("namespace","flow_id","trigger_id")
);

-- CreateTable
CREATE TABLE "schedules" (
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "catch_up" TEXT NOT NULL DEFAULT 'last',
    "next_fire_at" TIMESTAMPTZ(6),
    "last_fired_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedules_pkey" PRIMARY KEY ("namespace","flow_id","trigger_id")
);

-- CreateTable
CREATE TABLE "schedule_fires" (
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "fire_time" TIMESTAMPTZ(6) NOT NULL,
    "execution_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schedule_fires_pkey" PRIMARY KEY ("namespace","flow_id","trigger_id","fire_time")
);

-- CreateTable
CREATE TABLE "webhook_keys" (
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "key_ciphertext" BYTEA,
    "key_nonce" BYTEA,
    "key_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(6),

    CONSTRAINT "webhook_keys_pkey" PRIMARY KEY ("namespace","flow_id","trigger_id")
);

-- CreateTable
CREATE TABLE "flow_trigger_firings" (
    "upstream_execution_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "execution_id" TEXT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "flow_trigger_firings_pkey" PRIMARY KEY ("upstream_execution_id","namespace","flow_id","trigger_id")
);

-- CreateTable
CREATE TABLE "executions" (
    "id" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "error" TEXT NOT NULL DEFAULT '',
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT,
    "flow_revision_id" TEXT,
    "git_sha" TEXT,
    "snapshot_id" TEXT NOT NULL,
    "snapshot_version" INTEGER,
    "definition" JSONB NOT NULL,
    "inputs" JSONB NOT NULL DEFAULT '{}',
    "labels" JSONB NOT NULL DEFAULT '{}',
    "outputs" JSONB,
    "parent_execution_id" TEXT,
    "parent_task_run_id" TEXT,
    "restart_of_id" TEXT,
    "chain_depth" INTEGER NOT NULL DEFAULT 0,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(6),
    "ended_at" TIMESTAMPTZ(6),
    "duration_ms" BIGINT,
    "secret_keys_used" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "trigger_type" TEXT NOT NULL,
    "trigger_id" TEXT,
    "trigger_payload" JSONB NOT NULL DEFAULT '{}',
    "timeout_at" TIMESTAMPTZ(6),
    "concurrency_key" TEXT,
    "concurrency_slot" INTEGER,
    "cancel_requested_at" TIMESTAMPTZ(6),
    "cancel_requested_by" TEXT,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "execution_history" (
    "seq" BIGSERIAL NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_run_id" TEXT,
    "from_state" TEXT,
    "to_state" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "actor" TEXT NOT NULL DEFAULT '',
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "execution_history_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "task_runs" (
    "id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_key" TEXT NOT NULL,
    "task_type" TEXT NOT NULL,
    "executor_type" TEXT NOT NULL,
    "pool" TEXT NOT NULL DEFAULT 'default',
    "state" TEXT NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "error" TEXT NOT NULL DEFAULT '',
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "child_execution_id" TEXT,
    "reused_from_id" TEXT,
    "exit_code" INTEGER,
    "duration_ms" BIGINT,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "queued_at" TIMESTAMPTZ(6),
    "started_at" TIMESTAMPTZ(6),
    "ended_at" TIMESTAMPTZ(6),
    "outputs" JSONB,
    "not_before" TIMESTAMPTZ(6),
    "claimed_by" TEXT,
    "claimed_at" TIMESTAMPTZ(6),
    "lease_until" TIMESTAMPTZ(6),
    "run_token_hash" TEXT,
    "last_heartbeat_at" TIMESTAMPTZ(6),
    "timeout_at" TIMESTAMPTZ(6),
    "log_seq" INTEGER NOT NULL DEFAULT 0,
    "external_id" TEXT,
    "spec" JSONB,
    "version" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "log_lines" (
    "task_run_id" TEXT NOT NULL,
    "n" INTEGER NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_key" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "ts" BIGINT NOT NULL,
    "stream" TEXT NOT NULL,
    "text" TEXT NOT NULL,

    CONSTRAINT "log_lines_pkey" PRIMARY KEY ("task_run_id","n")
);

-- CreateTable
CREATE TABLE "log_archives" (
    "execution_id" TEXT NOT NULL,
    "object_key" TEXT NOT NULL,
    "compression" TEXT NOT NULL DEFAULT 'gzip',
    "size" BIGINT NOT NULL,
    "line_count" INTEGER NOT NULL,
    "index" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "log_archives_pkey" PRIMARY KEY ("execution_id")
);

-- CreateTable
CREATE TABLE "artifacts" (
    "id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_run_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "object_key" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "content_type" TEXT NOT NULL DEFAULT 'application/octet-stream',
    "sha256" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "task_metrics" (
    "id" BIGSERIAL NOT NULL,
    "execution_id" TEXT NOT NULL,
    "task_run_id" TEXT NOT NULL,
    "task_key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "tags" JSONB NOT NULL DEFAULT '{}',
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "task_metrics_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "secrets" (
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "nonce" BYTEA NOT NULL,
    "key_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "secrets_pkey" PRIMARY KEY ("namespace","key")
);

-- CreateTable
CREATE TABLE "variables" (
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "variables_pkey" PRIMARY KEY ("namespace","key")
);

-- CreateTable
CREATE TABLE "secret_providers" (
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "config" JSONB NOT NULL DEFAULT '{}',
    "credentials_ciphertext" BYTEA,
    "credentials_nonce" BYTEA,
    "credentials_key_id" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "priority" INTEGER NOT NULL DEFAULT 100,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "secret_providers_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "git_sources" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "repo_url" TEXT NOT NULL,
    "branch" TEXT NOT NULL DEFAULT 'main',
    "auth_type" TEXT NOT NULL DEFAULT 'none',
    "credential_secret_key" TEXT NOT NULL DEFAULT '',
    "known_hosts" TEXT NOT NULL DEFAULT '',
    "webhook_secret_key" TEXT NOT NULL DEFAULT '',
    "poll_interval" INTEGER NOT NULL DEFAULT 0,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "last_error" TEXT NOT NULL DEFAULT '',
    "last_sync_status" TEXT NOT NULL DEFAULT '',
    "last_synced_sha" TEXT NOT NULL DEFAULT '',
    "last_sync_at" TIMESTAMPTZ(6),
    "next_poll_at" TIMESTAMPTZ(6),
    "sync_requested_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "git_sources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "git_source_mappings" (
    "git_source_id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "repo_path" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "git_source_mappings_pkey" PRIMARY KEY ("git_source_id","namespace")
);

-- CreateTable
CREATE TABLE "git_sync_runs" (
    "id" TEXT NOT NULL,
    "git_source_id" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL,
    "sha" TEXT NOT NULL DEFAULT '',
    "error" TEXT NOT NULL DEFAULT '',
    "details" JSONB NOT NULL DEFAULT '{}',
    "started_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(6),

    CONSTRAINT "git_sync_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "instances" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "hostname" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "pools" TEXT[],
    "executors" TEXT[],
    "started_at" TIMESTAMPTZ(6) NOT NULL,
    "last_heartbeat_at" TIMESTAMPTZ(6) NOT NULL,
    "stopped_at" TIMESTAMPTZ(6),
    "metadata" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "instances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "leases" (
    "name" TEXT NOT NULL,
    "holder_id" TEXT NOT NULL,
    "acquired_at" TIMESTAMPTZ(6) NOT NULL,
    "renewed_at" TIMESTAMPTZ(6) NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "leases_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "audit_events" (
    "id" TEXT NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_id" TEXT,
    "actor_type" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "target_type" TEXT NOT NULL DEFAULT '',
    "target_id" TEXT NOT NULL DEFAULT '',
    "ip" TEXT NOT NULL DEFAULT '',
    "request_id" TEXT NOT NULL DEFAULT '',
    "details" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_conversations" (
    "id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "title" TEXT NOT NULL DEFAULT '',
    "context" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_messages" (
    "id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "content" TEXT NOT NULL DEFAULT '',
    "parts" JSONB NOT NULL DEFAULT '[]',
    "model" TEXT NOT NULL DEFAULT '',
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_pending_actions" (
    "id" TEXT NOT NULL,
    "conversation_id" TEXT NOT NULL,
    "message_id" TEXT,
    "tool" TEXT NOT NULL,
    "arguments" JSONB NOT NULL DEFAULT '{}',
    "summary" TEXT NOT NULL DEFAULT '',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "result" JSONB,
    "error" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decided_at" TIMESTAMPTZ(6),
    "decided_by" TEXT,
    "expires_at" TIMESTAMPTZ(6),

    CONSTRAINT "ai_pending_actions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_insights" (
    "id" TEXT NOT NULL,
    "execution_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'triage',
    "status" TEXT NOT NULL DEFAULT 'pending',
    "summary" TEXT NOT NULL DEFAULT '',
    "details" TEXT NOT NULL DEFAULT '',
    "model" TEXT NOT NULL DEFAULT '',
    "error" TEXT NOT NULL DEFAULT '',
    "requested_by" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(6),

    CONSTRAINT "ai_insights_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ai_provider" (
    "id" TEXT NOT NULL DEFAULT 'default',
    "type" TEXT NOT NULL,
    "base_url" TEXT NOT NULL DEFAULT '',
    "model" TEXT NOT NULL,
    "api_key_ciphertext" BYTEA,
    "api_key_nonce" BYTEA,
    "api_key_key_id" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "auto_triage" BOOLEAN NOT NULL DEFAULT false,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "updated_by" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_provider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "rate_limit" DOUBLE PRECISION,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organization_keys" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),

    CONSTRAINT "organization_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "emails" (
    "id" TEXT NOT NULL,
    "organization_id" TEXT NOT NULL,
    "key_id" TEXT,
    "from_address" TEXT NOT NULL,
    "to_address" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(6),
    "message_id" TEXT,
    "error" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sent_at" TIMESTAMPTZ(6),

    CONSTRAINT "emails_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "org_rate_limit_buckets" (
    "organization_id" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "org_rate_limit_buckets_pkey" PRIMARY KEY ("organization_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE INDEX "sessions_expires_at_idx" ON "sessions"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "api_tokens_token_hash_key" ON "api_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- CreateIndex
CREATE INDEX "login_attempts_email_at_idx" ON "login_attempts"("email", "at");

-- CreateIndex
CREATE INDEX "login_attempts_ip_at_idx" ON "login_attempts"("ip", "at");

-- CreateIndex
CREATE INDEX "login_attempts_at_idx" ON "login_attempts"("at");

-- CreateIndex
CREATE UNIQUE INDEX "namespaces_head_version_id_key" ON "namespaces"("head_version_id");

-- CreateIndex
CREATE INDEX "snapshots_namespace_created_at_idx" ON "snapshots"("namespace", "created_at");

-- CreateIndex
CREATE INDEX "snapshots_manifest_hash_idx" ON "snapshots"("manifest_hash");

-- CreateIndex
CREATE INDEX "snapshots_last_used_at_idx" ON "snapshots"("last_used_at");

-- CreateIndex
CREATE INDEX "snapshot_files_file_hash_idx" ON "snapshot_files"("file_hash");

-- CreateIndex
CREATE INDEX "namespace_versions_namespace_created_at_idx" ON "namespace_versions"("namespace", "created_at" DESC);

-- CreateIndex
CREATE INDEX "namespace_versions_snapshot_id_idx" ON "namespace_versions"("snapshot_id");

-- CreateIndex
CREATE UNIQUE INDEX "namespace_versions_namespace_version_key" ON "namespace_versions"("namespace", "version");

-- CreateIndex
CREATE UNIQUE INDEX "flows_current_revision_id_key" ON "flows"("current_revision_id");

-- CreateIndex
CREATE INDEX "flow_revisions_namespace_version_id_idx" ON "flow_revisions"("namespace_version_id");

-- CreateIndex
CREATE UNIQUE INDEX "flow_revisions_namespace_flow_id_revision_key" ON "flow_revisions"("namespace", "flow_id", "revision");

-- CreateIndex
CREATE INDEX "flow_triggers_upstream_namespace_upstream_flow_id_idx" ON "flow_triggers"("upstream_namespace", "upstream_flow_id");

-- CreateIndex
CREATE INDEX "schedules_next_fire_at_idx" ON "schedules"("next_fire_at");

-- CreateIndex
CREATE INDEX "schedule_fires_created_at_idx" ON "schedule_fires"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_keys_key_hash_key" ON "webhook_keys"("key_hash");

-- CreateIndex
CREATE INDEX "flow_trigger_firings_namespace_flow_id_idx" ON "flow_trigger_firings"("namespace", "flow_id");

-- CreateIndex
CREATE INDEX "executions_state_created_at_id_idx" ON "executions"("state", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "executions_created_at_id_idx" ON "executions"("created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "executions_namespace_flow_id_created_at_idx" ON "executions"("namespace", "flow_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "executions_namespace_flow_id_ended_at_idx" ON "executions"("namespace", "flow_id", "ended_at");

-- CreateIndex
CREATE INDEX "executions_ended_at_idx" ON "executions"("ended_at");

-- CreateIndex
CREATE INDEX "executions_concurrency_key_state_created_at_idx" ON "executions"("concurrency_key", "state", "created_at");

-- CreateIndex
CREATE INDEX "executions_timeout_at_idx" ON "executions"("timeout_at");

-- CreateIndex
CREATE INDEX "executions_parent_execution_id_idx" ON "executions"("parent_execution_id");

-- CreateIndex
CREATE INDEX "executions_parent_task_run_id_idx" ON "executions"("parent_task_run_id");

-- CreateIndex
CREATE INDEX "executions_restart_of_id_idx" ON "executions"("restart_of_id");

-- CreateIndex
CREATE INDEX "executions_flow_revision_id_idx" ON "executions"("flow_revision_id");

-- CreateIndex
CREATE INDEX "executions_snapshot_id_idx" ON "executions"("snapshot_id");

-- CreateIndex
CREATE UNIQUE INDEX "executions_concurrency_key_concurrency_slot_key" ON "executions"("concurrency_key", "concurrency_slot");

-- CreateIndex
CREATE INDEX "execution_history_execution_id_seq_idx" ON "execution_history"("execution_id", "seq");

-- CreateIndex
CREATE INDEX "execution_history_task_run_id_idx" ON "execution_history"("task_run_id");

-- CreateIndex
CREATE UNIQUE INDEX "task_runs_run_token_hash_key" ON "task_runs"("run_token_hash");

-- CreateIndex
CREATE INDEX "task_runs_state_pool_executor_type_queued_at_idx" ON "task_runs"("state", "pool", "executor_type", "queued_at");

-- CreateIndex
CREATE INDEX "task_runs_state_timeout_at_idx" ON "task_runs"("state", "timeout_at");

-- CreateIndex
CREATE INDEX "task_runs_claimed_by_idx" ON "task_runs"("claimed_by");

-- CreateIndex
CREATE INDEX "task_runs_child_execution_id_idx" ON "task_runs"("child_execution_id");

-- CreateIndex
CREATE INDEX "task_runs_reused_from_id_idx" ON "task_runs"("reused_from_id");

-- CreateIndex
CREATE UNIQUE INDEX "task_runs_execution_id_task_key_attempt_key" ON "task_runs"("execution_id", "task_key", "attempt");

-- CreateIndex
CREATE INDEX "log_lines_execution_id_task_run_id_n_idx" ON "log_lines"("execution_id", "task_run_id", "n");

-- CreateIndex
CREATE INDEX "artifacts_execution_id_created_at_idx" ON "artifacts"("execution_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "artifacts_task_run_id_name_key" ON "artifacts"("task_run_id", "name");

-- CreateIndex
CREATE INDEX "task_metrics_execution_id_name_idx" ON "task_metrics"("execution_id", "name");

-- CreateIndex
CREATE INDEX "task_metrics_task_run_id_idx" ON "task_metrics"("task_run_id");

-- CreateIndex
CREATE INDEX "secrets_key_id_idx" ON "secrets"("key_id");

-- CreateIndex
CREATE UNIQUE INDEX "git_sources_name_key" ON "git_sources"("name");

-- CreateIndex
CREATE INDEX "git_sources_next_poll_at_idx" ON "git_sources"("next_poll_at");

-- CreateIndex
CREATE UNIQUE INDEX "git_source_mappings_namespace_key" ON "git_source_mappings"("namespace");

-- CreateIndex
CREATE INDEX "git_sync_runs_git_source_id_started_at_idx" ON "git_sync_runs"("git_source_id", "started_at" DESC);

-- CreateIndex
CREATE INDEX "audit_events_at_id_idx" ON "audit_events"("at", "id");

-- CreateIndex
CREATE INDEX "audit_events_action_at_idx" ON "audit_events"("action", "at");

-- CreateIndex
CREATE INDEX "audit_events_actor_id_at_idx" ON "audit_events"("actor_id", "at");

-- CreateIndex
CREATE INDEX "audit_events_target_type_target_id_at_idx" ON "audit_events"("target_type", "target_id", "at");

-- CreateIndex
CREATE INDEX "ai_conversations_user_id_updated_at_idx" ON "ai_conversations"("user_id", "updated_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "ai_messages_conversation_id_seq_key" ON "ai_messages"("conversation_id", "seq");

-- CreateIndex
CREATE INDEX "ai_pending_actions_conversation_id_status_idx" ON "ai_pending_actions"("conversation_id", "status");

-- CreateIndex
CREATE INDEX "ai_pending_actions_message_id_idx" ON "ai_pending_actions"("message_id");

-- CreateIndex
CREATE INDEX "ai_insights_execution_id_created_at_idx" ON "ai_insights"("execution_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "ai_insights_status_created_at_idx" ON "ai_insights"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "organizations_name_key" ON "organizations"("name");

-- CreateIndex
CREATE UNIQUE INDEX "organization_keys_key_hash_key" ON "organization_keys"("key_hash");

-- CreateIndex
CREATE INDEX "organization_keys_organization_id_idx" ON "organization_keys"("organization_id");

-- CreateIndex
CREATE INDEX "emails_status_next_attempt_at_idx" ON "emails"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "emails_organization_id_created_at_idx" ON "emails"("organization_id", "created_at");

-- CreateIndex
CREATE INDEX "emails_key_id_idx" ON "emails"("key_id");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespaces" ADD CONSTRAINT "namespaces_head_version_id_fkey" FOREIGN KEY ("head_version_id") REFERENCES "namespace_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snapshot_files" ADD CONSTRAINT "snapshot_files_snapshot_id_fkey" FOREIGN KEY ("snapshot_id") REFERENCES "snapshots"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "snapshot_files" ADD CONSTRAINT "snapshot_files_file_hash_fkey" FOREIGN KEY ("file_hash") REFERENCES "file_objects"("hash") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespace_versions" ADD CONSTRAINT "namespace_versions_namespace_fkey" FOREIGN KEY ("namespace") REFERENCES "namespaces"("name") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "namespace_versions" ADD CONSTRAINT "namespace_versions_snapshot_id_fkey" FOREIGN KEY ("snapshot_id") REFERENCES "snapshots"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flows" ADD CONSTRAINT "flows_namespace_fkey" FOREIGN KEY ("namespace") REFERENCES "namespaces"("name") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flows" ADD CONSTRAINT "flows_current_revision_id_fkey" FOREIGN KEY ("current_revision_id") REFERENCES "flow_revisions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flow_revisions" ADD CONSTRAINT "flow_revisions_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flow_revisions" ADD CONSTRAINT "flow_revisions_namespace_version_id_fkey" FOREIGN KEY ("namespace_version_id") REFERENCES "namespace_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flow_triggers" ADD CONSTRAINT "flow_triggers_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedules" ADD CONSTRAINT "schedules_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "schedule_fires" ADD CONSTRAINT "schedule_fires_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_keys" ADD CONSTRAINT "webhook_keys_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flow_trigger_firings" ADD CONSTRAINT "flow_trigger_firings_upstream_execution_id_fkey" FOREIGN KEY ("upstream_execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "flow_trigger_firings" ADD CONSTRAINT "flow_trigger_firings_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_flow_revision_id_fkey" FOREIGN KEY ("flow_revision_id") REFERENCES "flow_revisions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_snapshot_id_fkey" FOREIGN KEY ("snapshot_id") REFERENCES "snapshots"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_parent_execution_id_fkey" FOREIGN KEY ("parent_execution_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_parent_task_run_id_fkey" FOREIGN KEY ("parent_task_run_id") REFERENCES "task_runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "executions" ADD CONSTRAINT "executions_restart_of_id_fkey" FOREIGN KEY ("restart_of_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "execution_history" ADD CONSTRAINT "execution_history_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "execution_history" ADD CONSTRAINT "execution_history_task_run_id_fkey" FOREIGN KEY ("task_run_id") REFERENCES "task_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_child_execution_id_fkey" FOREIGN KEY ("child_execution_id") REFERENCES "executions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_runs" ADD CONSTRAINT "task_runs_reused_from_id_fkey" FOREIGN KEY ("reused_from_id") REFERENCES "task_runs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "log_archives" ADD CONSTRAINT "log_archives_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "artifacts" ADD CONSTRAINT "artifacts_task_run_id_fkey" FOREIGN KEY ("task_run_id") REFERENCES "task_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_metrics" ADD CONSTRAINT "task_metrics_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "task_metrics" ADD CONSTRAINT "task_metrics_task_run_id_fkey" FOREIGN KEY ("task_run_id") REFERENCES "task_runs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "git_source_mappings" ADD CONSTRAINT "git_source_mappings_git_source_id_fkey" FOREIGN KEY ("git_source_id") REFERENCES "git_sources"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_conversations" ADD CONSTRAINT "ai_conversations_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_messages" ADD CONSTRAINT "ai_messages_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_pending_actions" ADD CONSTRAINT "ai_pending_actions_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "ai_conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_pending_actions" ADD CONSTRAINT "ai_pending_actions_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "ai_messages"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ai_insights" ADD CONSTRAINT "ai_insights_execution_id_fkey" FOREIGN KEY ("execution_id") REFERENCES "executions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organization_keys" ADD CONSTRAINT "organization_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "emails" ADD CONSTRAINT "emails_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "emails" ADD CONSTRAINT "emails_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "organization_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "org_rate_limit_buckets" ADD CONSTRAINT "org_rate_limit_buckets_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

