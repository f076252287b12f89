-- Single sign-on sign-up controls and account linking (issue #40,
-- docs/operating/sso.md). sso_settings gains: link_by_email (off: an IdP
-- identity is linked to an existing user only from that user's profile;
-- never to an admin by email), allowed_email_domains, google_hd, entra_tid
-- (claims every ID token must match), existing_users_only and
-- session_max_age_seconds. default_role's column default becomes 'none' for
-- settings written from now on; a stored row keeps the role it has (no UPDATE).
-- sso_login_states.link_user_id marks a login started from a profile to link.
-- sessions.max_expires_at caps a session whatever its use.
ALTER TABLE "sso_settings" ALTER COLUMN "default_role" SET DEFAULT 'none';
ALTER TABLE "sso_settings" ADD COLUMN "link_by_email" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "allowed_email_domains" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "google_hd" TEXT NOT NULL DEFAULT '',
ADD COLUMN "entra_tid" TEXT NOT NULL DEFAULT '',
ADD COLUMN "existing_users_only" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "session_max_age_seconds" INTEGER;

ALTER TABLE "sso_login_states" ADD COLUMN "link_user_id" TEXT;

ALTER TABLE "sessions" ADD COLUMN "max_expires_at" TIMESTAMPTZ(6);
