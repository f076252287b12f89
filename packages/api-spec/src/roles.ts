// The roles are @svc/vocabulary's, declared once for the server, the web UI,
// the CLI and maintenance; re-exported here for the catalog and @svc/http.
export { ROLES, SPEC_ROLES, isRole, roleAtLeast, type Role, type SpecRole } from '@svc/vocabulary';
