// Who is calling: a dashboard user or an API key, with the permissions they hold now.
import type { IndexedAttributesState } from '../storage/accounts/indexed-attributes.js';

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
  /** The key's application's indexed attribute slots, as authentication read them, and when. */
  indexedAttributes: IndexedAttributesState;
  readAt: number;
  /** The key's application's daily span quota (null: none), read with it. */
  dailySpanQuota: number | null;
}

export type Principal = UserPrincipal | ApiKeyPrincipal;

/** The organization (and application) the request touches, as the authorization step resolved it. */
export interface RequestScope {
  organizationId: string;
  applicationId?: string;
  /** The caller's role there; undefined for API keys. */
  role?: 'member' | 'owner';
  /** The application's indexed attribute slots, read with it, and when (engine and ingestion use them). */
  indexedAttributes?: IndexedAttributesState;
  readAt?: number;
  /** The application's daily span quota (null: none), read with it (ingestion applies it). */
  dailySpanQuota?: number | null;
}
