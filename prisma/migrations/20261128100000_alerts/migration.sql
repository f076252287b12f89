-- Alert rules and their durable deliveries (issue #33). Maintenance scans
-- ended executions by a cursor (alert_scan_cursors), writes one delivery per
-- (rule, subject, event, channel) with ON CONFLICT DO NOTHING, and delivers
-- them with FOR UPDATE SKIP LOCKED claims; the engine is not involved.

-- CreateTable
CREATE TABLE "alert_rules" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT,
    "events" TEXT[],
    "late_after_seconds" INTEGER,
    "schedule_grace_seconds" INTEGER,
    "channels" JSONB NOT NULL,
    "rate_limit_per_hour" INTEGER NOT NULL DEFAULT 20,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_deliveries" (
    "id" TEXT NOT NULL,
    "rule_id" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "execution_id" TEXT,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT,
    "channel" INTEGER NOT NULL,
    "channel_type" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "locked_by" TEXT,
    "locked_until" TIMESTAMPTZ(6),
    "message" JSONB,
    "error" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(6),

    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_delivery_attempts" (
    "id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ok" BOOLEAN NOT NULL,
    "http_status" INTEGER,
    "detail" TEXT NOT NULL DEFAULT '',
    "duration_ms" INTEGER NOT NULL,
    "instance_id" TEXT NOT NULL,

    CONSTRAINT "alert_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "alert_scan_cursors" (
    "name" TEXT NOT NULL,
    "ended_at" TIMESTAMPTZ(6) NOT NULL,
    "execution_id" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "alert_scan_cursors_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "alert_deliveries_rule_id_subject_event_channel_key" ON "alert_deliveries"("rule_id", "subject", "event", "channel");

-- CreateIndex
CREATE INDEX "alert_deliveries_status_next_attempt_at_idx" ON "alert_deliveries"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "alert_deliveries_rule_id_created_at_idx" ON "alert_deliveries"("rule_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "alert_delivery_attempts_delivery_id_number_key" ON "alert_delivery_attempts"("delivery_id", "number");

-- AddForeignKey
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "alert_delivery_attempts" ADD CONSTRAINT "alert_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "alert_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The scanner's one cursor starts now: executions that ended before alerts existed raise none.
INSERT INTO "alert_scan_cursors" ("name", "ended_at") VALUES ('executions', CURRENT_TIMESTAMP);
