// A destructive action asked twice, in the page (never window.confirm): the first press shows
// the question with a confirm and a cancel button, and moves the focus to cancel.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ConfirmButtonProps {
  /** The button's text, e.g. "Delete". */
  label: string;
  /** Its accessible name when the text alone would be ambiguous in a list, e.g. "Delete key CI". */
  accessibleLabel?: string;
  /** What will happen, asked before it does. */
  question: string;
  /** The confirming button's text, e.g. "Yes, delete". */
  confirmLabel: string;
  busy?: boolean;
  onConfirm(): unknown;
  /** Choices asked with the question (a rotation's grace period), shown before the confirming button. */
  children?: ComponentChildren;
}

export function ConfirmButton({ label, accessibleLabel, question, confirmLabel, busy, onConfirm, children }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger" aria-label={accessibleLabel} disabled={busy} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm" role="group" aria-label={accessibleLabel ?? label}>
      <span class="confirm-question">{question}</span>
      {children}
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" ref={cancel} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}
