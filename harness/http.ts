// A GET whose answer is read as JSON when it is JSON, for tests and reports.
export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** The connection a request went out on was closed by the server before any answer. */
function closedUnderIt(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return error instanceof TypeError && (cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET');
}

/**
 * getJson for the reference a test compares with (sidecar), never for the service under
 * test: asked again once when the kept-alive connection it went out on had just been closed
 * by the reference's keep-alive timeout, which a busy test process can reuse a moment late.
 */
export async function getReferenceJson(url: string, headers: Record<string, string> = {}) {
  try {
    return await getJson(url, headers);
  } catch (error) {
    if (!closedUnderIt(error)) throw error;
    return getJson(url, headers);
  }
}

/** Asks for each path once, `connections` at a time, reading every answer whole: how many were not 2xx. */
export async function askEach(baseUrl: string, paths: string[], connections: number): Promise<number> {
  const queue = [...paths];
  let non2xx = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        const response = await fetch(baseUrl + path);
        await response.arrayBuffer();
        if (!response.ok) non2xx++;
      }
    }),
  );
  return non2xx;
}
