-- Organizations name the namespaces allowed to use them (alert rules' email
-- channels, docs/using/emails.md): each entry covers the namespace and its
-- children. A new organization allows none until an admin lists them.
ALTER TABLE "organizations" ADD COLUMN "namespaces" TEXT[] NOT NULL DEFAULT ARRAY[]::TEXT[];

-- On upgrade, an organization keeps exactly the namespaces whose alert rules
-- already send as it, so every existing rule keeps delivering and no other
-- namespace gains anything; an admin reviews and changes the list from here.
UPDATE "organizations" o SET "namespaces" = used.namespaces
  FROM (
    SELECT c->>'organization' AS organization, array_agg(DISTINCT r.namespace ORDER BY r.namespace) AS namespaces
      FROM "alert_rules" r CROSS JOIN LATERAL jsonb_array_elements(CASE WHEN jsonb_typeof(r.channels) = 'array' THEN r.channels ELSE '[]'::jsonb END) c
     WHERE c->>'type' = 'email'
     GROUP BY c->>'organization'
  ) used
 WHERE used.organization = o.name;
