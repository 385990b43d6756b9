// Answers what Node's HTTP parser refuses before any request exists (headers over the size it
// reads, a malformed request): in the documents' error shape, `{"detail": ...}`, and with the
// 431 every operation declares, where Node's own answer has no body. The connection is closed:
// what follows on it cannot be trusted to start a request.
import { STATUS_CODES, maxHeaderSize } from 'node:http';
import type { Socket } from 'node:net';

type ParserError = Error & { code?: string };

function statusOf(error: ParserError): [number, string] {
  if (error.code === 'HPE_HEADER_OVERFLOW') return [431, `request headers exceed ${maxHeaderSize} bytes`];
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'the request was not received in time'];
  return [400, 'malformed HTTP request'];
}

export function answerClientError(error: ParserError, socket: Socket): void {
  // A response of an earlier request on the connection already under way cannot be followed by another.
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return;
  }
  const [status, detail] = statusOf(error);
  const body = JSON.stringify({ detail });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
