// A user's role in an organization, as a word (not only a colour).
import type { Role } from '../management';

export function RoleBadge({ role }: { role: Role }) {
  return <span class={`role-badge role-${role}`}>{role === 'owner' ? 'Owner' : 'Member'}</span>;
}
