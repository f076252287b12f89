-- Single sign-on through OpenID Connect (issue #34). sso_settings: the one
-- provider's settings (id 'oidc'; the client secret is a secret reference,
-- never a value). sso_identities: which IdP subject a user signed in as (a
-- user with one is an SSO user). sso_login_states: the PKCE verifier, state
-- and nonce of a login on its way through the IdP, found by the hash of the
-- svc_oidc cookie and deleted when used (10 minutes at most).
CREATE TABLE "sso_settings" (
    "id" TEXT NOT NULL DEFAULT 'oidc',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "display_name" TEXT NOT NULL,
    "issuer_url" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret_secret" TEXT NOT NULL,
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "groups_claim" TEXT NOT NULL DEFAULT 'groups',
    "password_login_disabled" BOOLEAN NOT NULL DEFAULT false,
    "default_role" TEXT NOT NULL DEFAULT 'viewer',
    "group_roles" JSONB NOT NULL DEFAULT '[]',
    "updated_by" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sso_settings_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "sso_identities" (
    "issuer" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_login_at" TIMESTAMPTZ(6),

    CONSTRAINT "sso_identities_pkey" PRIMARY KEY ("issuer","subject")
);

CREATE INDEX "sso_identities_user_id_idx" ON "sso_identities"("user_id");

ALTER TABLE "sso_identities" ADD CONSTRAINT "sso_identities_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "sso_login_states" (
    "id_hash" TEXT NOT NULL,
    "code_verifier" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "nonce" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL,

    CONSTRAINT "sso_login_states_pkey" PRIMARY KEY ("id_hash")
);

CREATE INDEX "sso_login_states_created_at_idx" ON "sso_login_states"("created_at");
