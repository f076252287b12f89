-- AI use per user and UTC day (assistant turns and triages, provider tokens),
-- counted by the API gateway and checked against the SVC_AI_*_PER_DAY limits:
-- per user on the user's row, for the whole deployment over the day's rows.
-- Automatic triage counts under user_id 'auto' (no foreign key for that).
CREATE TABLE "ai_usage" (
    "user_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "requests" INTEGER NOT NULL DEFAULT 0,
    "tokens" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ai_usage_pkey" PRIMARY KEY ("user_id","day")
);

CREATE INDEX "ai_usage_day_idx" ON "ai_usage"("day");
