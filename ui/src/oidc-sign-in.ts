// Sign-in with the OpenID Connect provider that /ui/config.json names (docs/dashboard.md, "With an
// OpenID Connect provider"): the authorization code flow with PKCE, run in this page by
// oauth4webapi (discovery, verifier and S256 challenge, state, nonce, response checks, code
// exchange). The provider answers in the fragment of /ui/sign-in/callback, which the browser never
// sends to the service; the access token is only ever kept in this tab's session (ui/src/session.ts:
// a provider sign-in opens no session of the service), never in a URL. Sign-out
// ends the provider's session too where it advertises an end_session_endpoint (RP-Initiated Logout).
// The same flow with prompt=none signs a new tab in without a click while the provider's session
// lives (ui/src/silent-sign-in.ts decides when); the provider's refusal then shows the sign-in view.
// oauth4webapi is loaded when a sign-in with the provider starts or returns, so the first view
// stays small for everyone else.
import type * as OAuth from 'oauth4webapi';
import { problemMessage } from './api';
import { safeReturnPath } from './return-path';
import { startProviderSession, type ProviderSignOut } from './session';
import { clearSilentAttempts, rememberProvider, silentAttemptFailed, silentAttemptStarted } from './silent-sign-in';

/** The provider as /ui/config.json describes it (src/dashboard/settings.ts). */
export interface OidcProvider {
  issuer: string;
  client_id: string;
  scope: string;
  audience: string;
  name: string;
}

export const SIGN_IN_PATH = '/ui/sign-in';
export const CALLBACK_PATH = '/ui/sign-in/callback';

/** What the round trip to the provider needs back, in this tab's sessionStorage until it returns. */
interface PendingSignIn {
  issuer: string;
  codeVerifier: string;
  state: string;
  nonce: string;
  /** The dashboard path the user was on, opened again once signed in. */
  returnTo: string;
  /** Asked with prompt=none, without the user's click. */
  silent?: boolean;
}

const PENDING_KEY = 'spanledger.oidc-sign-in';
/** When neither the token response nor the token says how long it lasts. */
const FALLBACK_LIFETIME_SECONDS = 3600;

/** A failure worded for the person signing in. */
export class SignInError extends Error {
  /** The failed answer was to a silent sign-in: the page to show the sign-in view at. */
  silentReturnTo?: string;
  /** The provider's error code (login_required, access_denied, …), when it answered one. */
  code?: string;
}

/**
 * What a provider answers to prompt=none when it would have to ask the user (OpenID Connect Core
 * 1.0 §3.1.2.6): the plain sign-in view, not an error.
 */
const NEEDS_THE_USER = new Set(['login_required', 'interaction_required', 'consent_required', 'account_selection_required']);

/** Whether the failure is worth showing: a silent sign-in the provider could not complete without the user is not. */
export function worthShowing(error: SignInError): boolean {
  return !(error.silentReturnTo !== undefined && error.code !== undefined && NEEDS_THE_USER.has(error.code));
}

function redirectUri(): string {
  return `${location.origin}${CALLBACK_PATH}`;
}

type OAuthLibrary = typeof OAuth;

const loadOAuth = (): Promise<OAuthLibrary> => import('oauth4webapi');

function isLoopbackHttp(url: URL): boolean {
  const loopback = url.hostname === 'localhost' || url.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(url.hostname);
  return url.protocol === 'http:' && loopback;
}

/** oauth4webapi wants https; a provider on this machine (development, tests) may use http. */
function requestOptions(oauth: OAuthLibrary, issuer: URL): { [OAuth.allowInsecureRequests]?: boolean } {
  return { [oauth.allowInsecureRequests]: isLoopbackHttp(issuer) };
}

/** RFC 8707: names the service as the token's audience, where the audience is a URI as it requires. */
function resourceParameter(provider: OidcProvider): Record<string, string> {
  return URL.canParse(provider.audience) ? { resource: provider.audience } : {};
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function discover(oauth: OAuthLibrary, provider: OidcProvider): Promise<OAuth.AuthorizationServer> {
  const issuer = new URL(provider.issuer);
  let response: Response;
  try {
    response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...requestOptions(oauth, issuer) });
  } catch (error) {
    throw new SignInError(`${provider.name} could not be reached (${reasonOf(error)}): try again later, or sign in with a link`);
  }
  try {
    return await oauth.processDiscoveryResponse(issuer, response);
  } catch (error) {
    throw new SignInError(`${provider.name} did not describe itself as expected (${reasonOf(error)})`);
  }
}

/**
 * Sends the browser to the provider; it comes back to CALLBACK_PATH. `silent`: with prompt=none, as a
 * top-level round trip (the provider's cookies are first-party then, which a hidden frame's are not).
 */
export async function startOidcSignIn(provider: OidcProvider, returnTo: string, { silent = false } = {}): Promise<void> {
  if (silent) silentAttemptStarted();
  try {
    await redirectToProvider(provider, returnTo, silent);
  } catch (error) {
    if (silent) silentAttemptFailed();
    throw error;
  }
}

async function redirectToProvider(provider: OidcProvider, returnTo: string, silent: boolean): Promise<void> {
  let oauth: OAuthLibrary;
  try {
    oauth = await loadOAuth();
  } catch (error) {
    throw new SignInError(`The sign-in code could not be loaded (${reasonOf(error)}): reload the page`);
  }
  const as = await discover(oauth, provider);
  if (!as.authorization_endpoint) throw new SignInError(`${provider.name} names no authorization endpoint`);
  const pending: PendingSignIn = {
    issuer: provider.issuer,
    codeVerifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    returnTo: safeReturnPath(returnTo),
    ...(silent ? { silent } : {}),
  };
  const url = new URL(as.authorization_endpoint);
  const parameters: Record<string, string> = {
    client_id: provider.client_id,
    redirect_uri: redirectUri(),
    response_type: 'code',
    // The code comes back in the fragment, so no request to the service ever carries it.
    response_mode: 'fragment',
    scope: provider.scope,
    state: pending.state,
    nonce: pending.nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.codeVerifier),
    code_challenge_method: 'S256',
    ...resourceParameter(provider),
    ...(silent ? { prompt: 'none' } : {}),
  };
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  location.assign(url.href);
}

/**
 * The provider's answer in this page's URL (the fragment, or the query of a provider that ignores
 * response_mode), removed from the address bar and the history entry at once.
 */
export function takeCallbackParameters(): URLSearchParams {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const parameters = fragment.size > 0 ? fragment : new URLSearchParams(location.search);
  history.replaceState(history.state, '', location.pathname);
  return parameters;
}

function takePending(): PendingSignIn | undefined {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as PendingSignIn;
  } catch {
    return undefined;
  }
}

/** Words for what oauth4webapi refused: the provider's own error, or the check that failed. */
function describeFailure(oauth: OAuthLibrary | undefined, provider: OidcProvider, error: unknown): SignInError {
  if (error instanceof SignInError) return error;
  if (oauth && (error instanceof oauth.AuthorizationResponseError || error instanceof oauth.ResponseBodyError)) {
    const detail = error.error_description ? `${error.error}: ${error.error_description}` : error.error;
    const what = error.error === 'access_denied' ? 'Access was denied' : 'The sign-in was refused';
    const refused = new SignInError(`${what} by ${provider.name} (${detail})`);
    refused.code = error.error;
    return refused;
  }
  return new SignInError(`Signing in with ${provider.name} failed: ${reasonOf(error)}`);
}

/** The token's lifetime: the token response's expires_in, else the JWT's exp, else an hour. */
function lifetimeSeconds(result: OAuth.TokenEndpointResponse): number {
  if (typeof result.expires_in === 'number' && result.expires_in > 0) return result.expires_in;
  try {
    const payload = JSON.parse(atob((result.access_token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    if (typeof payload.exp === 'number') return Math.max(0, payload.exp - Math.floor(Date.now() / 1000));
  } catch {
    // An opaque token: the fallback below.
  }
  return FALLBACK_LIFETIME_SECONDS;
}

/**
 * What sign-out needs to end the provider's session, when the provider advertises an
 * end_session_endpoint (https, or http on this machine as for the issuer); without one, sign-out
 * stays in this tab and the ID token is not kept.
 */
function providerSignOutOf(
  as: OAuth.AuthorizationServer,
  provider: OidcProvider,
  idToken: string | undefined,
): ProviderSignOut | undefined {
  if (!idToken || typeof as.end_session_endpoint !== 'string' || !URL.canParse(as.end_session_endpoint)) return undefined;
  const endpoint = new URL(as.end_session_endpoint);
  if (endpoint.protocol !== 'https:' && !isLoopbackHttp(endpoint)) return undefined;
  return { endSessionEndpoint: endpoint.href, idToken, clientId: provider.client_id };
}

/**
 * RP-Initiated Logout 1.0 §2: the provider's end_session_endpoint with the sign-in's ID token as
 * id_token_hint, the client, and the sign-in view to come back to (a post_logout_redirect_uri that
 * must be registered at the provider beside the callback).
 */
export function providerSignOutUrl(signOut: ProviderSignOut): string {
  const url = new URL(signOut.endSessionEndpoint);
  url.searchParams.set('id_token_hint', signOut.idToken);
  url.searchParams.set('client_id', signOut.clientId);
  url.searchParams.set('post_logout_redirect_uri', `${location.origin}${SIGN_IN_PATH}`);
  return url.href;
}

/** Asks the service whether it accepts the token, so a refusal is explained here rather than after. */
async function checkWithService(provider: OidcProvider, accessToken: string): Promise<void> {
  const response = await fetch('/users/me', { headers: { Authorization: `Bearer ${accessToken}` } });
  if (response.ok) return;
  const body: unknown = await response.json().catch(() => null);
  throw new SignInError(`The service refused the access token from ${provider.name}: ${problemMessage(response.status, body)}`);
}

/**
 * Completes the round trip: checks the answer against this tab's pending sign-in (state), exchanges
 * the code with its verifier, checks the ID token (nonce), and starts the session with the access
 * token. Answers the path to open next.
 */
export async function completeOidcSignIn(provider: OidcProvider, parameters: URLSearchParams): Promise<string> {
  const pending = takePending();
  if (!pending || pending.issuer !== provider.issuer) {
    throw new SignInError(`No sign-in with ${provider.name} was started in this tab: start again with the button below`);
  }
  let oauth: OAuthLibrary | undefined;
  try {
    oauth = await loadOAuth();
    const as = await discover(oauth, provider);
    const client: OAuth.Client = { client_id: provider.client_id };
    const callback = oauth.validateAuthResponse(as, client, parameters, pending.state);
    const issuer = new URL(provider.issuer);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), callback, redirectUri(), pending.codeVerifier, {
      additionalParameters: resourceParameter(provider),
      ...requestOptions(oauth, issuer),
    });
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: pending.nonce,
      requireIdToken: true,
    });
    if (result.token_type.toLowerCase() !== 'bearer')
      throw new SignInError(`${provider.name} issued a ${result.token_type} token, not a Bearer token`);
    // The access token, not the ID token: it is the one issued for the service (aud = OIDC_AUDIENCE,
    // with the user's permissions); the ID token is for this client only and is kept for sign-out.
    await checkWithService(provider, result.access_token);
    startProviderSession(result.access_token, lifetimeSeconds(result), providerSignOutOf(as, provider, result.id_token));
    rememberProvider(provider);
    if (!pending.silent) clearSilentAttempts();
    return pending.returnTo;
  } catch (error) {
    const failure = describeFailure(oauth, provider, error);
    if (pending.silent) {
      silentAttemptFailed();
      failure.silentReturnTo = pending.returnTo;
    }
    throw failure;
  }
}
