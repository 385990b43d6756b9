// Member operations: listMembers, addMember, updateMember, removeMember.
import type { Context as OpenApiContext } from 'openapi-backend';
import * as members from '../accounts/members.js';
import type { Reply } from '../operations/handler.js';
import type { ServiceDeps } from '../operations/service-deps.js';
import type { components, operations } from '../generated/management.js';
import { listMembers as listMemberRows, type MemberRecord } from '../storage/accounts/memberships.js';
import { toIsoRequired } from '../storage/time.js';
import { pageRequest, pagination } from './request.js';

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

function pathOf(request: OpenApiContext): { org_id: string; user_id: string } {
  return request.request.params as { org_id: string; user_id: string };
}

export function listMembers({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const page = pageRequest(request.request.query as operations['listMembers']['parameters']['query']);
    const found = await listMemberRows(knex, pathOf(request).org_id, page.window);
    const body: Schemas['MemberList'] = { data: found.items.map(memberBody), pagination: pagination(page, found.total) };
    return { status: 200, body };
  };
}

export function addMember({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const { email, role } = request.request.requestBody as Schemas['MemberCreate'];
    const member = await members.addMember(knex, pathOf(request).org_id, email, role ?? 'member');
    return { status: 201, body: memberBody(member) };
  };
}

export function updateMember({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const { role } = request.request.requestBody as Schemas['MemberUpdate'];
    const { org_id: organizationId, user_id: userId } = pathOf(request);
    const member = await members.changeMemberRole(knex, organizationId, userId, role);
    return { status: 200, body: memberBody(member) };
  };
}

export function removeMember({ knex }: ServiceDeps) {
  return async (request: OpenApiContext): Promise<Reply> => {
    const { org_id: organizationId, user_id: userId } = pathOf(request);
    const removed = await members.removeMember(knex, organizationId, userId);
    const body: Schemas['MemberDeleted'] = { user_id: removed.userId, message: 'Member removed', deleted_at: toIsoRequired(removed.deletedAt) };
    return { status: 200, body };
  };
}
