-- A triage insight keeps its probable cause, its suggested fix and the
-- evidence it was built from (failed task runs, masked log tails, the flow
-- definition, what changed since the last success), so every answer shows
-- what it rests on.
ALTER TABLE "ai_insights" ADD COLUMN "probable_cause" TEXT NOT NULL DEFAULT '';
ALTER TABLE "ai_insights" ADD COLUMN "suggested_fix" TEXT NOT NULL DEFAULT '';
ALTER TABLE "ai_insights" ADD COLUMN "evidence" JSONB NOT NULL DEFAULT '[]';
