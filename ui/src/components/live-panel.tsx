// The live view's stream and list, loaded by a dynamic import() from ui/src/views/live.tsx so the
// first view stays small: the application's newly received spans as they arrive
// (GET /traces/live/stream through ui/src/live-stream.ts), newest first, with pause and resume
// (ui/src/live-list.ts: the stream stays open while paused; what arrives is held and counted).
// Unmounting (leaving the view, choosing another application) aborts the stream.
import { useEffect, useState } from 'preact/hooks';
import { EMPTY_LIVE_LIST, LIVE_ROW_LIMIT, pause, receive, resume, type LiveList } from '../live-list';
import { runLiveStream, type StreamStatus } from '../live-stream';
import { formatCount } from '../metrics-format';
import { currentToken, tokenRefused } from '../session';
import { LiveSpansTable } from './live-spans-table';

function statusText(status: StreamStatus, list: LiveList): string {
  const connection = {
    connecting: 'Connecting…',
    connected: 'Connected',
    reconnecting:
      status.state === 'reconnecting'
        ? `Reconnecting (${status.reason}), next attempt in ${Math.round(status.retryInMs / 100) / 10} s…`
        : '',
    refused: status.state === 'refused' ? `Stopped: ${status.message}` : '',
    closed: 'Closed',
  }[status.state];
  if (!list.paused) return connection;
  const held = list.heldCount === 1 ? '1 new span' : `${formatCount(list.heldCount)} new spans`;
  return `Paused: ${held} arrived while paused (${connection.toLowerCase()})`;
}

export function LivePanel({ appId }: { appId: string }) {
  const [list, setList] = useState<LiveList>(EMPTY_LIVE_LIST);
  const [status, setStatus] = useState<StreamStatus>({ state: 'connecting' });
  useEffect(() => {
    const controller = new AbortController();
    void runLiveStream({
      appId,
      token: currentToken,
      signal: controller.signal,
      onEvents: (events) => setList((current) => receive(current, events)),
      onStatus: (next) => {
        if (next.state === 'refused' && next.status === 401) tokenRefused();
        setStatus(next);
      },
    });
    return () => controller.abort();
  }, [appId]);

  return (
    <>
      <div class="live-controls">
        {list.paused ? (
          <button type="button" class="primary" onClick={() => setList(resume)}>
            Resume
          </button>
        ) : (
          <button type="button" onClick={() => setList(pause)}>
            Pause
          </button>
        )}
        <p
          role="status"
          class={`live-status live-${list.paused ? 'paused' : status.state}`}
          data-testid="live-status"
          data-state={status.state}
          data-paused={list.paused ? 'true' : 'false'}
        >
          {statusText(status, list)}
        </p>
      </div>
      <p class="muted">
        {list.rows.length === 0
          ? 'No span yet: new spans appear here as the service receives them.'
          : `${list.rows.length === 1 ? '1 span' : `${formatCount(list.rows.length)} spans`} shown (at most ${formatCount(LIVE_ROW_LIMIT)}, newest first).`}
      </p>
      {list.rows.length > 0 && <LiveSpansTable events={list.rows} appId={appId} />}
    </>
  );
}
