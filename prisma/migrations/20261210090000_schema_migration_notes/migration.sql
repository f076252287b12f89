-- svc: additive
-- Which migrations only add what an older release ignores: a release that
-- finds newer migrations in the database keeps serving traffic when each of
-- them is recorded here as additive (the gateway's /readyz/traffic; see
-- docs/operating/upgrades.md). Written by the migration runner as it applies.
CREATE TABLE "schema_migration_notes" (
    "migration_name" VARCHAR(255) NOT NULL,
    "additive" BOOLEAN NOT NULL,
    "recorded_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "schema_migration_notes_pkey" PRIMARY KEY ("migration_name")
);
