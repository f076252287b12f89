-- Namespace-scoped roles (issue #34): a user, or an IdP group, gets a role on
-- a namespace and its children. A caller's role for a namespace is the
-- highest of its global role and the bindings that cover it
-- (docs/operating/roles.md); bindings only raise a role.
CREATE TABLE "role_bindings" (
    "id" TEXT NOT NULL,
    "namespace" TEXT NOT NULL,
    "user_id" TEXT,
    "group_name" TEXT,
    "role" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "role_bindings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "role_bindings_one_subject" CHECK (("user_id" IS NULL) <> ("group_name" IS NULL)),
    CONSTRAINT "role_bindings_role" CHECK ("role" IN ('viewer', 'operator', 'editor', 'admin'))
);

CREATE UNIQUE INDEX "role_bindings_namespace_user_id_key" ON "role_bindings"("namespace", "user_id");
CREATE UNIQUE INDEX "role_bindings_namespace_group_name_key" ON "role_bindings"("namespace", "group_name");
CREATE INDEX "role_bindings_user_id_idx" ON "role_bindings"("user_id");
CREATE INDEX "role_bindings_group_name_idx" ON "role_bindings"("group_name");

ALTER TABLE "role_bindings" ADD CONSTRAINT "role_bindings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The IdP groups of a user, as of their last single sign-on (written at each
-- SSO login); group bindings apply through them.
CREATE TABLE "user_groups" (
    "user_id" TEXT NOT NULL,
    "group_name" TEXT NOT NULL,

    CONSTRAINT "user_groups_pkey" PRIMARY KEY ("user_id", "group_name")
);

CREATE INDEX "user_groups_group_name_idx" ON "user_groups"("group_name");

ALTER TABLE "user_groups" ADD CONSTRAINT "user_groups_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
