import type { Operation } from '../operation.js';
import { Page } from '../schemas/helpers.js';
import { GitSyncRun } from '../schemas/entities.js';
import { GitSource } from '../schemas/resources.js';
import { GitSourceRequest, ListQuery, OpaqueId, Params } from '../schemas/requests.js';
import { OPERATION_CURSORS } from '../schemas/cursors.js';
import { ADMIN, VIEWER, accepted, created, err, noContent, ok } from './shared.js';

const SourceParams = Params({ sourceId: OpaqueId });
const notFound = err(404, 'No such git source');

export const gitOperations: Operation[] = [
  {
    operationId: 'listGitSources',
    method: 'get',
    path: '/api/v1/git-sources',
    tag: 'git',
    summary: 'Git sources',
    auth: VIEWER,
    request: { query: ListQuery, cursor: OPERATION_CURSORS.listGitSources },
    responses: ok(Page(GitSource)),
  },
  {
    operationId: 'createGitSource',
    method: 'post',
    path: '/api/v1/git-sources',
    tag: 'git',
    summary: 'Add a git source and its namespace mappings',
    auth: ADMIN,
    request: { body: GitSourceRequest },
    description: 'Missing mapped namespaces are created; the first sync is queued. Credentials are named (global secret keys), never sent.',
    responses: { ...created(GitSource), ...err(409, 'The name is taken, or a mapped namespace is mapped by another source') },
  },
  {
    operationId: 'getGitSource',
    method: 'get',
    path: '/api/v1/git-sources/{sourceId}',
    tag: 'git',
    summary: 'A git source',
    auth: VIEWER,
    request: { params: SourceParams },
    responses: { ...ok(GitSource), ...notFound },
  },
  {
    operationId: 'updateGitSource',
    method: 'put',
    path: '/api/v1/git-sources/{sourceId}',
    tag: 'git',
    summary: 'Replace the settings of a git source',
    auth: ADMIN,
    request: { params: SourceParams, body: GitSourceRequest },
    responses: { ...ok(GitSource), ...notFound, ...err(409, 'The name is taken, or a mapped namespace is mapped by another source') },
  },
  {
    operationId: 'deleteGitSource',
    method: 'delete',
    path: '/api/v1/git-sources/{sourceId}',
    tag: 'git',
    summary: 'Remove a git source (its namespaces become writable)',
    auth: ADMIN,
    request: { params: SourceParams },
    responses: { ...noContent('Deleted'), ...notFound },
  },
  {
    operationId: 'listGitSyncRuns',
    method: 'get',
    path: '/api/v1/git-sources/{sourceId}/runs',
    tag: 'git',
    summary: 'Sync runs of a git source, newest first',
    auth: VIEWER,
    request: { params: SourceParams, query: ListQuery, cursor: OPERATION_CURSORS.listGitSyncRuns },
    responses: { ...ok(Page(GitSyncRun)), ...notFound },
  },
  {
    operationId: 'syncGitSource',
    method: 'post',
    path: '/api/v1/git-sources/{sourceId}/sync',
    tag: 'git',
    summary: 'Request a sync now',
    description: 'Queues a sync run (a run already queued for the source is returned instead); a sync worker runs it.',
    auth: ADMIN,
    request: { params: SourceParams },
    responses: { ...accepted(GitSyncRun, 'Sync requested'), ...notFound },
  },
];
