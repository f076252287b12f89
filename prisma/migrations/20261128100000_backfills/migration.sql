-- Backfills (issue #33): a flow's schedule trigger run over a past range.
-- One row per backfill, and one row per fire time it creates (all computed
-- when it is created, so the preview is what runs). The scheduler advances
-- running backfills by claiming their row with FOR UPDATE SKIP LOCKED; the
-- primary key of backfill_runs makes each (backfill, fire time) one execution.
CREATE TABLE "backfills" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "flow_id" TEXT NOT NULL,
    "trigger_id" TEXT NOT NULL,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "range_from" TIMESTAMPTZ(6) NOT NULL,
    "range_to" TIMESTAMPTZ(6) NOT NULL,
    "max_in_flight" INTEGER NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'running',
    "total" INTEGER NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(6),

    CONSTRAINT "backfills_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "backfills_namespace_flow_id_created_at_idx" ON "backfills"("namespace", "flow_id", "created_at");
CREATE INDEX "backfills_state_idx" ON "backfills"("state");

CREATE TABLE "backfill_runs" (
    "backfill_id" TEXT NOT NULL,
    "fire_time" TIMESTAMPTZ(6) NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending',
    "execution_id" TEXT,
    "reason" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6),

    CONSTRAINT "backfill_runs_pkey" PRIMARY KEY ("backfill_id", "fire_time")
);

CREATE INDEX "backfill_runs_backfill_id_state_idx" ON "backfill_runs"("backfill_id", "state");

ALTER TABLE "backfills" ADD CONSTRAINT "backfills_namespace_flow_id_fkey" FOREIGN KEY ("namespace", "flow_id") REFERENCES "flows"("namespace", "flow_id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "backfill_runs" ADD CONSTRAINT "backfill_runs_backfill_id_fkey" FOREIGN KEY ("backfill_id") REFERENCES "backfills"("id") ON DELETE CASCADE ON UPDATE CASCADE;
