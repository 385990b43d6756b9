// Placeholder until this view is built (issue 14).
export function Traces() {
  return (
    <section>
      <h1>Traces</h1>
      <p>Not built yet.</p>
    </section>
  );
}
