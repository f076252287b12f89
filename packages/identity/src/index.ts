export * from './secrets.js';
export * from './passwords.js';
export * from './audit.js';
export * from './login-limits.js';
export * from './users.js';
export * from './tokens.js';
export * from './sessions.js';
export * from './sql/credentials.js';
