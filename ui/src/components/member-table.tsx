// The organization's members. Everyone in it sees the list; only an owner gets the controls to add
// a member by e-mail, change a role or remove a member (addMember, updateMember and removeMember
// are `x-organization-role: owner`), so a member is never offered what the service would refuse.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { call, management } from '../api';
import { listMembers, ROLES, type Member, type Role } from '../management';
import { useAsync } from '../use-async';
import { ActionError } from './action-error';
import { ConfirmButton } from './confirm-button';
import { RoleBadge } from './role-badge';
import { useAction } from './use-action';

function memberLabel(member: Member): string {
  return member.name ?? member.email ?? member.user_id;
}

function MemberAddForm({ organizationId, onAdded }: { organizationId: string; onAdded(): void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (
      await action.run(() =>
        call(
          management.POST('/organizations/{org_id}/members', {
            params: { path: { org_id: organizationId } },
            body: { email: email.trim(), role },
          }),
        ),
      )
    ) {
      setEmail('');
      onAdded();
    }
  };
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Add a member">
      <label>
        E-mail
        <input
          type="email"
          required
          maxLength={255}
          value={email}
          onInput={(event) => setEmail((event.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        Role
        <select value={role} onChange={(event) => setRole((event.target as HTMLSelectElement).value as Role)}>
          {ROLES.map((value) => (
            <option key={value} value={value}>
              {value === 'owner' ? 'Owner' : 'Member'}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" class="primary" disabled={action.busy}>
        Add member
      </button>
      <ActionError error={action.error} context="The member was not added" />
    </form>
  );
}

function MemberRow({
  organizationId,
  member,
  mayManage,
  isYou,
  onChanged,
}: {
  organizationId: string;
  member: Member;
  mayManage: boolean;
  isYou: boolean;
  onChanged(): void;
}) {
  const { route } = useLocation();
  const action = useAction();
  const label = memberLabel(member);
  const remove = async () => {
    if (!(await action.run(() => call(management.DELETE('/organizations/{org_id}/members/{user_id}', { params: { path } }))))) return;
    // Whoever removed themselves can no longer read the organization.
    if (isYou) route('/ui/');
    else onChanged();
  };
  const path = { org_id: organizationId, user_id: member.user_id };
  return (
    <tr>
      <td>
        {member.name ?? <span class="muted">{member.status === 'invited' ? 'not signed in yet' : 'unknown'}</span>}
        {isYou && <span class="muted"> (you)</span>}
      </td>
      <td>{member.email ?? <span class="muted">none</span>}</td>
      <td>
        {mayManage ? (
          <select
            aria-label={`Role of ${label}`}
            value={member.role}
            disabled={action.busy}
            onChange={(event) => {
              const role = (event.target as HTMLSelectElement).value as Role;
              void action
                .run(() => call(management.PATCH('/organizations/{org_id}/members/{user_id}', { params: { path }, body: { role } })))
                .then(onChanged);
            }}
          >
            {ROLES.map((value) => (
              <option key={value} value={value}>
                {value === 'owner' ? 'Owner' : 'Member'}
              </option>
            ))}
          </select>
        ) : (
          <RoleBadge role={member.role} />
        )}
      </td>
      <td>{member.status === 'invited' ? 'Invited (has not signed in yet)' : 'Active'}</td>
      {mayManage && (
        <td>
          <ConfirmButton
            label="Remove"
            accessibleLabel={`Remove ${label}`}
            question={isYou ? 'Remove yourself? You lose access to this organization.' : `Remove ${label} from the organization?`}
            confirmLabel="Yes, remove"
            busy={action.busy}
            onConfirm={remove}
          />
          <ActionError error={action.error} />
        </td>
      )}
    </tr>
  );
}

export function MemberTable({
  organizationId,
  mayManage,
  currentUserId,
}: {
  organizationId: string;
  mayManage: boolean;
  currentUserId?: string;
}) {
  const members = useAsync(() => listMembers(organizationId), [organizationId]);
  return (
    <>
      {members.error && (
        <p role="alert" class="error">
          Members could not be loaded: {members.error.message}
        </p>
      )}
      {!members.data && !members.error && <p aria-busy="true">Loading members…</p>}
      {members.data && (
        <table class="management-table" data-testid="members">
          <caption class="visually-hidden">Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              {mayManage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <MemberRow
                key={member.user_id}
                organizationId={organizationId}
                member={member}
                mayManage={mayManage}
                isYou={member.user_id === currentUserId}
                onChanged={members.reload}
              />
            ))}
          </tbody>
        </table>
      )}
      {mayManage ? (
        <MemberAddForm organizationId={organizationId} onAdded={members.reload} />
      ) : (
        <p class="muted">Owners add and remove members and change their roles.</p>
      )}
    </>
  );
}
