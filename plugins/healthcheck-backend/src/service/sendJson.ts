import type express from 'express';

/** Computes an ETag of a body, as an Express app's `etag fn` setting does. */
type EtagOf = (body: Buffer, encoding?: string) => string | undefined;

/** What an answer object was last sent as. */
interface SentBody {
  bytes: Buffer;
  /** The ETag `etagOf` gave, for apps with that `etag fn`. */
  etag?: string;
  etagOf?: EtagOf;
}

/**
 * Answers held weakly by the object sent: an answer handed out again
 * unchanged (a system's details while its rollup and matrix stand, see
 * `DetailsMemo`) is sent as the bytes it was serialized to before, with the
 * ETag Express would compute, so neither is done again per request and a
 * client polling with `If-None-Match` gets its 304 as before.
 */
const sentBodies = new WeakMap<object, SentBody>();

/**
 * `res.json(answer)` for an answer that is never changed once made, as
 * Express would send it (with its app's `etag fn`, so an app with ETags
 * turned off sends none).
 * @internal
 */
export function sendJson(res: express.Response, answer: object): void {
  let sent = sentBodies.get(answer);
  if (!sent) {
    sent = { bytes: Buffer.from(JSON.stringify(answer), 'utf8') };
    sentBodies.set(answer, sent);
  }
  const etagOf = res.app.get('etag fn') as EtagOf | undefined;
  if (etagOf && sent.etagOf !== etagOf) {
    sent.etag = etagOf(sent.bytes);
    sent.etagOf = etagOf;
  }
  res.type('json');
  if (etagOf && sent.etag) {
    res.set('ETag', sent.etag);
  }
  res.send(sent.bytes);
}
