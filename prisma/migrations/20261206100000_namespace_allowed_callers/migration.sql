-- Subflows and flow triggers stay in their namespace (issue #40): a flow may
-- start a flow of its own namespace or of a descendant as a subflow, and
-- listen to their executions with a flow trigger. An admin lets other
-- namespaces in by listing them (each covering its children) in the target
-- namespace's allowed callers (docs/operating/roles.md). Existing namespaces
-- start with none: a flow already saved that reaches across is refused when
-- it runs until an admin allows the pair.
ALTER TABLE "namespaces" ADD COLUMN "allowed_callers" TEXT[] DEFAULT ARRAY[]::TEXT[];
