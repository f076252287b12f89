export {
  GitCommandError,
  GitCredentialError,
  GitSourceConflictError,
  GitSourceInvalidError,
  GitSourceNotFoundError,
  NamespaceNotMappedError,
  type GitFieldProblem,
} from './errors.js';
export { Redactor } from './redact.js';
export { AUTH_TYPES, isAuthType, openAuth, sshCommand, type AuthSession, type AuthSettings, type AuthType } from './git/auth.js';
export { ScratchRepo, type Commit, type RemoteRef, type TreeFile, type TreeListing } from './git/repo.js';
export { git, gitEnv, ALLOWED_PROTOCOLS } from './git/run.js';
export { branchProblem, normalizeRepoPath, parseGitSourceInput, transportOf, type GitSourceInput, type GitSourceSettings, type Transport } from './settings.js';
export {
  createGitSource,
  deleteGitSource,
  getGitSource,
  gitSourceBody,
  gitSyncRunBody,
  listGitSources,
  listGitSyncRuns,
  requestSync,
  sourceOfNamespace,
  updateGitSource,
  type GitSourceRecord,
  type SourceDeps,
} from './sources.js';
export { remoteHead, sourceCredential, syncSource, versionMessage, type SyncDeps, type SyncOutcome, type SyncProblem } from './sync.js';
export { GitSyncWorker, type GitSyncWorkerDeps, type TickReport, type WorkerLog } from './worker.js';
export { branchName, pushNamespaceBranch, type PushRequest, type PushResult } from './push.js';
export { CI_PATH_SEGMENTS, globToRegExp, isCiPath, pushPathProblem, pushPathRefusal } from './push-paths.js';
export { hubSignature, pushedBranch, verifyPushSignature, type SignatureCheck } from './webhook.js';
export {
  GIT_SYNC_CHANNEL,
  gitSourceLease,
  selectDueGitSources,
  requestGitSync,
  claimGitSource,
  extendGitSyncClaim,
  finishRequestedGitSyncRun,
  insertRunningGitSyncRun,
  finishGitSyncRun,
  recordGitSourceOutcome,
  type GitSyncRunRow,
  type GitSourceClaim,
  type ClaimedGitSync,
  type GitSyncRequest,
} from './sync-queue.js';
