/**
 * The work's answer, or a rejection with `message` once `deadlineMs` has
 * passed: for database calls that must not hold their caller while the
 * database cannot be reached (a connection that hangs instead of failing).
 * A late answer is left unread, and a late failure has no one to tell.
 * @internal
 */
export async function answerWithin<T>(
  work: Promise<T>,
  deadlineMs: number,
  message: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), deadlineMs);
    timer.unref?.();
  });
  work.catch(() => {});
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
