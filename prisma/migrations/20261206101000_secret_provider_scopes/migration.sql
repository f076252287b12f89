-- Secret providers serve listed namespaces only (issue #40): a namespace
-- each covering its children, `*` every namespace, none when empty.
ALTER TABLE "secret_providers" ADD COLUMN "namespaces" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- The upgrade keeps every flow that works today working and closes the
-- provider to every other namespace: an existing provider serves the
-- namespaces whose current flows refer to it (`secret('<name>:...')`, in
-- single or double quotes), and none when no flow does. An admin widens or
-- narrows it afterwards (docs/using/secrets-and-variables.md).
UPDATE "secret_providers" p
SET "namespaces" = COALESCE(
    (SELECT array_agg(DISTINCT f."namespace" ORDER BY f."namespace")
     FROM "flows" f
     JOIN "flow_revisions" r ON r."id" = f."current_revision_id"
     WHERE f."deleted_at" IS NULL
       AND r."source_yaml" ~ ('secret\(\s*[''"]' || p."name" || ':')),
    ARRAY[]::TEXT[]);
