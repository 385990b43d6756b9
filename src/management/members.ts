// Member operations: listMembers, addMember, updateMember, removeMember.
import * as members from '../accounts/members.js';
import type { OperationHandler } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { listMembers as listMemberRows, MEMBER_ORDER, type MemberRecord } from '../storage/accounts/memberships.js';
import { toIsoRequired } from '../storage/time.js';
import { nextCursor, pageRequest, pagination } from './request.js';

type Schemas = components['schemas'];

function memberBody(member: MemberRecord): Schemas['Member'] {
  return {
    user_id: member.userId,
    email: member.email,
    name: member.name,
    role: member.role,
    status: member.status,
    created_at: toIsoRequired(member.createdAt),
  };
}

export function listMembers({ knex }: ServiceDeps): OperationHandler<operations['listMembers']> {
  return async (request) => {
    const page = pageRequest(request, MEMBER_ORDER, [request.params.org_id]);
    const found = await listMemberRows(knex, request.params.org_id, page);
    const body: Schemas['MemberList'] = {
      data: found.items.map(memberBody),
      pagination: pagination(page, found.total),
      next_cursor: nextCursor(page.position, found.nextKey),
    };
    return { status: 200, body };
  };
}

export function addMember({ knex }: ServiceDeps): OperationHandler<operations['addMember']> {
  return async (request) => {
    const { email, role } = request.body;
    const member = await members.addMember(knex, request.params.org_id, email, role ?? 'member');
    return { status: 201, body: memberBody(member) };
  };
}

export function updateMember({ knex }: ServiceDeps): OperationHandler<operations['updateMember']> {
  return async (request) => {
    const { role } = request.body;
    const { org_id: organizationId, user_id: userId } = request.params;
    const member = await members.changeMemberRole(knex, organizationId, userId, role);
    return { status: 200, body: memberBody(member) };
  };
}

export function removeMember({ knex }: ServiceDeps): OperationHandler<operations['removeMember']> {
  return async (request) => {
    const { org_id: organizationId, user_id: userId } = request.params;
    const removed = await members.removeMember(knex, organizationId, userId);
    const body: Schemas['MemberDeleted'] = {
      user_id: removed.userId,
      message: 'Member removed',
      deleted_at: toIsoRequired(removed.deletedAt),
    };
    return { status: 200, body };
  };
}
