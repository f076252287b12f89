-- Platform credentials out of every flow's reach (issue #40). platform_secrets:
-- the secrets the git sources (credential_secret_key, webhook_secret_key) and
-- single sign-on (client_secret_secret) name, sealed with the master keys and
-- never resolved by `secret()`, alerts or any other resolver of references.
CREATE TABLE "platform_secrets" (
    "name" TEXT NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "nonce" BYTEA NOT NULL,
    "key_id" TEXT NOT NULL,
    "sealed_as" TEXT NOT NULL DEFAULT 'platform',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_by" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "platform_secrets_pkey" PRIMARY KEY ("name"),
    CONSTRAINT "platform_secrets_sealed_as" CHECK ("sealed_as" IN ('platform', 'global_secret'))
);

CREATE INDEX "platform_secrets_key_id_idx" ON "platform_secrets"("key_id");

-- The upgrade: each global secret that a git source or the SSO settings name
-- becomes the platform secret of the same name, so the settings keep working
-- unchanged (a name in them now means the platform secret). The ciphertext is
-- copied as it is, marked `global_secret`: it still opens only under the
-- context it was sealed with (the global scope and this name), which needs no
-- master key here; `svc secrets rewrap` seals it again as a platform secret.
-- The global secret itself stays, since a flow may use it: an admin deletes
-- it once none does (docs/operating/security.md, "Platform credentials").
-- A provider reference in client_secret_secret matches no key and is left
-- as it is.
INSERT INTO "platform_secrets" ("name", "ciphertext", "nonce", "key_id", "sealed_as", "created_at", "updated_at", "updated_by")
SELECT s."key", s."ciphertext", s."nonce", s."key_id", 'global_secret', s."created_at", s."updated_at", s."updated_by"
FROM "secrets" s
WHERE s."namespace" = ''
  AND s."key" IN (
    SELECT "credential_secret_key" FROM "git_sources" WHERE "credential_secret_key" <> ''
    UNION SELECT "webhook_secret_key" FROM "git_sources" WHERE "webhook_secret_key" <> ''
    UNION SELECT "client_secret_secret" FROM "sso_settings"
  )
ON CONFLICT ("name") DO NOTHING;
