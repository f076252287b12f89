// Role bindings: a user or an IdP group gets a role on a
// namespace and its children, raising its global role there
// (docs/operating/roles.md). Beyond the spec's operation index
// (EXTENSION_OPERATION_IDS); admin only, every change audited.
import { Type } from '@sinclair/typebox';
import type { Operation } from '../operation.js';
import { CreateRoleBindingRequest, RoleBinding, RoleBindingList } from '../schemas/role-bindings.js';
import { NamespaceName, OpaqueId, Params } from '../schemas/requests.js';
import { ADMIN, created, err, noContent, ok } from './shared.js';

export const roleBindingOperations: Operation[] = [
  {
    operationId: 'listRoleBindings',
    method: 'get',
    path: '/api/v1/role-bindings',
    tag: 'users',
    summary: 'Role bindings, by namespace, optionally of one namespace, user or group',
    auth: ADMIN,
    globalRoleOnly: true,
    request: {
      query: Type.Object({
        namespace: Type.Optional(NamespaceName),
        user: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'A user id or email' })),
        group: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      }),
    },
    responses: { ...ok(RoleBindingList) },
  },
  {
    operationId: 'createRoleBinding',
    method: 'post',
    path: '/api/v1/role-bindings',
    tag: 'users',
    summary: 'Give a user or an IdP group a role on a namespace and its children',
    auth: ADMIN,
    globalRoleOnly: true,
    request: { body: CreateRoleBindingRequest },
    responses: {
      ...created(RoleBinding),
      ...err(404, 'No such user'),
      ...err(409, 'The user or group already has a binding on this namespace'),
    },
  },
  {
    operationId: 'deleteRoleBinding',
    method: 'delete',
    path: '/api/v1/role-bindings/{bindingId}',
    tag: 'users',
    summary: 'Delete a role binding',
    auth: ADMIN,
    globalRoleOnly: true,
    request: { params: Params({ bindingId: OpaqueId }) },
    responses: { ...noContent(), ...err(404, 'No such role binding') },
  },
];
