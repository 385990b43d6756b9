// What a management view shows when the thing it shows could not be loaded: the service's words
// and the way back.
export function LoadFailure({ title, what, message }: { title: string; what: string; message: string }) {
  return (
    <section>
      <h1>{title}</h1>
      <p role="alert" class="error">
        The {what} could not be loaded: {message}
      </p>
      <p>
        <a href="/ui/">Back to your organizations</a>
      </p>
    </section>
  );
}
