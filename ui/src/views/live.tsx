// Placeholder until this view is built (issue 14).
export function Live() {
  return (
    <section>
      <h1>Live</h1>
      <p>Not built yet.</p>
    </section>
  );
}
