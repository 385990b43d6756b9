// Who is calling: a dashboard user or an API key, with the permissions they hold now.

export interface UserPrincipal {
  kind: 'user';
  userId: string;
  email: string | null;
  name: string | null;
  permissions: ReadonlySet<string>;
}

export interface ApiKeyPrincipal {
  kind: 'api_key';
  apiKey: string;
  applicationId: string;
  organizationId: string;
  permissions: ReadonlySet<string>;
}

export type Principal = UserPrincipal | ApiKeyPrincipal;

/** The organization (and application) the request touches, as the authorization step resolved it. */
export interface RequestScope {
  organizationId: string;
  applicationId?: string;
  /** The caller's role there; undefined for API keys. */
  role?: 'member' | 'owner';
}
