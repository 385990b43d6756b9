// The service's message for a change that failed, announced to screen readers as it appears.
export function ActionError({ error, context }: { error?: string; context?: string }) {
  if (!error) return null;
  return (
    <p role="alert" class="error action-error">
      {context ? `${context}: ` : ''}
      {error}
    </p>
  );
}
