// A key's secret, shown once: right after the key is created or its secret rotated. It lives only
// in this component's state (never in storage or the URL), so leaving or reloading the page
// forgets it; the service keeps only a hash. With it, the environment that points any
// OpenTelemetry SDK exporter at this service with the key.
import { useState } from 'preact/hooks';
import { exporterEnvironment, exporterEnvironmentScript, type AssignablePermission } from '../management';
import { formatIsoText, type TimeZone } from '../time-format';
import { useTimeZone } from '../use-time-zone';

export interface RevealedSecret {
  name: string;
  apiKey: string;
  apiSecret: string;
  permissions: AssignablePermission[];
  /** Why it is shown: a new key, or a rotated secret (the old one no longer works, or until its grace ends). */
  reason: 'created' | 'rotated';
  /** When the key expires (RFC 3339); null or absent: never. */
  expiresAt?: string | null;
  /** After a rotation with a grace period: until when the old secret still works. */
  previousSecretWorksUntil?: string | null;
}

function rotationNote(secret: RevealedSecret, zone: TimeZone): string {
  if (secret.reason !== 'rotated') return '';
  if (!secret.previousSecretWorksUntil) return ' The old secret no longer works.';
  return ` The old secret keeps working until ${formatIsoText(secret.previousSecretWorksUntil, zone)}: move every exporter to the new one before then.`;
}

function CopyButton({ text, label, what }: { text: string; label: string; what: string }) {
  const [result, setResult] = useState('');
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setResult(`${what} copied`),
      () => setResult(`The browser refused the clipboard: select the ${what.toLowerCase()} and copy it by hand`),
    );
  return (
    <>
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="copy-result">
        {result}
      </span>
    </>
  );
}

export function KeySecretPanel({ secret, onDismiss }: { secret: RevealedSecret; onDismiss(): void }) {
  const zone = useTimeZone();
  const script = exporterEnvironmentScript(exporterEnvironment(location.origin, secret.apiKey, secret.apiSecret));
  return (
    <section class="secret-panel" aria-labelledby="secret-heading" data-testid="key-secret-panel">
      <h3 id="secret-heading">{secret.reason === 'created' ? `API key “${secret.name}” created` : `New secret of “${secret.name}”`}</h3>
      <p>
        <strong>Copy the secret now: it is shown only this once.</strong> The service keeps only a hash of it; once you leave or reload this
        page, rotate the secret to get a new one.{rotationNote(secret, zone)}
      </p>
      <dl class="secret-values">
        <dt>API key</dt>
        <dd>
          <code data-testid="api-key">{secret.apiKey}</code>
        </dd>
        <dt>Secret</dt>
        <dd>
          <code data-testid="api-secret">{secret.apiSecret}</code> <CopyButton text={secret.apiSecret} label="Copy secret" what="Secret" />
        </dd>
      </dl>
      <h4>Exporter settings</h4>
      <p>
        Any OpenTelemetry SDK exports to this service with these environment variables (the key and secret as Basic credentials, URL-encoded
        as the SDKs read them;{' '}
        {secret.expiresAt ? `they stop when the key expires, ${formatIsoText(secret.expiresAt, zone)}, ` : 'they do not expire, '}
        rotating the secret or deleting the key stops them).
        {secret.permissions.includes('write:traces') ? '' : ' This key lacks write:traces: add it for the exporter to be accepted.'}
      </p>
      <pre data-testid="exporter-environment" tabIndex={0} aria-label="Exporter environment variables">
        {script}
      </pre>
      <div class="form-actions">
        <CopyButton text={script} label="Copy exporter settings" what="Exporter settings" />
        <button type="button" onClick={onDismiss}>
          I have saved the secret, hide it
        </button>
      </div>
    </section>
  );
}
