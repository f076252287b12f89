export * from './errors.js';
export * from './paths.js';
export * from './manifest.js';
export { saveChanges, applyChanges, assertWritable, type FileChange, type SaveDeps, type SaveRequest, type VersionRow } from './save.js';
export { revertVersion } from './revert.js';
export { allowedCallersOf, mayReach, providerRefusal, providerServes, reachesByNesting, reachProblems, reachRefusal } from './reach.js';
export {
  createNamespace,
  deleteNamespace,
  getNamespace,
  listNamespaces,
  listVersions,
  namespaceExists,
  setAllowedCallers,
  type NamespaceInfo,
  type NamespaceRow,
} from './namespaces.js';
export {
  findFlow,
  findFlowRevision,
  inNamespaces,
  listFlowRevisions,
  listFlows,
  setFlowEnabled,
  type FlowQuery,
  type FlowRow,
  type NamespacesDb,
  type RevisionRow,
} from './flows.js';
export {
  boundedPatch,
  diffVersions,
  isText,
  MAX_DIFF_BYTES,
  loadManifest,
  readFile,
  resolveVersion,
  snapshotHasFile,
  type FileDiff,
  type FileRead,
  type ResolvedVersion,
} from './read.js';
export { ensureBundle, bundleKey, SnapshotNotFoundError, type BundleInfo } from './bundle.js';
export { parseNamespaceFile, validateNamespaceFile, type NamespaceFile } from './namespace-file.js';
export {
  createWebhookKey,
  deleteOrphanWebhookKeys,
  findWebhookTargetByHash,
  replaceWebhookKey,
  webhookKeysOfFlow,
  webhookTriggerExists,
  type WebhookKeyRow,
  type WebhookKeyWrite,
} from './webhook-keys.js';
export { changedPaths, versionChanges, MAX_CHANGED_PATHS, type ChangedPath, type VersionChanges } from './version-changes.js';
export { existingFileHashes, deleteUnreferencedFileRows, claimAbsentFileHashes, waitersOnOwnTransaction } from './sql/file-objects.js';
