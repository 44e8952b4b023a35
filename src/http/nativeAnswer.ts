// An answer whose body is a stream of another fetch implementation (graphql-yoga's, @whatwg-node/fetch)
// is handed to the Node adapter as a Response of Node's own, with a stream of Node's own.
//
// Why: Hono rebuilds the answer (`new Response(answer.body, answer)`) whenever a middleware touched
// `c.res` before the handler ran (hono/cors does, for every request with CORS on). Node's Response
// cannot take a foreign stream as it is; it reads it as an async iterable through undici's
// `ReadableStreamFrom`, and when the client goes away in the middle of the stream, that wrapper closes
// an already cancelled stream from a microtask: an uncaught `TypeError [ERR_INVALID_STATE]` that ends
// the process. Here the foreign stream is read through its own reader, a cancel (the client left) is
// handed to it — it ends that client's subscription, nothing else — and nothing is written into the
// native stream once it is cancelled.

/** `answer` itself when it has no body or a native one; else the same answer over a native stream. */
export function withNativeBody(answer: Response): Response {
  const body = answer.body;
  if (!body || body instanceof ReadableStream) return answer;
  // typed as Node's stream, it is another implementation of the same interface
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  let finished = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        if (!finished) {
          finished = true;
          controller.error(err);
        }
        return;
      }
      // cancelled while the read was pending: the stream is closed already, write nothing into it
      if (finished) return;
      if (chunk.done) {
        finished = true;
        controller.close();
      } else {
        controller.enqueue(chunk.value);
      }
    },
    cancel(reason) {
      finished = true;
      return reader.cancel(reason).catch(() => {});
    },
  });
  const headers = new Headers();
  answer.headers.forEach((value, name) => headers.append(name, value));
  return new Response(stream, { status: answer.status, statusText: answer.statusText, headers });
}
