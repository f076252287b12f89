// Schemas of the role binding operations (operations/role-bindings.ts, issue
// #34): a role on a namespace and its children for a user or an IdP group.
import { Type } from '@sinclair/typebox';
import { component, DateTime, Nullable } from './helpers.js';
import { BindingRoleSchema } from './entities.js';
import { NamespaceName } from './requests.js';

const closed = { additionalProperties: false } as const;

export const RoleBinding = component(
  'RoleBinding',
  Type.Object(
    {
      id: Type.String(),
      namespace: Type.String({ description: 'The binding covers this namespace and its children' }),
      user_id: Nullable(Type.String({ description: 'The bound user; null for a group binding' })),
      user_email: Nullable(Type.String({ description: "The bound user's email; null for a group binding" })),
      group: Nullable(Type.String({ description: 'The bound IdP group (as in the groups claim); null for a user binding' })),
      role: BindingRoleSchema,
      created_by: Type.String({ description: 'Email of the admin who created it' }),
      created_at: DateTime(),
    },
    closed,
  ),
);

export const RoleBindingList = component('RoleBindingList', Type.Object({ items: Type.Array(RoleBinding) }, closed));

export const CreateRoleBindingRequest = component(
  'CreateRoleBindingRequest',
  Type.Object(
    {
      namespace: NamespaceName,
      user: Type.Optional(Type.String({ minLength: 1, maxLength: 320, description: 'A user id or email; exactly one of `user` and `group`' })),
      group: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'An IdP group name; exactly one of `user` and `group`' })),
      role: BindingRoleSchema,
    },
    closed,
  ),
);
