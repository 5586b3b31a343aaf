// Errors that carry the HTTP status a client should see. Services throw them
// where only they can tell (a block beyond the head); the HTTP layer's error
// handler (src/http/app.ts) turns them into JSON answers.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (message: string) => new ApiError(404, message);
