// Requests Node's HTTP parser rejects before any listener sees them (oversized headers
// or URLs, bad syntax, too slow) still get a JSON answer, framed here by hand: there
// is no request, nor response object, to answer through.
import type { Server } from 'node:http';

type ClientErrorAnswer = [status: number, reason: string, message: string];

const MALFORMED: ClientErrorAnswer = [400, 'Bad Request', 'Malformed HTTP request.'];
const CLIENT_ERRORS: Record<string, ClientErrorAnswer> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request headers or URL too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'The request did not arrive in time.'],
};

/** Answers `server`'s client errors as `{code, message}`, then closes the connection. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, reason, message] = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED;
    const body = JSON.stringify({ code: status, message });
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
